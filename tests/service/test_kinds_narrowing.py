"""A `kinds` list of two kinds keeps those two, through every interface that can say it.

The Python client used to turn two kinds into the MCP tool's one word, "both", which is every
kind: a search the caller had narrowed to memories and images came back with document chunks
too. The MCP tool now takes a list, and the client sends one. Every store is real (SQLite,
Qdrant Edge); the MCP tool is called in-process through fastmcp's Client, the client embedded
and, for what a remote client sends, through its operations with the MCP tool as the backend.
"""

from __future__ import annotations

import asyncio
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client, FastMCP

import graphmem
from graphmem import MemoryService, Settings
from graphmem.client.backends import EmbeddedBackend
from graphmem.client.documents import search as client_search
from graphmem.client.ops import Call, Identity, run_sync
from graphmem.domain.validation import KIND_NAMES, KIND_WORDS, kinds_argument, parse_kinds
from graphmem.embedding import Embedder
from graphmem.mcp.server import create_server
from graphmem.mcp.tools.common import KindName, KindWord
from graphmem.stores import open_working

USER = "narrow"
TWO = ["memory", "image"]  # no document: the one kind the store below holds besides memories
PAGE = (
    "# The Quillon lighthouse\n\n"
    "## History\n\nThe Quillon lighthouse was built in 1871 on the northern cape.\n"
)


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Iterator[MemoryService]:
    data: Path = tmp_path_factory.mktemp("narrow") / "data"
    service = MemoryService(Settings(data_dir=data), embedder=embedder)
    service.write(USER, "I climbed the Quillon lighthouse last summer", "event")
    graphmem.MemoryClient(EmbeddedBackend(service)).ingest_text(
        PAGE, name="quillon.md", user_id=USER
    )
    yield service
    service.close()


@pytest.fixture(scope="module")
def server(svc: MemoryService) -> FastMCP:
    return create_server(svc, working=open_working("memory"), default_user=USER)


def mcp_search(server: FastMCP, args: dict[str, Any]) -> list[dict[str, Any]]:
    async def go() -> Any:
        async with Client(server) as c:
            return await c.call_tool("memory_search", args, raise_on_error=False)

    res = asyncio.run(go())
    assert not res.is_error, res.content
    hits: list[dict[str, Any]] = res.structured_content["hits"]
    return hits


def test_the_store_holds_both_kinds(svc: MemoryService) -> None:
    """Without a filter the query finds the memory and the document chunk, so a search that
    drops the chunk below drops it for its kinds, not for its words."""
    kinds = {h.memory.kind.value for h in svc.search(USER, "Quillon lighthouse", 10).hits}
    assert kinds == {"memory", "document"}


def test_the_service_keeps_two_kinds(svc: MemoryService) -> None:
    hits = svc.search(USER, "Quillon lighthouse", 10, kinds=TWO).hits
    assert hits and {h.memory.kind.value for h in hits} == {"memory"}


def test_the_embedded_client_keeps_two_kinds(svc: MemoryService) -> None:
    client = graphmem.MemoryClient(EmbeddedBackend(svc))
    hits = client.search("Quillon lighthouse", user_id=USER, kinds=TWO, top_k=10)["results"]
    assert hits and {h["kind"] for h in hits} == {"memory"}


def test_the_mcp_tool_takes_two_kinds(server: FastMCP) -> None:
    hits = mcp_search(server, {"query": "Quillon lighthouse", "top_k": 10, "kinds": TWO})
    assert hits and {h["kind"] for h in hits} == {"memory"}


def test_a_remote_client_sends_the_two_kinds(server: FastMCP) -> None:
    """What the remote backend would send goes to the MCP tool as it is: the list, not the word
    for every kind."""
    sent: list[dict[str, Any]] = []

    def backend(step: Call) -> Any:
        if step.op == "identity":
            return Identity(USER, fixed=True)
        assert step.op == "search", step.op
        args = step.args
        sent.append(args["filters"])
        return mcp_search(
            server, {"query": args["query"], "top_k": args["top_k"], **args["filters"]}
        )

    op = client_search(
        "Quillon lighthouse",
        user_id=None,
        agent_id=None,
        run_id=None,
        filters=None,
        top_k=10,
        kinds=TWO,
    )
    hits = run_sync(op, backend)["results"]
    assert sent == [{"kinds": ["image", "memory"]}]
    assert hits and {h["kind"] for h in hits} == {"memory"}


@pytest.mark.parametrize(
    ("given", "sent"),
    [
        (None, None),
        ("both", None),
        ("document", "document"),
        (["document"], "document"),
        (["image", "memory", "memory"], ["image", "memory"]),
        (["memory", "document", "image"], None),  # every kind is no filter
        (["memory", "both"], None),
    ],
)
def test_kinds_argument(given: Any, sent: Any) -> None:
    assert kinds_argument(given) == sent


def test_the_tool_schema_spells_the_rule() -> None:
    """The MCP tool's vocabularies are graphmem.domain.validation's, word for word."""
    assert typing.get_args(KindName) == KIND_NAMES
    assert typing.get_args(KindWord) == KIND_WORDS
    assert all(parse_kinds(w) is None or parse_kinds(w) == (w,) for w in KIND_WORDS)
