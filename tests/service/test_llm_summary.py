"""Per-memory summaries from an optional LLM endpoint, with the extractive one as fallback.

The endpoint is a real HTTP server on 127.0.0.1 speaking the chat-completions protocol (what a
local vLLM or llama.cpp server would answer), not a patched client.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.domain.summary import MAX_SUMMARY, summarize
from graphmem.embedding import Embedder
from graphmem.settings import LlmSettings

LONG = (
    "Last Tuesday after the quarterly review my manager Priya told me that the Apollo platform"
    " will move to the new hospital cluster in March, and that I should lead the migration."
)


class _Completions(BaseHTTPRequestHandler):
    seen: list[dict] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Completions.seen.append({"path": self.path, "body": body})
        reply = {
            "choices": [
                {
                    "message": {
                        "role": "assistant",
                        "content": "I lead Apollo's move"
                        " to the hospital cluster in March, a long answer",
                    }
                }
            ]
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def llm_url() -> Iterator[str]:
    server = HTTPServer(("127.0.0.1", 0), _Completions)
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{server.server_port}/v1"
    server.shutdown()
    server.server_close()


def test_summary_comes_from_the_llm_and_stays_within_the_limit(
    tmp_path: Path, embedder: Embedder, llm_url: str
) -> None:
    llm = LlmSettings(url=llm_url, model="tiny", write_summaries=True, _env_file=None)
    s = Settings(data_dir=tmp_path / "d", llm=llm)
    with MemoryService(s, embedder=embedder) as svc:
        m = svc.write("u", LONG)
        short = svc.write("u", "I like tea.")  # short enough: no LLM call
    assert m.summary.startswith("I lead Apollo's move") and len(m.summary) <= MAX_SUMMARY
    assert short.summary == "I like tea."
    req = _Completions.seen[-1]
    assert req["path"] == "/v1/chat/completions" and req["body"]["model"] == "tiny"
    assert req["body"]["messages"][1]["content"] == LONG
    assert len(_Completions.seen) == 1


def test_an_unreachable_llm_falls_back_to_the_extractive_summary(
    tmp_path: Path, embedder: Embedder
) -> None:
    llm = LlmSettings(
        url="http://127.0.0.1:9/v1", summary_timeout_seconds=1, write_summaries=True, _env_file=None
    )
    s = Settings(data_dir=tmp_path / "d", llm=llm)
    with MemoryService(s, embedder=embedder) as svc:
        m = svc.write("u", LONG)
    assert m.summary == summarize(LONG)
