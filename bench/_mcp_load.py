"""The mixed load of `bench/mcp_overhead.py --mixed`: C clients, each its own user with its own
bearer token, for D seconds, a share of writes and the rest searches, over MCP HTTP and on
MemoryService directly, in the same run.

Both sides are closed loops: a client issues its next call when the previous one answered, so
throughput is what the system sustains and latency is mostly queueing (Little's law: C clients
at X ops/s wait about C/X s). The direct side runs one thread per client, calling the same
service methods the tools call (`write_many(user, [item], tool="memory_write")` and
`search_request(user, SearchRequest(query, top_k))`), so the difference is the server: HTTP,
MCP, authentication, the middleware and the hand-off to worker threads.

The HTTP clients are either fastmcp's Client (what an agent framework uses; its own parsing and
validation cost CPU on the same two cores) or a minimal JSON-RPC client on asyncio streams
("raw", the default), which keeps the load generator's own CPU small so that it measures the
server. The CPU time of the load generator and of the server process are reported for each phase.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

PEOPLE = ["Priya", "Mateo", "Aiko", "Lars", "Fatima", "Chen", "Olu", "Sofia", "Ravi", "Ines"]
PLACES = ["Lisbon", "Osaka", "Nairobi", "Oslo", "Lima", "Porto", "Hanoi", "Denver", "Turin"]
THINGS = [
    "budget review",
    "dentist visit",
    "marathon training",
    "Atlas launch",
    "tax filing",
    "piano lessons",
    "kitchen remodel",
    "quarterly report",
    "visa renewal",
    "book club",
]
FORMS = [
    "who is my contact for the {t}?",
    "what do I prefer for the {t}?",
    "when did I meet {p} in {q}?",
    "what should I tell {p} about the {t}?",
    "anything about {q} and the {t}?",
]
MEMORY_FORMS = [
    ("{p} from {q} is my contact for the {t} (note {n}).", "fact"),
    ("I prefer meeting {p} in {q} for the {t} (note {n}).", "preference"),
    ("Met {p} in {q} about the {t} on day {d} (note {n}).", "event"),
    ("Remind me to call {p} about the {t} before {q} (note {n}).", "task"),
]
PROTOCOL_VERSION = "2025-06-18"


def user_of(c: int) -> str:
    return f"mix-{c:04d}"


class Ops:
    """One client's deterministic stream of operations: ("write", item) or ("search", query)."""

    def __init__(self, client: int, write_share: float, salt: str) -> None:
        self.rng = random.Random(f"{salt}-{client}")
        self.client = client
        self.write_share = write_share
        self.salt = salt
        self.n = 0

    def next(self) -> tuple[str, dict[str, Any]]:
        r = self.rng
        self.n += 1
        p, q, t = r.choice(PEOPLE), r.choice(PLACES), r.choice(THINGS)
        tag = f"{self.salt}-{self.client}-{self.n}"
        if r.random() < self.write_share:
            form, kind = r.choice(MEMORY_FORMS)
            text = form.format(p=p, q=q, t=t, n=tag, d=r.randint(1, 28))
            return "write", {"content": text, "memory_type": kind}
        return "search", {"query": r.choice(FORMS).format(p=p, q=q, t=t) + f" #{tag}", "top_k": 5}


def seed_items(c: int, n: int) -> list[dict[str, str]]:
    ops = Ops(c, 1.0, "seed")
    return [ops.next()[1] for _ in range(n)]


def proc_cpu_s(pid: int | None = None) -> float:
    """User + system CPU seconds of a process (all its threads) so far."""
    path = f"/proc/{pid or 'self'}/stat"
    with open(path) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def summarise(
    records: list[tuple[str, float, bool]], wall: float, percentile: Callable[..., Any]
) -> dict[str, Any]:
    done = sum(ok for _, _, ok in records)  # an error is not an operation completed
    out: dict[str, Any] = {"ops": done, "wall_s": round(wall, 2)}
    out["ops_per_s"] = round(done / wall, 1) if wall else None
    out["errors"] = len(records) - done
    for kind in ("write", "search"):
        ms = [x for k, x, ok in records if k == kind and ok]
        out[kind] = {
            "n": len(ms),
            "ops_per_s": round(len(ms) / wall, 1) if wall else None,
            "p50_ms": round(percentile(ms, 50), 1) if ms else None,
            "p95_ms": round(percentile(ms, 95), 1) if ms else None,
        }
    return out


def run_direct(
    svc: Any, clients: int, duration: float, write_share: float, salt: str
) -> tuple[list[tuple[str, float, bool]], float]:
    """One thread per client, each calling the service in a closed loop until `duration`."""
    from graphmem.domain.requests import SearchRequest, WriteItem

    barrier = threading.Barrier(clients + 1)
    per_client: list[list[tuple[str, float, bool]]] = [[] for _ in range(clients)]
    deadline = [0.0]

    def one(c: int) -> None:
        ops, user, out = Ops(c, write_share, salt), user_of(c), per_client[c]
        barrier.wait()
        while time.perf_counter() < deadline[0]:
            kind, args = ops.next()
            t = time.perf_counter()
            ok = True
            try:
                if kind == "write":
                    svc.write_many(user, [WriteItem(**args)], tool="memory_write")
                else:
                    svc.search_request(user, SearchRequest(**args))
            except Exception:  # noqa: BLE001 - counted as an error, like a tool error
                ok = False
            out.append((kind, (time.perf_counter() - t) * 1000, ok))

    with ThreadPoolExecutor(max_workers=clients) as pool:
        futures = [pool.submit(one, c) for c in range(clients)]
        deadline[0] = time.perf_counter() + duration
        t0 = time.perf_counter()
        barrier.wait()
        for f in futures:
            f.result()
        wall = time.perf_counter() - t0
    return [r for lst in per_client for r in lst], wall


class Http11:
    """One keep-alive HTTP/1.1 connection on asyncio streams: a load generator that costs a
    fraction of a millisecond of CPU per request, where httpx costs several; on two shared
    cores the client's CPU is taken from the server it measures."""

    def __init__(self, url: str, headers: dict[str, str]) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.path = parts.path or "/"
        self.headers = dict(headers)
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(Exception):
                await self.writer.wait_closed()
        self.reader = self.writer = None

    async def request(
        self, method: str, body: bytes = b"", headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        """Send one request, read its whole answer. A connection the server closed while it
        was idle (keep-alive expiry) is reopened once: the request was not read there."""
        for attempt in (0, 1):
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
            lines = [f"{method} {self.path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
            lines += [f"{k}: {v}" for k, v in {**self.headers, **(headers or {})}.items()]
            lines.append(f"Content-Length: {len(body)}")
            assert self.reader is not None
            self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
            status_line = await self.reader.readline()
            if not status_line:
                await self.close()
                if attempt:
                    raise ConnectionError("the server closed the connection")
                continue
            return await self._answer(int(status_line.split()[1]))
        raise AssertionError("unreachable")

    async def _answer(self, status: int) -> tuple[int, dict[str, str], bytes]:
        assert self.reader is not None
        headers: dict[str, str] = {}
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            key, _, value = line.decode("latin-1").partition(":")
            headers[key.strip().lower()] = value.strip()
        if "content-length" in headers:
            body = await self.reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int((await self.reader.readline()).split(b";")[0], 16)
                chunk = await self.reader.readexactly(size + 2)
                if size == 0:
                    break
                chunks.append(chunk[:-2])
            body = b"".join(chunks)
        else:
            body = await self.reader.read()
            headers["connection"] = "close"
        if headers.get("connection", "").lower() == "close":
            await self.close()
        return status, headers, body


class RawClient:
    """A minimal MCP client over streamable HTTP, in either protocol era.

    modern (2026-07-28, what fastmcp's Client negotiates with this server): every call is one
    self-contained POST, the protocol version and client info in `_meta` and the routing
    headers. legacy: the initialize handshake, then calls within the session it opened. The
    answer is read from a JSON body or from the SSE event that carries it."""

    MODERN = "2026-07-28"
    LEGACY = "2025-06-18"

    def __init__(self, url: str, token: str, protocol: str = "modern") -> None:
        self.modern = protocol == "modern"
        self.http = Http11(
            url,
            {
                "Authorization": f"Bearer {token}",
                "Accept": "application/json, text/event-stream",
                "Content-Type": "application/json",
            },
        )
        self.ids = 0
        self.meta = {
            "io.modelcontextprotocol/protocolVersion": self.MODERN,
            "io.modelcontextprotocol/clientInfo": {"name": "graphmem-bench", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {},
        }

    async def __aenter__(self) -> RawClient:
        if self.modern:
            self.http.headers["MCP-Protocol-Version"] = self.MODERN
            await self._post("server/discover", {})
            return self
        msg, headers = await self._post(
            "initialize",
            {
                "protocolVersion": self.LEGACY,
                "capabilities": {},
                "clientInfo": {"name": "graphmem-bench", "version": "0"},
            },
        )
        self.http.headers["MCP-Protocol-Version"] = msg["result"]["protocolVersion"]
        if headers.get("mcp-session-id"):
            self.http.headers["Mcp-Session-Id"] = headers["mcp-session-id"]
        body = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        await self.http.request("POST", json.dumps(body).encode())
        return self

    async def __aexit__(self, *exc: object) -> None:
        if "Mcp-Session-Id" in self.http.headers:
            with contextlib.suppress(Exception):  # the server may be gone already
                await self.http.request("DELETE")
        await self.http.close()

    async def _post(
        self, method: str, params: dict[str, Any], name: str | None = None
    ) -> tuple[dict[str, Any], dict[str, str]]:
        self.ids += 1
        headers = {}
        if self.modern:
            params = {**params, "_meta": self.meta}
            headers["Mcp-Method"] = method
            if name:
                headers["Mcp-Name"] = name
        body = {"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params}
        status, answer, data = await self.http.request("POST", json.dumps(body).encode(), headers)
        if status != 200:
            raise RuntimeError(f"HTTP {status}: {data[:300]!r}")
        if answer.get("content-type", "").startswith("text/event-stream"):
            for line in data.decode().splitlines():
                if line.startswith("data:"):
                    msg = json.loads(line[5:])
                    if msg.get("id") == self.ids:
                        return msg, answer
            raise RuntimeError("no answer in the event stream")
        return json.loads(data), answer

    async def call(self, tool: str, args: dict[str, Any]) -> bool:
        return await self.result(tool, args) is not None

    async def result(self, tool: str, args: dict[str, Any]) -> dict[str, Any] | None:
        """The tool's structured result, or None for a tool error."""
        msg, _ = await self._post("tools/call", {"name": tool, "arguments": args}, tool)
        if "result" not in msg or msg["result"].get("isError", False):
            return None
        return dict(msg["result"].get("structuredContent") or {})


class FastmcpClient:
    """fastmcp's own Client, as an agent framework would use it."""

    def __init__(self, url: str, token: str) -> None:
        from fastmcp import Client
        from fastmcp.client.transports import StreamableHttpTransport

        self.client = Client(StreamableHttpTransport(url, auth=token), timeout=600)

    async def __aenter__(self) -> FastmcpClient:
        await self.client.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.client.__aexit__(None, None, None)

    async def call(self, tool: str, args: dict[str, Any]) -> bool:
        res = await self.client.call_tool(tool, args, raise_on_error=False)
        return not res.is_error


async def run_http(
    url: str,
    tokens: list[str],
    duration: float,
    write_share: float,
    salt: str,
    client_kind: str,
) -> tuple[list[tuple[str, float, bool]], float, list[str]]:
    """Connect every client first, then release them together for `duration` seconds."""

    def make(url: str, token: str) -> RawClient | FastmcpClient:
        if client_kind == "fastmcp":
            return FastmcpClient(url, token)
        return RawClient(url, token, "legacy" if client_kind == "raw-legacy" else "modern")

    clients = len(tokens)
    per_client: list[list[tuple[str, float, bool]]] = [[] for _ in range(clients)]
    failures: list[str] = []
    ready = 0
    all_ready, go = asyncio.Event(), asyncio.Event()
    deadline = [0.0]

    sem = asyncio.Semaphore(20)  # connect in waves, not 200 handshakes at once

    async def one(c: int) -> None:
        nonlocal ready
        ops, out = Ops(c, write_share, salt), per_client[c]
        client = make(url, tokens[c])
        async with sem:
            await client.__aenter__()
        try:
            ready += 1
            if ready == clients:
                all_ready.set()
            await go.wait()
            while time.perf_counter() < deadline[0]:
                kind, args = ops.next()
                t = time.perf_counter()
                try:
                    ok = await client.call(
                        "memory_write" if kind == "write" else "memory_search", args
                    )
                except Exception as e:  # noqa: BLE001 - counted, and the first few kept
                    ok = False
                    if len(failures) < 5:
                        failures.append(f"{type(e).__name__}: {e}"[:300])
                out.append((kind, (time.perf_counter() - t) * 1000, ok))
        finally:
            await client.__aexit__(None, None, None)

    tasks = [asyncio.create_task(one(c)) for c in range(clients)]
    await asyncio.wait_for(all_ready.wait(), timeout=300)
    deadline[0] = time.perf_counter() + duration
    t0 = time.perf_counter()
    go.set()
    await asyncio.gather(*tasks)
    wall = time.perf_counter() - t0
    return [r for lst in per_client for r in lst], wall, failures


def seed_users(svc: Any, clients: int, per_user: int) -> None:
    for c in range(clients):
        svc.write_many(user_of(c), seed_items(c, per_user))


def make_tokens(tokens_file: Path, clients: int) -> list[str]:
    """One agent token per client, each for its own user, minted the way `graphmem serve
    --add-token USER` mints them (the hash goes into the server's tokens file)."""
    from graphmem.mcp.identity import add_token

    return [add_token(tokens_file, user_of(c)) for c in range(clients)]


__all__ = [
    "make_tokens",
    "proc_cpu_s",
    "run_direct",
    "run_http",
    "seed_users",
    "summarise",
]
