"""Importing from peers that run here, installed from PyPI at test time: each peer writes its
data through its own code, then graphmem imports what it wrote.

- graphiti-core 0.31.2 writes an episode, entities, RELATES_TO facts with valid_at / invalid_at
  and MENTIONS into the test Neo4j through its own classes' save() methods (EpisodicNode,
  EntityNode, EntityEdge, EpisodicEdge: the classes Graphiti.add_episode builds and writes),
  without an LLM: the name and fact embeddings an LLM pipeline would compute are fixed small vectors
  (tests/peers/graphiti_write.py). graphiti-core imports httpx, which its requirements no
  longer bring in (openai 3.x moved to httpx2), so httpx is installed beside it.
- mcp-neo4j-memory 0.4.5 stores entities, relations and observations in the test Neo4j through
  its own MCP tools, called in-process on the server its create_mcp_server builds
  (tests/peers/neo4j_memory_write.py).
- mem0ai 2.2.1 stores memories with `add(..., infer=False)` and changes one with `update`,
  fully offline: its qdrant provider in local (in-process) mode, its langchain embedder
  provider around a local hashing embedder, no model downloaded, no API called
  (tests/peers/mem0_write.py); graphmem imports its get_all() JSON and its history.db.

Each peer goes into a virtualenv of its own (tests/helpers/peers.py), never into graphmem's.
A test is skipped, with pip's reason, when the registry cannot be reached or the package does
not install; the same adapters are still covered by graphs written in the peers' shapes
(tests/service/test_import_neo4j.py) and a mem0 export in its documented format
(tests/service/test_import.py). The Neo4j data each test writes is deleted afterwards.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem.domain.visibility import Viewer
from graphmem.service.facade import MemoryService
from tests.helpers.peers import peer_python, run_peer

pytestmark = [pytest.mark.services, pytest.mark.slow]

GRAPHITI = ("graphiti-core==0.31.2", "httpx")
NEO4J_MEMORY = ("mcp-neo4j-memory==0.4.5",)
MEM0 = ("mem0ai==2.2.1", "langchain")


@pytest.fixture
def neo4j_login(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, str, str]]:
    """(Bolt address, user, password) of the test Neo4j; the importers read the credentials
    from NEO4J_USERNAME / NEO4J_PASSWORD, as the peers' own servers do."""
    from tests.helpers.services import service_url

    url = service_url("GRAPHMEM_TEST_NEO4J_URL")
    user = os.environ.get("GRAPHMEM_TEST_NEO4J_USER", "neo4j")
    password = os.environ.get("GRAPHMEM_TEST_NEO4J_PASSWORD", "")
    monkeypatch.setenv("NEO4J_USERNAME", user)
    monkeypatch.setenv("NEO4J_PASSWORD", password)
    yield url, user, password


def delete(login: tuple[str, str, str], query: str, **params: object) -> None:
    import neo4j

    url, user, password = login
    with neo4j.GraphDatabase.driver(url, auth=(user, password)) as driver, driver.session() as s:
        s.run(query, **params).consume()


# ---------------------------------------------------------------------- graphiti-core


@pytest.fixture
def graphiti_graph(
    tmp_path_factory: pytest.TempPathFactory, neo4j_login: tuple[str, str, str]
) -> Iterator[tuple[str, dict[str, str]]]:
    """graphiti-core's own save() wrote the graph; yields (group id, uuids by role)."""
    python = peer_python(tmp_path_factory, "graphiti", *GRAPHITI)
    group = f"g-{uuid.uuid4().hex}"
    try:
        yield group, run_peer(python, "graphiti_write.py", *neo4j_login, group)
    finally:
        delete(
            neo4j_login,
            "MATCH (n) WHERE (n:Episodic OR n:Entity) AND n.group_id = $g DETACH DELETE n",
            g=group,
        )


def test_graphiti_core_graph_imports_with_validity_and_groups(
    graphiti_graph: tuple[str, dict[str, str]],
    neo4j_login: tuple[str, str, str],
    svc: MemoryService,
) -> None:
    group, ids = graphiti_graph
    url = neo4j_login[0]
    report = svc.import_from("nobody", "graphiti", url, map_user={group: "u"})
    assert (report.added, report.skipped) == (1 + 3 + 2, [])
    assert report.users == {"u": 6}
    mems = {m.content: m for m in svc.list("u", viewer=Viewer.OPERATOR)}
    porto, lisbon = mems["The user lives in Porto"], mems["The user lives in Lisbon"]
    assert porto.metadata["import_id"] == f"fact:{ids['porto_fact']}"
    assert porto.valid_since.year == 2019
    assert porto.valid_to is not None and (porto.valid_to.year, porto.valid_to.month) == (2024, 3)
    assert porto.metadata["import_format"] == "graphiti"
    assert porto.metadata["relation"] == "LIVES_IN"
    assert porto.metadata["expired_at"].startswith("2024-03-10T09:00:06")
    assert lisbon.valid_to is None and lisbon.valid_since.year == 2024
    assert "Lisbon: Capital of Portugal" in mems and "User is a Person." in mems
    assert mems["Porto: City in the north of Portugal"].metadata["labels"] == ["Location"]
    episode = mems["user: I moved from Porto to Lisbon in March 2024."]
    assert episode.memory_type.value == "event" and episode.created_at.year == 2024
    assert episode.metadata["import_id"] == f"episode:{ids['episode']}"
    now = [h.memory.content for h in svc.search("u", "Where does the user live?", top_k=5).hits]
    assert "The user lives in Lisbon" in now and "The user lives in Porto" not in now
    then = svc.search("u", "Where does the user live?", top_k=5, as_of="2020-06-01").hits
    assert "The user lives in Porto" in [h.memory.content for h in then]
    assert svc.import_from("nobody", "graphiti", url, map_user={group: "u"}).added == 0


# ---------------------------------------------------------------------- mcp-neo4j-memory

ENTITIES = [
    {"name": "Jonas", "type": "person", "observations": ["Is the user's cousin"]},
    {"name": "Fjordline Ferries", "type": "company", "observations": ["Runs night boats"]},
    {"name": "Bergen", "type": "city", "observations": ["Has a fish market"]},
    {"name": "Lisbon", "type": "city", "observations": ["The user visited it in May"]},
    {"name": "Maya", "type": "person", "observations": ["Is the user's sister"]},
]
RELATIONS = [
    {"source": "Jonas", "target": "Fjordline Ferries", "relationType": "WORKS_FOR"},
    {"source": "Fjordline Ferries", "target": "Bergen", "relationType": "BASED_IN"},
    {"source": "Jonas", "target": "Lisbon", "relationType": "LIVES_IN"},
]
OBSERVATIONS = [{"entityName": "Maya", "observations": ["Plays the cello"]}]


@pytest.fixture
def neo4j_memory_graph(
    tmp_path_factory: pytest.TempPathFactory, neo4j_login: tuple[str, str, str]
) -> Iterator[list[str]]:
    """mcp-neo4j-memory's own tools wrote the graph; yields the tools the server listed."""
    python = peer_python(tmp_path_factory, "neo4j-memory", *NEO4J_MEMORY)
    graph = {"entities": ENTITIES, "relations": RELATIONS, "observations": OBSERVATIONS}
    names = [e["name"] for e in ENTITIES]
    try:
        yield run_peer(python, "neo4j_memory_write.py", *neo4j_login, stdin=graph)["tools"]
    finally:
        delete(neo4j_login, "MATCH (m:Memory) WHERE m.name IN $n DETACH DELETE m", n=names)


def test_mcp_neo4j_memory_database_imports_and_answers(
    neo4j_memory_graph: list[str], neo4j_login: tuple[str, str, str], svc: MemoryService
) -> None:
    assert {"create_entities", "create_relations", "add_observations"} <= set(neo4j_memory_graph)
    url = neo4j_login[0]
    report = svc.import_from("u", "neo4j-memory", url)
    assert (report.added, report.skipped) == (6 + 3, [])
    mems = {m.content: m for m in svc.list("u", viewer=Viewer.OPERATOR)}
    assert "Maya: Plays the cello" in mems and "Maya: Is the user's sister" in mems
    rel = mems["Jonas works for Fjordline Ferries."]
    assert rel.metadata["import_format"] == "neo4j-memory"
    assert rel.metadata["relation"] == "WORKS_FOR"
    question = "In which city is the company my cousin Jonas works for?"
    hits = [h.memory.content for h in svc.search("u", question, top_k=5).hits]
    assert "Fjordline Ferries based in Bergen." in hits
    assert svc.import_from("u", "neo4j-memory", url).added == 0


# ---------------------------------------------------------------------- mem0


def test_mem0_written_without_an_llm_imports_with_its_history(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path, svc: MemoryService
) -> None:
    """mem0's get_all() JSON and history.db as mem0 itself wrote them (infer=False, offline)."""
    python = peer_python(tmp_path_factory, "mem0", *MEM0)
    writes = {
        "add": [
            {"text": "Lives in Lisbon", "user_id": "alice", "agent_id": "travel-bot"},
            {"text": "Is vegetarian", "user_id": "alice", "metadata": {"category": "diet"}},
            {"text": "Likes opera", "user_id": "bob"},
        ],
        "update": {"Lives in Lisbon": "Lives in Porto"},
    }
    root = tmp_path / "mem0"
    root.mkdir()
    run_peer(
        python,
        "mem0_write.py",
        str(root),
        stdin=writes,
        HOME=str(root / "home"),
        MEM0_DIR=str(root / "mem0-dir"),
    )
    src, hist = root / "mem0.json", root / "history.db"
    report = svc.import_from("nobody", "mem0", str(src), history=str(hist), map_user={"alice": "u"})
    assert (report.added, report.versions) == (2, 1)
    assert report.skipped == ["source user bob: not in --map-user; 1 records skipped"]
    mems = {m.content: m for m in svc.list("u", viewer=Viewer.OPERATOR)}
    porto = mems["Lives in Porto"]
    assert porto.agent_id == "travel-bot" and porto.metadata["import_format"] == "mem0"
    assert [v.content for v in svc.history("u", porto.id)] == ["Lives in Lisbon", "Lives in Porto"]
    assert mems["Is vegetarian"].metadata["category"] == "diet"
    again = svc.import_from("nobody", "mem0", str(src), history=str(hist), map_user={"alice": "u"})
    assert (again.added, again.updated, again.unchanged) == (0, 0, 2)
