"""The write policy (observe), session preload, and the lifecycle CLI and MCP surface."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from graphmem import MemoryService
from graphmem.domain.model import MemoryType
from graphmem.domain.summary import MAX_SUMMARY
from graphmem.errors import InvalidInputError
from graphmem.mcp.server import create_server
from graphmem.stores import open_working
from graphmem.usecases.turns import observe, rule_id

TURNS: list[Any] = [
    "hi there!",
    {"role": "assistant", "content": "Hello! I will remember that you love Paris."},
    "I really love spicy Thai food.",
    "Remind me to send the Q3 report to Priya by Friday.",
    "Remember that my passport number ends in 4471.",
    "What's the weather like?",
    "My neighbour Tomasz Wójcik repairs old bicycles.",
    "It is kind of cloudy today.",
]


def test_observe_keeps_what_matters_and_says_why(svc: MemoryService) -> None:
    decisions = observe(svc.context, "u", TURNS, session_id="s1")
    by_turn = {d.turn: d for d in decisions}
    assert [d.action for d in decisions] == [
        "skip",
        "skip",
        "write",
        "write",
        "write",
        "skip",
        "write",
        "skip",
    ]
    assert "small talk" in by_turn[0].reason
    assert "assistant" in by_turn[1].reason
    assert by_turn[2].memory_type == "preference" and "love" in by_turn[2].reason
    assert by_turn[3].memory_type == "task" and "task" in by_turn[3].reason
    assert by_turn[4].reason.startswith("explicit remember request")
    assert "question" in by_turn[5].reason
    assert by_turn[6].memory_type == "fact" and "new entity" in by_turn[6].reason
    assert "Tomasz" in by_turn[6].reason
    for d in decisions:
        if d.action == "write":
            [mid] = d.memory_ids
            m = svc.get("u", mid)
            assert m.session_id == "s1" and m.metadata["observed"] == rule_id(d.reason)
            assert len(m.summary) <= MAX_SUMMARY and d.summary == m.summary
    task = svc.get("u", by_turn[3].memory_ids[0])
    assert task.memory_type == MemoryType.TASK and task.expires_at is not None
    assert svc.get("u", by_turn[4].memory_ids[0]).content.startswith("My passport number")
    assert "Priya" in by_turn[3].entities

    # The entity is no longer new, the same sentence is not a second memory.
    again = observe(svc.context, "u", ["My neighbour Tomasz Wójcik is nice."])
    assert again[0].action == "skip"

    forget = observe(svc.context, "u", ["Please forget that I love spicy Thai food."])
    assert forget[0].action == "forget" and forget[0].reason == "explicit forget request"
    assert forget[0].memory_ids == by_turn[2].memory_ids
    assert by_turn[2].memory_ids[0] not in svc.records.all_ids("u")

    dry = observe(svc.context, "u", ["I prefer window seats."], dry_run=True)
    assert dry[0].action == "write" and dry[0].memory_ids == []
    with pytest.raises(InvalidInputError) as e:
        observe(svc.context, "u", [{"role": "robot", "content": "x"}])
    assert e.value.field == "turns[0].role"


def _call(server: Any, tool: str, args: dict[str, Any]) -> Any:
    async def go() -> Any:
        async with Client(server) as c:
            return await c.call_tool(tool, args, raise_on_error=False)

    res = asyncio.run(go())
    assert not res.is_error, res.content[0].text
    return res.structured_content


def test_mcp_observe_and_session_preload(svc: MemoryService) -> None:
    server = create_server(svc, working=open_working("memory"), default_user="ann")
    out = _call(
        server,
        "memory_observe",
        {
            "turns": [
                "I prefer aisle seats on long flights.",
                "ok",
                "Remember my gate code is 2231.",
            ],
            "session_id": "s0",
        },
    )
    assert [d["action"] for d in out["decisions"]] == ["write", "skip", "write"]
    used = out["decisions"][0]["memory_ids"][0]
    svc.records.record_access({("ann", used): 7}, svc.get("ann", used).created_at)

    fresh = _call(server, "working_memory_get", {"session_id": "new"})
    assert fresh["exists"] is False
    preloaded = {m["memory_id"]: m for m in fresh["long_term"]}
    assert used in preloaded and len(preloaded) == 2
    assert preloaded[used]["summary"] == svc.get("ann", used).summary

    svc.write("ann", "My cat is called Miso")  # after the session started: not preloaded
    first = _call(
        server,
        "working_memory_set",
        {"session_id": "new", "content": {"task_context": "booking a flight"}},
    )
    assert first["exists"] is True and {m["memory_id"] for m in first["long_term"]} >= {used}
    kept = _call(server, "working_memory_set", {"session_id": "new", "content": {"clear": False}})
    assert kept["long_term"] == first["long_term"]


def test_cli_compact_archive_restore_observe(cli, tmp_path: Path) -> None:
    turns = tmp_path / "turns.jsonl"
    turns.write_text('"I love hiking in the Alps."\n{"role": "user", "content": "thanks"}\n')
    code, out, _ = cli("observe", str(turns), "--user", "cz", "--json")
    assert code == 0
    [kept, skipped] = json.loads(out)["decisions"]
    assert kept["action"] == "write" and skipped["action"] == "skip"
    mid = kept["memory_ids"][0]

    code, out, _ = cli("compact", "--dry-run", "--json")
    rep = json.loads(out)
    assert code == 0 and rep["dry_run"] is True and rep["scanned"] == 1
    code, out, _ = cli("compact")
    assert code == 0 and "1 memories scanned" in out and "0 archived" in out

    assert json.loads(cli("archive", mid, "--user", "cz", "--json")[1])["archived"] == [mid]
    assert json.loads(cli("search", "hiking", "--user", "cz", "--json")[1])["hits"] == []
    assert json.loads(cli("restore", mid, "--user", "cz", "--json")[1])["restored"] == [mid]
    hits = json.loads(cli("search", "hiking", "--user", "cz", "--json")[1])["hits"]
    assert hits[0]["id"] == mid

    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2")
    code, _, err = cli("observe", str(bad), "--user", "cz")
    assert code == 2 and "turns" in err
