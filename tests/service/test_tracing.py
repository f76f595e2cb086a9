"""Traces (graphmem.infra.tracing): the span tree of a write and of a search, what their
attributes may carry (counts, flags, the user's keyed hash) and may not (content, queries, ids in
clear), and that tracing off creates nothing and imports nothing.

The spans are the SDK's own, collected by its InMemorySpanExporter; the stores are real
(SQLite, Qdrant Edge, networkx). The console and missing-extra checks run graphmem in a
subprocess, as a user would, so the setting and the extra are exercised end to end.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from graphmem import MemoryService, Settings
from graphmem.embedding import Embedder
from graphmem.infra import tracing
from graphmem.mcp.server import create_server
from graphmem.stores import open_working
from graphmem.stores.id_hash import IdHasher
from tests.helpers.extras import blocked_env, graphmem

ROOT = Path(__file__).resolve().parents[2]

# Planted strings: none of them (nor a piece of one) may appear anywhere in a span.
USER = "tracer-user-qx7vbn"
CONTENT = "Wilhelmina keeps her kayak zorblat9 at the Quaywharf marina"
QUERY = "where is the kayak zorblat9 kept"
PLANTED = [USER, "qx7vbn", CONTENT, "Wilhelmina", "zorblat9", "Quaywharf", QUERY, "kayak"]

WRITE_STEPS = {
    "graphmem.write.screen",
    "graphmem.write.embed",
    "graphmem.write.extract",
    "graphmem.write.plan",
    "graphmem.write.commit",
    "graphmem.write.project",
    "graphmem.write.merge",
}
UPDATE_STEPS = {
    "graphmem.update.screen",
    "graphmem.update.embed",
    "graphmem.update.commit",
    "graphmem.update.project",
}
INGEST_STEPS = {
    "graphmem.ingest.screen",
    "graphmem.ingest.embed",
    "graphmem.ingest.commit",
    "graphmem.ingest.project",
}
SEARCH_STEPS = {
    "graphmem.search.embed_query",
    "graphmem.search.vector",
    "graphmem.search.keyword",
    "graphmem.search.fuse",
    "graphmem.search.walk",
    "graphmem.search.facets",
}


@pytest.fixture
def spans(
    tmp_path: Path, embedder: Embedder
) -> Iterator[tuple[MemoryService, InMemorySpanExporter]]:
    """A service on real embedded stores, its spans collected in memory, users hashed under the
    install's own key (the one in its data directory)."""
    svc = MemoryService(Settings(data_dir=tmp_path / "data"), embedder=embedder)
    exporter = InMemorySpanExporter()
    tracing.start(exporter, IdHasher.for_dir(tmp_path / "data"))
    try:
        yield svc, exporter
    finally:
        tracing.stop()
        svc.close()


def _tree(finished: tuple[ReadableSpan, ...]) -> dict[str, set[str]]:
    """Span name -> the names of its children."""
    by_id = {s.context.span_id: s for s in finished}
    tree: dict[str, set[str]] = {s.name: set() for s in finished}
    for s in finished:
        if s.parent is not None and s.parent.span_id in by_id:
            tree[by_id[s.parent.span_id].name].add(s.name)
    return tree


def _text(s: ReadableSpan) -> str:
    """Everything a span exports, as text: name, attributes, events, links, status."""
    return json.dumps(json.loads(s.to_json()), ensure_ascii=False)


def _assert_clean(finished: tuple[ReadableSpan, ...]) -> None:
    assert finished
    for s in finished:
        text = _text(s)
        for planted in PLANTED:
            assert planted.lower() not in text.lower(), (planted, s.name)
        for key, value in (s.attributes or {}).items():
            assert key.startswith(("graphmem.", "error.")), key
            if isinstance(value, str) and key != tracing.USER_ATTR:
                assert len(value) <= 32, (key, value)  # a code-chosen name, not data


def test_a_write_and_a_search_give_the_expected_span_trees(
    spans: tuple[MemoryService, InMemorySpanExporter],
) -> None:
    svc, exporter = spans
    svc.write(USER, CONTENT, memory_type="fact")
    svc.write(USER, "Wilhelmina paddles the kayak zorblat9 every Sunday", memory_type="event")
    writes = exporter.get_finished_spans()
    tree = _tree(writes)
    assert tree["graphmem.write"] == WRITE_STEPS
    assert len({s.context.trace_id for s in writes}) == 2  # one trace per write

    exporter.clear()
    result = svc.search(USER, QUERY, top_k=5, expand_hops=2)
    assert result.hits and "zorblat9" in result.hits[0].memory.content
    found = exporter.get_finished_spans()
    assert _tree(found)["graphmem.search"] == SEARCH_STEPS
    # the keyword channel ran on a worker thread and still joined the search's trace
    assert len({s.context.trace_id for s in found}) == 1
    root = next(s for s in found if s.name == "graphmem.search")
    assert root.attributes is not None
    assert root.attributes["graphmem.hits"] == len(result.hits)
    assert root.attributes["graphmem.top_k"] == 5
    vector = next(s for s in found if s.name == "graphmem.search.vector")
    assert vector.attributes is not None and vector.attributes["graphmem.hits"] >= 1

    exporter.clear()
    again = svc.search(USER, QUERY, top_k=5, expand_hops=2)  # served from the result cache
    assert [h.memory.id for h in again.hits] == [h.memory.id for h in result.hits]
    cached = exporter.get_finished_spans()
    assert [s.name for s in cached] == ["graphmem.search"]
    assert cached[0].attributes is not None and cached[0].attributes["graphmem.cached"] is True


def test_an_update_gives_its_steps(spans: tuple[MemoryService, InMemorySpanExporter]) -> None:
    svc, exporter = spans
    mem = svc.write(USER, CONTENT, memory_type="fact")
    exporter.clear()
    svc.update(USER, mem.id, "Wilhelmina moved her kayak zorblat9 to the Quaywharf boathouse")
    found = exporter.get_finished_spans()
    assert _tree(found)["graphmem.update"] == UPDATE_STEPS
    commit = next(s for s in found if s.name == "graphmem.update.commit")
    assert commit.attributes is not None and commit.attributes["graphmem.version"] is True
    _assert_clean(found)

    exporter.clear()
    svc.update(USER, mem.id, metadata={"boat": "kayak"})  # no new content: nothing to embed
    assert _tree(exporter.get_finished_spans())["graphmem.update"] == UPDATE_STEPS - {
        "graphmem.update.embed"
    }


def test_an_ingest_gives_one_trace_per_document(
    spans: tuple[MemoryService, InMemorySpanExporter], tmp_path: Path
) -> None:
    svc, exporter = spans
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "boats.md").write_text(f"# Boats\n\n{CONTENT}.\n", "utf-8")
    (docs / "paddles.md").write_text("# Paddles\n\nCarbon paddles weigh less.\n", "utf-8")
    report = svc.ingest(USER, docs)
    assert report.documents == 2
    found = exporter.get_finished_spans()
    roots = [s for s in found if s.name == "graphmem.ingest.document"]
    assert len(roots) == 2 and len({s.context.trace_id for s in roots}) == 2
    assert _tree(found)["graphmem.ingest.document"] == INGEST_STEPS
    assert all(s.attributes and s.attributes["graphmem.action"] == "added" for s in roots)
    _assert_clean(found)

    exporter.clear()
    svc.ingest(USER, docs)  # unchanged: nothing screened, embedded or written
    again = exporter.get_finished_spans()
    assert {s.name for s in again} == {"graphmem.ingest.document"}


def test_spans_carry_counts_and_the_hashed_user_never_content_queries_or_ids(
    spans: tuple[MemoryService, InMemorySpanExporter], tmp_path: Path
) -> None:
    svc, exporter = spans
    first, _ = svc.write_many(USER, [{"content": CONTENT}, {"content": "Quaywharf opens at dawn"}])
    svc.search(USER, QUERY)
    svc.update(USER, first.id, "Wilhelmina moved the kayak zorblat9 to Quaywharf north")
    with pytest.raises(Exception, match="content"):  # refused: its span says only the type
        svc.write(USER, "zorblat9 " * 2000)
    finished = exporter.get_finished_spans()
    _assert_clean(finished)

    hashed = IdHasher.for_dir(tmp_path / "data")(USER)
    roots = [s for s in finished if s.name in ("graphmem.write", "graphmem.search")]
    roots += [s for s in finished if s.name == "graphmem.update"]
    assert len(roots) == 4
    for s in roots:
        assert s.attributes is not None and s.attributes[tracing.USER_ATTR] == hashed
    screen = next(s for s in finished if s.name == "graphmem.write.screen")
    assert screen.attributes is not None
    assert screen.attributes["graphmem.items"] == 2
    assert screen.attributes["graphmem.quarantined"] == 0
    embed = next(s for s in finished if s.name == "graphmem.write.embed")
    assert embed.attributes is not None and embed.attributes["graphmem.texts"] == 2
    failed = [s for s in finished if not s.status.is_ok]
    assert {s.name for s in failed} == {"graphmem.write", "graphmem.write.screen"}
    for s in failed:
        assert s.attributes is not None and s.attributes["error.type"] == "InvalidInputError"
        assert not s.events  # no exception event: its message could quote the content


def test_tracing_off_is_one_shared_object_and_creates_no_span() -> None:
    assert not tracing.enabled()
    assert tracing.span("graphmem.search", user=USER) is tracing.span("x", hits=1)
    with tracing.span("graphmem.search") as step:
        step.set(hits=1)
    fn = len
    assert tracing.carry(fn, "graphmem.write.embed") is fn


OFF_SCRIPT = """
import sys
from pathlib import Path
from graphmem import MemoryService, Settings
from graphmem.infra import tracing
svc = MemoryService(Settings(data_dir=Path(sys.argv[1])))
svc.write("u1", "Rafael keeps the spare key under the blue pot")
assert svc.search("u1", "where is the spare key").hits
print(tracing.enabled(), sorted(m for m in sys.modules if m.startswith("opentelemetry")))
"""


def _python(script: str, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", script, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHMEM_", "OTEL_"))}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return {**env, **extra}


@pytest.mark.slow
def test_tracing_off_imports_no_opentelemetry_module(tmp_path: Path) -> None:
    r = _python(OFF_SCRIPT, _env(), str(tmp_path / "data"))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False []"


CONSOLE_SCRIPT = f"""
import sys
from pathlib import Path
from graphmem import MemoryService, Settings
from graphmem.stores import open_working
svc = MemoryService(Settings(data_dir=Path(sys.argv[1])))
svc.write({USER!r}, {CONTENT!r})
print(len(svc.search({USER!r}, {QUERY!r}).hits))
svc.close()
"""


@pytest.mark.slow
def test_the_console_setting_writes_one_json_line_per_span_to_stderr(tmp_path: Path) -> None:
    r = _python(CONSOLE_SCRIPT, _env(GRAPHMEM_TRACING_MODE="console"), str(tmp_path / "data"))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "1"  # stdout is left to the program (and the stdio protocol)
    lines = [json.loads(ln) for ln in r.stderr.splitlines() if ln.startswith("{")]
    names = {s["name"] for s in lines}
    assert {"graphmem.write", "graphmem.search"} | WRITE_STEPS | SEARCH_STEPS <= names
    assert all(s["resource"]["attributes"]["service.name"] == "graphmem" for s in lines)
    for planted in PLANTED:
        assert planted.lower() not in r.stderr.lower(), planted


@pytest.mark.slow
def test_the_otlp_setting_sends_the_spans_to_the_collector_on_exit(tmp_path: Path) -> None:
    """A real OTLP/HTTP exchange with a minimal collector on loopback: the spans arrive in
    batches (flushed when the process exits), decoded with the protocol's own messages."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    bodies: list[bytes] = []

    class Collector(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the http.server API
            bodies.append(self.rfile.read(int(self.headers["Content-Length"])))
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    collector = ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    threading.Thread(target=collector.serve_forever, daemon=True).start()
    try:
        endpoint = f"http://127.0.0.1:{collector.server_address[1]}/v1/traces"
        env = _env(GRAPHMEM_TRACING_MODE="otlp", GRAPHMEM_TRACING_OTLP_ENDPOINT=endpoint)
        r = _python(CONSOLE_SCRIPT, env, str(tmp_path / "data"))
    finally:
        collector.shutdown()
        collector.server_close()
    assert r.returncode == 0, r.stderr
    assert not [ln for ln in r.stderr.splitlines() if ln.startswith("{")]  # nothing on stderr
    names = set()
    for body in bodies:
        request = ExportTraceServiceRequest.FromString(body)
        for rs in request.resource_spans:
            names |= {sp.name for ss in rs.scope_spans for sp in ss.spans}
        for planted in PLANTED:
            assert planted.encode() not in body, planted
    assert {"graphmem.write", "graphmem.search"} | WRITE_STEPS | SEARCH_STEPS <= names


@pytest.mark.slow
def test_tracing_on_without_the_extra_is_one_line_naming_it(tmp_path: Path) -> None:
    env = blocked_env(tmp_path, "opentelemetry", GRAPHMEM_TRACING_MODE="otlp")
    r = graphmem(env, tmp_path, "stats")
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr
    errors = [ln for ln in r.stderr.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1, r.stderr
    assert "tracing mode otlp needs graphmem[otel]" in errors[0]
    assert errors[0].endswith("pip install 'graphmem[otel]'")


TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
CALLER_SPAN = "00f067aa0ba902b7"
TRACEPARENT = f"00-{TRACE_ID}-{CALLER_SPAN}-01"


def test_mcp_calls_yield_their_spans_and_join_the_trace_named_in_meta(
    spans: tuple[MemoryService, InMemorySpanExporter],
) -> None:
    svc, exporter = spans
    server = create_server(svc, working=open_working("memory"), default_user=USER)

    async def go() -> Any:
        async with Client(server) as c:
            await c.call_tool("memory_write", {"content": CONTENT, "memory_type": "fact"})
            return await c.call_tool(
                "memory_search", {"query": QUERY}, meta={"traceparent": TRACEPARENT}
            )

    res = asyncio.run(go())
    assert not res.is_error, res.content[0].text
    assert res.structured_content["hits"]
    finished = exporter.get_finished_spans()
    tree = _tree(finished)
    assert tree["graphmem.search"] == SEARCH_STEPS
    assert tree["graphmem.write"] == WRITE_STEPS
    _assert_clean(finished)
    # the search named its caller's trace; the write, sent without one, started its own
    calls = [s for s in finished if s.name == "graphmem.mcp.call"]
    assert len(calls) == 2 and tree["graphmem.mcp.call"] == {"graphmem.write", "graphmem.search"}
    joined = [s for s in calls if format(s.context.trace_id, "032x") == TRACE_ID]
    assert len(joined) == 1 and joined[0].parent is not None
    assert format(joined[0].parent.span_id, "016x") == CALLER_SPAN
    assert joined[0].attributes is not None
    assert joined[0].attributes["graphmem.tool"] == "memory_search"


@pytest.mark.slow
def test_an_http_call_joins_the_trace_named_in_its_traceparent_header(tmp_path: Path) -> None:
    """A real `graphmem serve` with console traces: a caller that sends the W3C header gets
    graphmem's spans in its own trace, under its own span."""
    from fastmcp.client.transports import StreamableHttpTransport

    from tests.helpers.mcp import start_http_server

    with start_http_server(tmp_path, GRAPHMEM_TRACING_MODE="console") as srv:
        transport = StreamableHttpTransport(
            srv.url, auth=srv.tokens["alice"], headers={"traceparent": TRACEPARENT}
        )

        async def go() -> Any:
            async with Client(transport, timeout=60) as c:
                await c.call_tool("memory_write", {"content": CONTENT, "memory_type": "fact"})
                return await c.call_tool("memory_search", {"query": QUERY})

        assert not asyncio.run(go()).is_error
        lines = srv.log.read_text("utf-8").splitlines()
    found = [json.loads(ln) for ln in lines if ln.startswith('{"name": "graphmem.')]
    calls = [s for s in found if s["name"] == "graphmem.mcp.call"]
    assert len(calls) == 2 and all(s["parent_id"] == f"0x{CALLER_SPAN}" for s in calls)
    assert {s["context"]["trace_id"] for s in found} == {f"0x{TRACE_ID}"}
    assert {"graphmem.write", "graphmem.search"} <= {s["name"] for s in found}
    assert not any(p.lower() in "\n".join(lines).lower() for p in (CONTENT, QUERY, "zorblat9"))
