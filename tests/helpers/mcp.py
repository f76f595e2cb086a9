"""Calling MCP tools in-process, and a real `graphmem serve` over HTTP to call them remotely."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import uuid
from collections.abc import Awaitable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

from tests.helpers.services import stop_process
from tests.helpers.waiting import wait_until

T = TypeVar("T")


TOOLS = {
    "memory_write",
    "memory_write_image",
    "memory_search",
    "memory_get",
    "memory_list",
    "memory_update",
    "memory_forget",
    "memory_summarize",
    "working_memory_get",
    "working_memory_set",
    "memory_health",
    "memory_relate",
    "memory_graph",
    "memory_forget_user",
    "memory_quarantine_list",
    "memory_reveal",
    "memory_quarantine_review",
    "memory_history",
    "memory_observe",
    "document_ingest",
    "document_list",
    "document_delete",
    "memory_import",
}


def run(coro: Awaitable[T]) -> T:
    return asyncio.run(coro)  # type: ignore[arg-type]


async def call(server: Any, tool: str, args: dict[str, Any] | None = None) -> Any:
    """Call one tool on a fresh client; returns the result (is_error set on tool errors)."""
    async with Client(server) as c:
        return await c.call_tool(tool, args or {}, raise_on_error=False)


def ok(server: Any, tool: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    res = run(call(server, tool, args))
    assert not res.is_error, res.content[0].text
    return res.structured_content


def err(server: Any, tool: str, args: dict[str, Any] | None = None) -> str:
    res = run(call(server, tool, args))
    assert res.is_error, res.structured_content
    return res.content[0].text


# ----------------------------------------------------------------------------- subprocesses
def graphmem_exe() -> str:
    exe = Path(sys.executable).with_name("graphmem")
    return str(exe) if exe.exists() else shutil.which("graphmem") or "graphmem"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def child_env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    # The checkout under test, not whatever copy the `graphmem` script was installed from.
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    env.update({"GRAPHMEM_DATA_DIR": str(data_dir), "GRAPHMEM_LOG_LEVEL": "WARNING", **extra})
    return env


def post(port: int, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(
            "POST",
            "/mcp",
            body,
            {
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
                **(headers or {}),
            },
        )
        resp = conn.getresponse()
        data = resp.read()
        try:
            return resp.status, json.loads(data)
        except ValueError:
            return resp.status, data
    finally:
        conn.close()


@dataclass
class HttpServer:
    port: int
    url: str
    data_dir: Path
    tokens: dict[str, str]  # user -> plaintext token
    proc: subprocess.Popen[bytes]
    log: Path


@contextmanager
def start_http_server(
    tmp: Path, users: tuple[str, ...] = ("alice", "bob"), **env_extra: str
) -> Iterator[HttpServer]:
    """A real `graphmem serve` on a free loopback port; killed on exit whatever happens."""
    data_dir = tmp / "data"
    tokens = {u: f"test-token-{u}-{uuid.uuid4().hex}" for u in users}
    port = free_port()
    log = tmp / "serve.log"
    env = child_env(
        data_dir, GRAPHMEM_TOKENS=",".join(f"{t}={u}" for u, t in tokens.items()), **env_extra
    )
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [graphmem_exe(), "serve", "--host", "127.0.0.1", "--port", str(port)],
            env=env,
            cwd=tmp,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:

        def asks_for_a_token() -> bool:
            if proc.poll() is not None:
                pytest.fail(f"graphmem serve exited with {proc.returncode}:\n{log.read_text()}")
            try:
                return post(port, b"{}")[0] == 401
            except OSError:
                return False

        wait_until(asks_for_a_token, "graphmem serve to come up", 180, 0.25, log.read_text)
        yield HttpServer(port, f"http://127.0.0.1:{port}/mcp", data_dir, tokens, proc, log)
    finally:
        stop_process(proc)


def http_client(srv: HttpServer, user: str) -> Client:
    return Client(StreamableHttpTransport(srv.url, auth=srv.tokens[user]), timeout=60)
