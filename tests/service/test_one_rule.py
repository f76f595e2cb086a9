"""One rule, one place: the MCP tool, the CLI, the Python client and the service refuse the same
bad search input with the same one-line error (graphmem.domain.validation holds the rules; the MCP
server rewrites its schema's refusals into them).

Each row is one bad input, spelled for every interface that can express it, and the one error
all of them must give. Every store is real (SQLite, Qdrant Edge); the MCP tool is called
in-process through fastmcp's Client, the CLI through its main(), the client embedded.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import io
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client, FastMCP

import graphmem
from graphmem import MemoryService, Settings
from graphmem.cli.common import held_service
from graphmem.cli.main import main as cli_main
from graphmem.client.backends import EmbeddedBackend
from graphmem.client.documents import search as client_search
from graphmem.client.ops import Call, Identity, run_sync
from graphmem.domain.requests import ListRequest
from graphmem.embedding import Embedder
from graphmem.errors import InvalidInputError
from graphmem.mcp.server import create_server
from graphmem.stores import open_working

USER = "rule"


@dataclass(frozen=True)
class Bad:
    """One bad input: the search arguments (MCP and service names), the CLI flags that say the
    same, the client's keyword arguments (None: the client cannot say it) and the error."""

    name: str
    args: dict[str, Any]
    flags: list[str] | None
    error: str
    client: dict[str, Any] | None = field(default=None)


WEIGHT_RANGE = "must be above 0 and at most 10 (use kinds to leave a kind out)"
KINDS_ONE_OF = "is not one of memory, document, image, both"

ROWS = [
    Bad(
        "unknown kind",
        {"kinds": "bogus"},
        ["--kinds", "bogus"],
        f"kinds: 'bogus' {KINDS_ONE_OF}",
        {"kinds": "bogus"},
    ),
    Bad(
        "empty kind",
        {"kinds": ""},
        ["--kinds", ""],
        f"kinds: '' {KINDS_ONE_OF}",
        {"kinds": ""},
    ),
    Bad(
        "kind weight of an unknown kind",
        {"kind_weights": {"bogus": 1}},
        ["--kind-weights", "bogus=1"],
        "kind_weights: 'bogus' is not a kind (memory, document or image)",
        {"kind_weights": {"bogus": 1}},
    ),
    Bad(
        "kind weight zero",
        {"kind_weights": {"document": 0}},
        ["--kind-weights", "document=0"],
        f"kind_weights.document: {WEIGHT_RANGE}",
        {"kind_weights": {"document": 0}},
    ),
    Bad(
        "kind weight above the limit",
        {"kind_weights": {"document": 11}},
        ["--kind-weights", '{"document": 11}'],
        f"kind_weights.document: {WEIGHT_RANGE}",
        {"kind_weights": {"document": 11}},
    ),
    Bad(
        "kind weight not a number",
        {"kind_weights": {"document": "heavy"}},
        ["--kind-weights", "document=heavy"],
        "kind_weights.document: 'heavy' is not a number",
        {"kind_weights": {"document": "heavy"}},
    ),
    Bad(
        "kind weights not an object",
        {"kind_weights": ["document"]},
        ["--kind-weights", '["document"]'],
        'kind_weights: must be an object like {"document": 0.8}',
        {"kind_weights": ["document"]},
    ),
    Bad(
        "top_k zero",
        {"top_k": 0},
        ["--top-k", "0"],
        "top_k: must be at least 1",
        {"top_k": 0},
    ),
    Bad(
        "top_k not a number",
        {"top_k": "many"},
        ["--top-k", "many"],
        "top_k: 'many' is not an integer",
        {"top_k": "many"},
    ),
    Bad(
        "an unknown kind in a list",
        {"kinds": ["memory", "bogus"]},
        None,
        f"kinds: 'bogus' {KINDS_ONE_OF}",
        {"kinds": ["memory", "bogus"]},
    ),
    # The near-misses one interface or another used to accept (issue 34): refused alike.
    Bad(
        "a kind in capitals",
        {"kinds": "Memory"},
        ["--kinds", "Memory"],
        f"kinds: 'Memory' {KINDS_ONE_OF}",
        {"kinds": "Memory"},
    ),
    Bad(
        "a kind with spaces",
        {"kinds": " memory"},
        ["--kinds", " memory"],
        f"kinds: ' memory' {KINDS_ONE_OF}",
        {"kinds": " memory"},
    ),
    Bad(
        "all for every kind",
        {"kinds": "all"},
        ["--kinds", "all"],
        f"kinds: 'all' {KINDS_ONE_OF}",
        {"kinds": "all"},
    ),
    Bad(
        "an empty list of kinds",
        {"kinds": []},
        None,
        'kinds: [] names no kind; must be "memory", "document", "image", "both" or a list of them',
        {"kinds": []},
    ),
    Bad(
        "kind weight of a kind in capitals",
        {"kind_weights": {"Document": 0.5}},
        ["--kind-weights", "Document=0.5"],
        "kind_weights: 'Document' is not a kind (memory, document or image)",
        {"kind_weights": {"Document": 0.5}},
    ),
    Bad(
        "too many hops",
        {"expand_hops": 9},
        ["--expand-hops", "9"],
        "expand_hops: must be between 0 and 4",
    ),
    Bad(
        "unknown memory type",
        {"memory_type": "rumour"},
        ["--type", "rumour"],
        "memory_type: 'rumour' is not one of fact, preference, event, task",
        {"filters": {"memory_type": "rumour"}},
    ),
    Bad(
        "time range without a unit",
        {"time_range": "7"},
        ["--time-range", "7"],
        "time_range: '7' is not a range like '15m', '24h', '7d', '2w' or '1y'",
    ),
    Bad(
        "confidence above 1",
        {"min_confidence": 2},
        ["--min-confidence", "2"],
        "min_confidence: must be in [0, 1], got 2",
        {"filters": {"min_confidence": 2}},
    ),
    Bad(
        "unknown source",
        {"source": "rumour"},
        ["--source", "rumour"],
        "source: 'rumour' is not one of user, agent, document, system",
        {"filters": {"source": "rumour"}},
    ),
]


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("one-rule") / "data"


@pytest.fixture(scope="module")
def svc(data: Path, embedder: Embedder) -> Iterator[MemoryService]:
    service = MemoryService(Settings(data_dir=data), embedder=embedder)
    service.write(USER, "I drink green tea every morning", "preference")
    yield service
    service.close()


@pytest.fixture(scope="module")
def server(svc: MemoryService) -> FastMCP:
    return create_server(svc, working=open_working("memory"), default_user=USER)


def via_service(svc: MemoryService, row: Bad) -> str:
    with pytest.raises(InvalidInputError) as e:
        svc.search(USER, "tea", **row.args)
    return str(e.value)


def via_mcp(
    server: FastMCP, row: Bad, tool: str = "memory_search", given: dict[str, Any] | None = None
) -> str:
    args = {"query": "tea"} if given is None else given

    async def go() -> Any:
        async with Client(server) as c:
            return await c.call_tool(tool, {**args, **row.args}, raise_on_error=False)

    res = asyncio.run(go())
    assert res.is_error, res
    return str(res.content[0].text)


def via_cli(svc: MemoryService, row: Bad, command: str = "search") -> str:
    """`graphmem search ... --json` (or list) on the open service, as a server runs a CLI's
    command."""
    assert row.flags is not None
    out, err = io.StringIO(), io.StringIO()
    argv = [command, *(["tea"] if command == "search" else []), "--user", USER, "--json"]
    with held_service(svc, out, err):
        code = cli_main([*argv, *row.flags])
    assert code != 0, out.getvalue()
    assert err.getvalue() == "", err.getvalue()  # one JSON error on stdout, no stack trace
    doc = json.loads(out.getvalue())["error"]
    return f"{doc['field']}: {doc['message']}"


def via_client(client: graphmem.MemoryClient, row: Bad) -> str:
    assert row.client is not None
    with pytest.raises(InvalidInputError) as e:
        client.search("tea", user_id=USER, **row.client)
    return str(e.value)


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.name)
def test_every_interface_refuses_alike(
    row: Bad,
    svc: MemoryService,
    server: FastMCP,
) -> None:
    seen: dict[str, str] = {
        "service": via_service(svc, row),
        "mcp": via_mcp(server, row),
    }
    if row.flags is not None:
        seen["cli"] = via_cli(svc, row)
    if row.client is not None:  # embedded, on the same service (not closed: the module's)
        seen["client"] = via_client(graphmem.MemoryClient(EmbeddedBackend(svc)), row)
    assert seen == {k: row.error for k in seen}


def test_the_rows_cover_every_interface() -> None:
    """Each interface is held to most rows, so a difference cannot hide in a missing cell."""
    clients: list[Callable[[Bad], object]] = [lambda r: r.flags, lambda r: r.client]
    for spelled in clients:
        assert sum(spelled(r) is not None for r in ROWS) >= len(ROWS) - 3


# Filter values are checked where they are used, by the service or the server.
CHECKED_BY_THE_CLIENT = [r for r in ROWS if r.client is not None and "filters" not in r.client]


@pytest.mark.parametrize("row", CHECKED_BY_THE_CLIENT, ids=lambda r: r.name)
def test_the_client_refuses_before_any_call(row: Bad) -> None:
    """A remote client's kinds, kind weights and top_k fail in this process, with the same
    words, before anything is sent."""
    sent: list[Call] = []

    def backend(step: Call) -> Any:
        sent.append(step)
        if step.op == "identity":
            return Identity(USER, fixed=True)
        raise AssertionError(f"{step.op} was sent")

    args = {"user_id": None, "agent_id": None, "run_id": None, "filters": None, "top_k": 5}
    args.update(row.client or {})
    with pytest.raises(InvalidInputError) as e:
        run_sync(client_search("tea", **args), backend)
    assert str(e.value) == row.error
    assert [s.op for s in sent] == ["identity"]


def test_the_search_options_are_the_request_fields() -> None:
    """MemoryService.search takes every SearchRequest field as a keyword, declared once as the
    request (SearchOptions is its keyword form, kept equal here)."""
    from graphmem.domain.requests import (  # here: main has no SearchOptions
        SearchOptions,
        SearchRequest,
    )

    fields = {f.name for f in dataclasses.fields(SearchRequest)} - {"query", "top_k"}
    assert set(SearchOptions.__annotations__) == fields
    params = inspect.signature(MemoryService.search).parameters
    assert list(params)[:4] == ["self", "user_id", "query", "top_k"]
    assert params["options"].kind is inspect.Parameter.VAR_KEYWORD


def test_the_keyword_api_still_searches(svc: MemoryService) -> None:
    """The keywords users pass keep working, through the one request type."""
    res = svc.search(USER, "green tea", 3, kinds="memory", kind_weights={"memory": 2}, tool="x")
    assert res.hits and res.hits[0].memory.content == "I drink green tea every morning"
    with pytest.raises(TypeError):
        svc.search(USER, "tea", no_such_option=1)  # type: ignore[call-arg]


# ------------------------------------------------------------------ listing: the same filters

# The filters a search shares with a listing, and a listing's own page size.
SHARED_FILTERS = {"confidence above 1", "unknown source", "unknown memory type"}
LIST_ROWS = [r for r in ROWS if r.name in SHARED_FILTERS] + [
    Bad(
        "a page of none",
        {"limit": 0},
        ["--limit", "0"],
        "limit: must be between 1 and 100",
    ),
]


@pytest.mark.parametrize("row", LIST_ROWS, ids=lambda r: r.name)
def test_every_interface_refuses_a_listing_alike(
    row: Bad, svc: MemoryService, server: FastMCP
) -> None:
    """A listing takes the same filters as a search, and refuses them in the same words."""
    with pytest.raises(InvalidInputError) as e:
        svc.list_memories(USER, ListRequest(**row.args))
    seen = {"service": str(e.value), "mcp": via_mcp(server, row, "memory_list", {})}
    if row.flags is not None:
        seen["cli"] = via_cli(svc, row, "list")
    if row.client is not None:
        client = graphmem.MemoryClient(EmbeddedBackend(svc))
        with pytest.raises(InvalidInputError) as e:
            client.get_all(user_id=USER, **row.client)
        seen["client"] = str(e.value)
    assert seen == {k: row.error for k in seen}
