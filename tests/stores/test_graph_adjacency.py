"""The walk's prepared adjacency (graphmem.stores.graph.prepared) answers every hop with exactly
the edges the records give, after writes, deletes and an erase, and keeps nothing of a user that
a delete or an erase removed. Real stores, real writes: the adjacency is compared with
`RecordsGraph` reading the same SQLite file."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.domain.relation_types import RELATION_TYPES
from graphmem.domain.requests import SearchRequest
from graphmem.embedding import Embedder
from graphmem.stores.graph import GraphEdge, edge_order
from graphmem.stores.graph.adjacency import Adjacency
from graphmem.stores.graph.prepared import PreparedGraph
from graphmem.stores.graph.records import RecordsGraph, _epoch
from graphmem.usecases.search import retrieve

LINES = [
    "Alice moved to Berlin in March to work for Siemens.",
    "Alice's sister Carol lives in Munich and works at BMW.",
    "Bob met Alice at the Siemens office in Berlin last week.",
    "Carol is planning a trip to Lisbon with Bob in June.",
    "Alice prefers green tea over coffee in the morning.",
    "Because the Berlin office closed, Alice now works from home.",
    "Bob bought a bike in Munich after visiting Carol.",
    "The Lisbon trip was cancelled because Carol got sick.",
    "Alice started learning Portuguese for the Lisbon trip.",
    "Bob switched from Siemens to BMW in July.",
    "Carol recommended a Munich bakery to Alice.",
    "Alice actually moved to Hamburg, not Berlin.",
]


def _key(e: GraphEdge) -> tuple[object, ...]:
    return (
        e.user_id,
        e.source_id,
        e.target_id,
        e.relation_type,
        e.strength,
        e.valid_from,
        e.valid_to,
    )


def _assert_same_as_records(svc: MemoryService, user: str, adjacency: Adjacency) -> int:
    """Every memory alone, and random frontiers, with every fan-out, type filter and time the
    walk can ask: the adjacency's edges are the records' edges. Returns the comparisons."""
    records = RecordsGraph(svc.records)
    ids = sorted(svc.records.all_ids(user))
    everything = records.neighbours(user, ids, None, 10_000)
    assert sorted(map(_key, adjacency.neighbours(ids, None, 10_000))) == sorted(
        map(_key, everything)
    )
    times = sorted({t for e in everything for t in (e.valid_from, e.valid_to) if t})
    rng = random.Random(7)
    frontiers = [[m] for m in ids] + [rng.sample(ids, min(len(ids), 5)) for _ in range(20)]
    kinds: list[tuple[str, ...] | None] = [None, ("related",), ("temporal", "causal")]
    kinds.append(tuple(sorted(RELATION_TYPES)))
    n = 0
    for frontier in frontiers:
        for per_node in (0, 1, 2, 3, 20):
            for types in kinds:
                for at in (None, *times[:: max(1, len(times) // 4)], 0.0, 4e9):
                    want = sorted(
                        map(_key, records.neighbours(user, frontier, types, per_node, at))
                    )
                    got = sorted(map(_key, adjacency.neighbours(frontier, types, per_node, at)))
                    assert got == want, (frontier, per_node, types, at)
                    n += 1
    return n


@pytest.fixture
def svc(tmp_path: Path, embedder: Embedder) -> MemoryService:
    service = MemoryService(Settings(data_dir=tmp_path / "data"), embedder=embedder)
    for i in range(0, len(LINES), 3):
        service.write_many("u", [{"content": c, "session_id": "s1"} for c in LINES[i : i + 3]])
    service.write_many("other", [{"content": c} for c in LINES[:4]])
    return service


def test_the_prepared_adjacency_is_the_records_after_writes_deletes_and_erase(
    svc: MemoryService,
) -> None:
    graph = svc.graph_store
    assert isinstance(graph, PreparedGraph)
    first = graph.prepare("u")
    assert first is not None and first.edge_count > 0
    paged = sorted(svc.records.relation_table("u", page=3))  # pages end and resume exactly
    assert paged == sorted(svc.records.relation_table("u")) and len(paged) == first.edge_count
    assert _assert_same_as_records(svc, "u", first) > 1000

    # a write moves the user's cache version on: the adjacency is dropped at once, and the
    # next one holds the new memory's edges
    new = svc.write("u", "Carol flew to Lisbon with Alice in August.", session_id="s1")
    assert graph.held("u") == 0
    second = graph.prepare("u")
    assert second is not None and new.id in second.index
    _assert_same_as_records(svc, "u", second)
    assert graph.prepare("other") is not None  # another user's stays apart

    # a delete: none of the deleted memory's ids stays in memory
    gone = sorted(second.index)[0]
    assert svc.forget("u", [gone]) == [gone]
    assert graph.held("u") == 0
    third = graph.prepare("u")
    assert third is not None and gone not in third.index and gone not in third.ids
    _assert_same_as_records(svc, "u", third)

    # an erase: nothing of the user, the other user's adjacency untouched
    receipt = svc.forget_user("u")
    assert receipt.verified, receipt.residue
    assert receipt.deleted["graph_adjacency"] == third.edge_count
    assert receipt.residue["graph_adjacency"] == 0
    assert graph.held("u") == 0 and graph.current("u") is None
    graph.wait()  # the build the look above started reads an erased user: nothing
    assert graph.prepare("u") is None or graph.held("u") == 0
    assert graph.held("other") > 0


def test_a_search_ranks_the_same_walking_the_records_or_the_adjacency(
    svc: MemoryService,
) -> None:
    graph = svc.graph_store
    assert isinstance(graph, PreparedGraph)
    questions = ["where does Alice work", "who is Carol", "what happened to the Lisbon trip"]

    def ranked(q: str) -> list[tuple[str, float, list[dict[str, object]]]]:
        valid = SearchRequest(query=q, top_k=10).validated(svc.settings)
        hits = retrieve(svc.context, "u", valid).hits
        # scores to 6 places: recency moves on between the two searches
        return [
            (h.memory.id, round(h.score, 6), [s.to_dict() for s in getattr(h, "path", [])])
            for h in hits
        ]

    graph.forget_user("u")
    graph._not_before["u"] = float("inf")  # noqa: SLF001 - hold the build back: walk the records
    before = [ranked(q) for q in questions]
    assert graph.record_hops > 0 and graph.prepared_hops == 0
    assert graph.prepare("u") is not None
    after = [ranked(q) for q in questions]
    assert graph.prepared_hops > 0
    assert after == before
    assert any(path for hits in after for _, _, path in hits)  # the walk did reach something


def test_ranked_like_edge_order_with_ties_and_self_loops() -> None:
    """Equal strengths, both directions between two memories, several types and a self-loop:
    each memory's cut is the head of its incident edges in port.edge_order."""
    rng = random.Random(3)
    ids = [f"m{i:02d}" for i in range(30)]
    types = sorted(RELATION_TYPES)
    rows = {
        (rng.choice(ids), rng.choice(ids), rng.choice(types)): rng.choice([0.25, 0.5, 0.5, 1.0])
        for _ in range(400)
    }
    table = [(s, t, rt, w, None, None) for (s, t, rt), w in rows.items()]
    adjacency = Adjacency("u", table, _epoch)
    edges = [GraphEdge("u", s, t, rt, w) for s, t, rt, w, _, _ in table]
    for mid in ids:
        incident = [e for e in edges if e.source_id == mid] + [
            e for e in edges if e.target_id == mid
        ]
        for per_node in (1, 2, 5, 40):
            want = sorted(incident, key=lambda e: edge_order(mid, e))[:per_node]
            assert sorted(map(_key, adjacency.neighbours([mid], None, per_node))) == sorted(
                set(map(_key, want))
            )


def test_results_not_cached_still_walk_the_adjacency(tmp_path: Path, embedder: Embedder) -> None:
    """`search_cache_ttl_seconds` 0 (the benchmarks' setting) turns off cached results, not
    the prepared walk: its versions still move on with every write."""
    settings = Settings(data_dir=tmp_path / "data", cache={"ttl_seconds": 0})
    with MemoryService(settings, embedder=embedder) as service:
        service.write_many("u", [{"content": c, "session_id": "s1"} for c in LINES[:6]])
        graph = service.graph_store
        assert isinstance(graph, PreparedGraph)
        assert graph.prepare("u") is not None
        service.search("u", "where does Alice work", 5)
        assert graph.prepared_hops > 0 and graph.record_hops == 0


@pytest.mark.services
def test_replicas_without_a_shared_cache_walk_the_records(
    tmp_path: Path, embedder: Embedder, mysql_url: str
) -> None:
    """Two services on one MySQL, each with its own in-process cache: a write on one does not
    move the other's versions, so neither may walk an adjacency; the records show both."""
    from graphmem.stores.records.mysql import MySQLRecords

    a, b = (
        MemoryService(
            Settings(data_dir=tmp_path / f"r{i}"),
            embedder=embedder,
            records=MySQLRecords(mysql_url),
        )
        for i in range(2)
    )
    try:
        assert not isinstance(a.graph_store, PreparedGraph)
        assert not isinstance(b.graph_store, PreparedGraph)
        user = f"shared-{tmp_path.name}"
        a.write_many(user, [{"content": c, "session_id": "s1"} for c in LINES[:4]])
        seen = b.graph_store.neighbours(user, sorted(b.records.all_ids(user)), None, 20)
        assert seen and len(seen) == a.graph_store.edge_count(user)
    finally:
        a.close()
        b.close()
