"""`graphmem import --from neo4j-memory`: a live mcp-neo4j-memory database, read over Bolt.

Format: the Neo4j MCP memory server (mcp-neo4j-memory, neo4j-contrib/mcp-neo4j,
servers/mcp-neo4j-memory; its README documents the model): nodes `(:Memory {name, type,
observations})`, one relationship per relation whose type is the relation type. These tests
write the peers' graphs in their shapes with Cypher into the test Neo4j (scripts/services.sh),
so the adapters are covered without the peers; tests/service/test_import_pypi_peers.py runs
the peers themselves (mcp-neo4j-memory, graphiti-core, installed from PyPI at test time, and
skipped when the registry cannot be reached). The nodes written here carry a run marker (or a
fresh group id) and are deleted afterwards; graphmem's own Memory nodes (which have no `name`)
are never read.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

from graphmem.domain.visibility import Viewer
from graphmem.service.facade import MemoryService

pytestmark = pytest.mark.services

ENTITIES = [
    ("Jonas", "person", ["Is the user's cousin"]),
    ("Fjordline Ferries", "company", ["Runs night boats"]),
    ("Bergen", "city", ["Has a fish market"]),
    ("Lisbon", "city", ["The user visited it in May"]),
    ("Maya", "person", ["Is the user's sister", "Plays the cello"]),
]
RELATIONS = [
    ("Jonas", "WORKS_FOR", "Fjordline Ferries"),
    ("Fjordline Ferries", "BASED_IN", "Bergen"),
    ("Jonas", "LIVES_IN", "Lisbon"),
]


@pytest.fixture
def peer_graph(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The graph written as mcp-neo4j-memory writes it; yields the Bolt address."""
    import neo4j

    from tests.helpers.services import service_url

    url = service_url("GRAPHMEM_TEST_NEO4J_URL")
    user = os.environ.get("GRAPHMEM_TEST_NEO4J_USER", "neo4j")
    password = os.environ.get("GRAPHMEM_TEST_NEO4J_PASSWORD", "")
    monkeypatch.setenv("NEO4J_USERNAME", user)
    monkeypatch.setenv("NEO4J_PASSWORD", password)
    run = uuid.uuid4().hex
    driver = neo4j.GraphDatabase.driver(url, auth=(user, password))
    try:
        with driver.session() as s:
            s.run(
                "UNWIND $rows AS e MERGE (m:Memory {name: e.name})"
                " SET m.type = e.type, m.observations = e.observations, m.test_run = $run",
                rows=[{"name": n, "type": t, "observations": o} for n, t, o in ENTITIES],
                run=run,
            ).consume()
            for src, rel, dst in RELATIONS:  # the server MERGEs one typed relationship each
                s.run(
                    f"MATCH (a:Memory {{name: $src}}), (b:Memory {{name: $dst}})"
                    f" MERGE (a)-[:{rel}]->(b)",
                    src=src,
                    dst=dst,
                ).consume()
        yield url
    finally:
        with driver.session() as s:
            s.run("MATCH (m:Memory {test_run: $run}) DETACH DELETE m", run=run).consume()
        driver.close()


def test_neo4j_memory_database_imports_read_only_and_answers(
    peer_graph: str, svc: MemoryService
) -> None:
    report = svc.import_from("u", "neo4j-memory", peer_graph)
    assert (report.added, report.skipped) == (6 + 3, [])
    mems = {m.content: m for m in svc.list("u", viewer=Viewer.OPERATOR)}
    rel = mems["Jonas works for Fjordline Ferries."]
    assert rel.metadata["import_format"] == "neo4j-memory"
    assert rel.metadata["relation"] == "WORKS_FOR"
    question = "In which city is the company my cousin Jonas works for?"
    hits = [h.memory.content for h in svc.search("u", question, top_k=5).hits]
    assert "Fjordline Ferries based in Bergen." in hits
    assert svc.import_from("u", "neo4j-memory", peer_graph).added == 0


def test_neo4j_memory_bad_address_is_one_clear_error(svc: MemoryService) -> None:
    from graphmem.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="must be a Bolt address"):
        svc.import_from("u", "neo4j-memory", "not-a-database.json")
    with pytest.raises(InvalidInputError, match="cannot reach bolt://127.0.0.1:9"):
        svc.import_from("u", "neo4j-memory", "bolt://127.0.0.1:9")


@pytest.fixture
def graphiti_graph(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, str]]:
    """A Graphiti graph as graphiti-core 0.x stores it in Neo4j (its nodes.py / edges.py save
    queries: Episodic and Entity nodes with uuid and group_id, RELATES_TO facts with
    valid_at / invalid_at, MENTIONS from episodes), written here in that shape without
    graphiti-core (test_import_pypi_peers.py has graphiti-core's own classes write it).
    Yields (Bolt address, group id)."""
    import neo4j

    from tests.helpers.services import service_url

    url = service_url("GRAPHMEM_TEST_NEO4J_URL")
    user = os.environ.get("GRAPHMEM_TEST_NEO4J_USER", "neo4j")
    password = os.environ.get("GRAPHMEM_TEST_NEO4J_PASSWORD", "")
    monkeypatch.setenv("NEO4J_USERNAME", user)
    monkeypatch.setenv("NEO4J_PASSWORD", password)
    group = f"g-{uuid.uuid4().hex}"
    driver = neo4j.GraphDatabase.driver(url, auth=(user, password))
    try:
        with driver.session() as s:
            s.run(
                """
                CREATE (ep:Episodic {uuid: $g + '-ep1', name: 'msg 1', group_id: $g,
                    content: 'user: I moved from Porto to Lisbon in March 2024.',
                    source_description: 'chat', valid_at: datetime('2024-03-10T09:00:00Z'),
                    created_at: datetime('2024-03-10T09:00:05Z')})
                CREATE (u:Entity:Person {uuid: $g + '-u', name: 'User', group_id: $g,
                    summary: '', created_at: datetime('2024-03-10T09:00:05Z')})
                CREATE (p:Entity:Location {uuid: $g + '-porto', name: 'Porto', group_id: $g,
                    summary: 'City in the north of Portugal',
                    created_at: datetime('2024-03-10T09:00:05Z')})
                CREATE (l:Entity:Location {uuid: $g + '-lisbon', name: 'Lisbon', group_id: $g,
                    summary: 'Capital of Portugal', created_at: datetime('2024-03-10T09:00:05Z')})
                CREATE (u)-[:RELATES_TO {uuid: $g + '-f1', name: 'LIVES_IN', group_id: $g,
                    fact: 'The user lives in Porto', valid_at: datetime('2019-01-01T00:00:00Z'),
                    invalid_at: datetime('2024-03-01T00:00:00Z'),
                    expired_at: datetime('2024-03-10T09:00:06Z'),
                    created_at: datetime('2024-03-10T09:00:05Z')}]->(p)
                CREATE (u)-[:RELATES_TO {uuid: $g + '-f2', name: 'LIVES_IN', group_id: $g,
                    fact: 'The user lives in Lisbon', valid_at: datetime('2024-03-01T00:00:00Z'),
                    created_at: datetime('2024-03-10T09:00:05Z')}]->(l)
                CREATE (ep)-[:MENTIONS {uuid: $g + '-m1', group_id: $g}]->(u)
                CREATE (ep)-[:MENTIONS {uuid: $g + '-m2', group_id: $g}]->(l)
                """,
                g=group,
            ).consume()
        yield url, group
    finally:
        with driver.session() as s:
            s.run(
                "MATCH (n) WHERE (n:Episodic OR n:Entity) AND n.group_id = $g DETACH DELETE n",
                g=group,
            ).consume()
        driver.close()


def test_graphiti_facts_keep_their_validity_and_groups_map_to_users(
    graphiti_graph: tuple[str, str], svc: MemoryService
) -> None:
    url, group = graphiti_graph
    report = svc.import_from("nobody", "graphiti", url, map_user={group: "u"})
    assert (report.added, report.skipped) == (1 + 3 + 2, [])
    mems = {m.content: m for m in svc.list("u", viewer=Viewer.OPERATOR)}
    porto, lisbon = mems["The user lives in Porto"], mems["The user lives in Lisbon"]
    assert porto.valid_to is not None and porto.valid_to.year == 2024
    assert (
        porto.metadata["import_format"] == "graphiti" and porto.metadata["relation"] == "LIVES_IN"
    )
    assert lisbon.valid_to is None and lisbon.valid_since.year == 2024
    assert "Lisbon: Capital of Portugal" in mems and "User is a Person." in mems
    episode = mems["user: I moved from Porto to Lisbon in March 2024."]
    assert episode.memory_type.value == "event" and episode.created_at.year == 2024
    now = [h.memory.content for h in svc.search("u", "Where does the user live?", top_k=5).hits]
    assert "The user lives in Lisbon" in now and "The user lives in Porto" not in now
    then = svc.search("u", "Where does the user live?", top_k=5, as_of="2020-06-01").hits
    assert "The user lives in Porto" in [h.memory.content for h in then]
    assert svc.import_from("nobody", "graphiti", url, map_user={group: "u"}).added == 0
