"""What each MCP tool does once a user's rate-limit budget is used up.

    python bench/rate_limits.py

In process, on the embedded stores, with the default limits (60 writes, 120 searches a minute)
and a rate limiter whose clock stands still (no refill during the run): 60 `memory_write` calls
use up the write budget, then every tool that writes is called once; 120 `memory_search` calls
use up the search budget, then every tool that reads is called once. Prints a Markdown table:
tool, its budget, and the outcome after the budget ran out (refused, or answered).
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from fastmcp import Client

from graphmem import MemoryService, Settings
from graphmem.guard import Guard, GuardSettings, InProcessRateLimiter
from graphmem.mcp.server import create_server
from graphmem.stores import open_working

WRITERS: list[tuple[str, dict[str, Any]]] = [
    ("memory_write", {"content": "one more", "memory_type": "fact"}),
    ("memory_update", {"memory_id": "{first}", "content": "changed"}),
    ("memory_observe", {"turns": ["I prefer tea."]}),
    ("memory_observe", {"turns": ["I prefer tea."], "dry_run": True}),
    ("memory_relate", {"source_id": "{first}", "target_id": "{m}"}),
    ("memory_forget", {"memory_id": "{last}"}),
    ("working_memory_set", {"session_id": "s", "content": {"task_context": "x"}}),
    ("memory_quarantine_review", {"memory_ids": ["{m}"], "approve": False}),
    ("memory_forget_user", {"confirm": "NO"}),  # refused either way; the message says why
]
READERS: list[tuple[str, dict[str, Any]]] = [
    ("memory_search", {"query": "locker"}),
    ("memory_forget", {"query": "locker code", "dry_run": True, "threshold": 0.3}),
    ("memory_history", {"memory_id": "{m}"}),
    ("memory_graph", {"memory_id": "{m}"}),
    ("memory_summarize", {"memory_ids": ["{m}"]}),
    ("memory_quarantine_list", {}),
    ("working_memory_get", {"session_id": "s2"}),
]


def outcome(res: Any) -> str:
    if res.is_error:
        return "refused: " + res.content[0].text.split(";")[0][:60]
    return "answered"


def fill(value: Any, ids: dict[str, str]) -> Any:
    if isinstance(value, str):
        return ids.get(value.strip("{}"), value) if value.startswith("{") else value
    if isinstance(value, list):
        return [fill(v, ids) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, ids) for k, v in value.items()}
    return value


def name_of(tool: str, args: dict[str, Any]) -> str:
    return tool + (" (dry_run)" if args.get("dry_run") else "")


async def probe(svc: MemoryService) -> list[tuple[str, str, str]]:
    srv = create_server(svc, working=open_working("memory"), default_user="u")
    rows: list[tuple[str, str, str]] = []
    m = svc.write("u", "The user's locker code is 4417")
    async with Client(srv) as c:
        written = []
        for i in range(60):
            args = {"content": f"Note {i} about topic {i * 7919}", "memory_type": "fact"}
            r = await c.call_tool("memory_write", args, raise_on_error=False)
            written.append(r.structured_content["memory_id"])
        ids = {"first": written[0], "last": written[-1], "m": m.id}
        for tool, args in WRITERS:
            res = await c.call_tool(tool, fill(args, ids), raise_on_error=False)
            rows.append((name_of(tool, args), "write", outcome(res)))
        for i in range(120):
            await c.call_tool("memory_search", {"query": f"locker {i}"}, raise_on_error=False)
        for tool, args in READERS:
            res = await c.call_tool(tool, fill(args, ids), raise_on_error=False)
            rows.append((name_of(tool, args), "search", outcome(res)))
        try:
            await c.read_resource(f"memory://{m.id}")
            rows.append(("resource memory://{id}", "search", "answered"))
        except Exception as e:  # noqa: BLE001 - the client raises a refused read
            rows.append(("resource memory://{id}", "search", "refused: " + str(e)[:60]))
        res = await c.call_tool("memory_health", {}, raise_on_error=False)
        rows.append(("memory_health", "none", outcome(res)))
    return rows


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        guard = Guard(GuardSettings(_env_file=None), limiter=InProcessRateLimiter(lambda: 0.0))
        with MemoryService(Settings(data_dir=Path(tmp) / "data"), guard=guard) as svc:
            rows = asyncio.run(probe(svc))
    print("| tool | budget | after the budget ran out |")
    print("|---|---|---|")
    for tool, budget, what in rows:
        print(f"| `{tool}` | {budget} | {what} |")


if __name__ == "__main__":
    main()
