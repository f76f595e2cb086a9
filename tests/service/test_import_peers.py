"""Importing from a peer that runs here: the MCP reference memory server, installed from npm and
driven through its own MCP tools over stdio, writes its memory.json; graphmem imports that file.

Skipped (with the reason) when Node.js / npm are missing or the package cannot be installed
(no registry reachable): tests/service/test_import.py covers the same adapter on a memory.json the
server wrote once (tests/fixtures/import/mcp-memory.jsonl).
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from graphmem.service.facade import MemoryService

PACKAGE = "@modelcontextprotocol/server-memory"
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "import" / "mcp-memory.jsonl"


@pytest.fixture(scope="module")
def memory_server(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The server's entry point, installed into a fresh folder."""
    if not shutil.which("node") or not shutil.which("npm"):
        pytest.skip("Node.js and npm are needed to run the reference memory server")
    root = tmp_path_factory.mktemp("server-memory")
    try:
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--silent", PACKAGE],
            cwd=root,
            check=True,
            capture_output=True,
            timeout=240,
        )
    except (subprocess.SubprocessError, OSError) as e:
        pytest.skip(f"could not install {PACKAGE} from npm: {e}")
    entry = root / "node_modules" / PACKAGE / "dist" / "index.js"
    if not entry.is_file():
        pytest.skip(f"{PACKAGE} has no dist/index.js in this version")
    return entry


ENTITIES = [
    {"name": "Maya", "entityType": "person", "observations": ["Is the user's sister"]},
    {"name": "Northwind Labs", "entityType": "organization", "observations": []},
    {"name": "Tromsø", "entityType": "city", "observations": ["Lies north of the Arctic Circle"]},
    {"name": "Jonas", "entityType": "person", "observations": ["Is the user's cousin"]},
    {"name": "Fjordline Ferries", "entityType": "company", "observations": ["Runs night boats"]},
    {"name": "Bergen", "entityType": "city", "observations": ["Has a fish market"]},
    {"name": "Lisbon", "entityType": "city", "observations": ["The user visited it in May"]},
    {"name": "Oslo", "entityType": "city", "observations": ["The user's flight home lands there"]},
]
RELATIONS = [
    {"from": "Maya", "to": "Northwind Labs", "relationType": "works_at"},
    {"from": "Northwind Labs", "to": "Tromsø", "relationType": "headquartered_in"},
    {"from": "Jonas", "to": "Fjordline Ferries", "relationType": "works_for"},
    {"from": "Fjordline Ferries", "to": "Bergen", "relationType": "based_in"},
    {"from": "Jonas", "to": "Lisbon", "relationType": "lives_in"},
]
OBSERVATIONS = [
    {"entityName": "Maya", "contents": ["Plays the cello", "Prefers trains to planes"]},
    {"entityName": "Northwind Labs", "contents": ["Makes weather sensors"]},
]


async def drive(entry: Path, memory_file: Path) -> list[str]:
    """A small conversation's knowledge, stored the way an agent stores it: through the
    server's create_entities, create_relations and add_observations tools. The fixture
    tests/fixtures/import/mcp-memory.jsonl is what this wrote (server 2026.8.31)."""
    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport

    transport = StdioTransport(
        command="node", args=[str(entry)], env={"MEMORY_FILE_PATH": str(memory_file)}
    )
    async with Client(transport) as client:
        tools = [t.name for t in await client.list_tools()]
        await client.call_tool("create_entities", {"entities": ENTITIES})
        await client.call_tool("create_relations", {"relations": RELATIONS})
        await client.call_tool("add_observations", {"observations": OBSERVATIONS})
    return tools


@pytest.mark.slow
def test_reference_server_memory_file_imports_and_answers(
    memory_server: Path, tmp_path: Path, svc: MemoryService
) -> None:
    memory_file = tmp_path / "memory.json"
    tools = asyncio.run(drive(memory_server, memory_file))
    assert {"create_entities", "create_relations", "add_observations"} <= set(tools)
    lines = [json.loads(x) for x in memory_file.read_text(encoding="utf-8").splitlines()]
    # the committed fixture is what the server writes (tests/service/test_import.py reads it)
    assert lines == [json.loads(x) for x in FIXTURE.read_text(encoding="utf-8").splitlines()]
    report = svc.import_from("u", "mcp-memory", str(memory_file))
    assert report.skipped == [] and report.added == 10 + 5
    question = "In which city is the company my cousin Jonas works for?"
    hits = [h.memory.content for h in svc.search("u", question, top_k=5).hits]
    assert "Fjordline Ferries based in Bergen." in hits
    assert svc.import_from("u", "mcp-memory", str(memory_file)).added == 0
