"""What the HTTP server does per request under many clients: tool calls that write and tool
calls that read run in worker threads of their own, so reads never wait behind writes queued
on the service's write lock and neither lane can starve the health probe; and identifying a
token costs the same however many tokens there are.

Driven in-process with fastmcp's Client on real embedded stores; the write lock is held by the
test itself, which is exactly what a long write does to every write queued behind it.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client, FastMCP

from graphmem import MemoryService
from graphmem.mcp.http import healthz_endpoint
from graphmem.mcp.identity import TokenTable, generate_token, hash_token
from graphmem.mcp.middleware import lane_of
from graphmem.mcp.server import create_server
from graphmem.settings.server import McpSettings
from tests.helpers.waiting import wait_until_async

# anyio's default thread limiter has 40 tokens: as many writes as that, all waiting for the
# write lock, used to hold every worker thread the server had.
QUEUED_WRITES = 40


def server_for(svc: MemoryService, **settings: Any) -> FastMCP:
    cfg = McpSettings(**settings)
    return create_server(svc, settings=cfg, default_user="alice")


async def call(server: FastMCP, tool: str, args: dict[str, Any]) -> Any:
    async with Client(server) as c:
        return await c.call_tool(tool, args, raise_on_error=False)


def write_args(i: int) -> dict[str, Any]:
    return {"content": f"Lane test note {i}: Priya moved to Oslo.", "memory_type": "fact"}


@contextmanager
def write_lock_held(svc: MemoryService) -> Iterator[None]:
    """Hold the service's write lock from another thread, as a long write would."""
    taken, release = threading.Event(), threading.Event()

    def hold() -> None:
        with svc.context.write_lock:
            taken.set()
            release.wait(120)

    holder = threading.Thread(target=hold, daemon=True)
    holder.start()
    assert taken.wait(30)
    try:
        yield
    finally:
        release.set()
        holder.join(60)


def test_searches_and_health_answer_while_writes_queue_on_the_write_lock(
    svc: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    svc.write_many("alice", [write_args(-1)])
    server = server_for(svc)
    lane_threads = McpSettings().write_workers
    entered = [0]  # write_many calls that have started (each then waits for the lock)
    write_many, counting = svc.write_many, threading.Lock()

    def counted(*args: Any, **kwargs: Any) -> Any:
        with counting:
            entered[0] += 1
        return write_many(*args, **kwargs)

    monkeypatch.setattr(svc, "write_many", counted)

    async def scenario() -> tuple[float, float, int]:
        with write_lock_held(svc):
            writes = [
                asyncio.create_task(call(server, "memory_write", write_args(i)))
                for i in range(QUEUED_WRITES)
            ]
            # every write lane thread is in the service, waiting for the lock
            await wait_until_async(lambda: entered[0] >= lane_threads, "the writes in the service")
            t = time.perf_counter()
            res = await asyncio.wait_for(
                call(server, "memory_search", {"query": "where did Priya move?"}), 60
            )
            search_s = time.perf_counter() - t
            assert not res.is_error, res.content[0].text
            t = time.perf_counter()
            health = await asyncio.wait_for(healthz_endpoint(svc, None), 60)  # type: ignore[arg-type]
            health_s = time.perf_counter() - t
            assert health.status_code == 200
            assert not any(w.done() for w in writes), "the write lock was held: no write ends"
        done = await asyncio.wait_for(asyncio.gather(*writes), 300)
        return search_s, health_s, sum(not r.is_error for r in done)

    search_s, health_s, written = asyncio.run(scenario())
    # Before the lanes, the search and the probe waited for a worker thread until the lock
    # was released: here, never, so wait_for timed out.
    assert search_s < 30
    assert health_s < 30
    assert written == QUEUED_WRITES


def concurrency_of(method: Callable[..., Any]) -> tuple[Callable[..., Any], list[int]]:
    """`method` wrapped to record the most calls that ever ran at once (and slowed down a
    little, so that calls the server lets overlap do overlap)."""
    lock = threading.Lock()
    state = [0, 0]  # running now, most ever

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        with lock:
            state[0] += 1
            state[1] = max(state[1], state[0])
        try:
            time.sleep(0.2)
            return method(*args, **kwargs)
        finally:
            with lock:
                state[0] -= 1

    return wrapped, state


@pytest.mark.parametrize(("read", "write"), [(1, 1), (3, 2)])
def test_lane_sizes_bound_the_calls_that_run_at_once(
    svc: MemoryService, monkeypatch: pytest.MonkeyPatch, read: int, write: int
) -> None:
    svc.write_many("alice", [write_args(-1)])
    search, searches = concurrency_of(svc.search_request)
    write_many, writes = concurrency_of(svc.write_many)
    monkeypatch.setattr(svc, "search_request", search)
    monkeypatch.setattr(svc, "write_many", write_many)
    server = server_for(svc, read_workers=read, write_workers=write)

    async def scenario() -> list[Any]:
        calls = [call(server, "memory_search", {"query": f"Priya {i}"}) for i in range(6)]
        calls += [call(server, "memory_write", write_args(i)) for i in range(6)]
        return await asyncio.wait_for(asyncio.gather(*calls), 300)

    results = asyncio.run(scenario())
    assert not any(r.is_error for r in results)
    assert searches[1] == read
    assert writes[1] == write


def test_a_call_that_spends_the_write_budget_is_in_the_write_lane() -> None:
    assert lane_of([("write", 1.0)]) == "write"
    assert lane_of([("search", 1.0), ("write", 1.0)]) == "write"  # forget by query
    assert lane_of([("search", 1.0)]) == "read"
    assert lane_of([]) == "read"  # memory_health


def test_lane_sizes_must_be_positive() -> None:
    with pytest.raises(ValueError, match="read_workers"):
        McpSettings(read_workers=0)
    with pytest.raises(ValueError, match="write_workers"):
        McpSettings(write_workers=0)


def test_a_token_lookup_costs_the_same_for_one_token_or_thousands(tmp_path: Path) -> None:
    """Every HTTP request identifies its token; with one token per user the table grows with
    the users, and a lookup that scanned it cost each request more with every user added."""

    def table_of(n: int) -> tuple[TokenTable, list[str]]:
        tokens = [generate_token() for _ in range(n)]
        path = tmp_path / f"tokens-{n}.json"
        path.write_text(json.dumps({hash_token(t): f"user-{i}" for i, t in enumerate(tokens)}))
        return TokenTable(path), tokens

    def median_us(table: TokenTable, token: str) -> float:
        times = []
        for _ in range(300):
            t = time.perf_counter()
            table.identify(token)
            times.append(time.perf_counter() - t)
        return statistics.median(times) * 1e6

    one, [only] = table_of(1)
    many, tokens = table_of(5000)
    found = many.identify(tokens[-1])
    assert found is not None and found.user == "user-4999" and found.role == "agent"
    assert many.identify(generate_token()) is None
    small, large = median_us(one, only), median_us(many, tokens[-1])
    assert large < 5 * small + 20, (small, large)
