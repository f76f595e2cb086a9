"""The graph port: the same tests on networkx and on a real Neo4j 5, and the two must agree."""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem.domain import associative
from graphmem.stores.graph import GraphEdge, GraphNode, GraphStore
from graphmem.stores.graph.neo4j import cypher_dir, load_statements
from graphmem.stores.graph.networkx import NetworkxGraph
from graphmem.stores.records import EntityRef
from tests.helpers.services import open_neo4j


@pytest.fixture
def users() -> list[str]:
    """Fresh user ids, so tests on the shared Neo4j never see each other's data."""
    tag = uuid.uuid4().hex[:10]
    return [f"{name}-{tag}" for name in ("alice", "bob")]


@pytest.fixture(params=["networkx", pytest.param("neo4j", marks=pytest.mark.services)])
def graph(request: pytest.FixtureRequest, users: list[str]) -> Iterator[GraphStore]:
    store: GraphStore = NetworkxGraph() if request.param == "networkx" else open_neo4j()
    yield store
    for u in users:
        store.delete_user(u)
    store.close()


def node(user: str, mid: str, *entities: str) -> GraphNode:
    return GraphNode(mid, user, "fact", "active", 1.7e9, None, mid,
                     tuple(EntityRef(e.lower(), e) for e in entities))


def ids(user: str, *names: str) -> list[str]:
    return [f"{user}:{n}" for n in names]


def test_sync_neighbours_and_user_bounds(graph: GraphStore, users: list[str]) -> None:
    alice, bob = users
    a, b, c = ids(alice, "a", "b", "c")
    (x,) = ids(bob, "x")
    graph.sync([node(alice, a, "Apollo"), node(alice, b), node(alice, c), node(bob, x)], [
        GraphEdge(alice, a, b, "causal", 0.9),
        GraphEdge(alice, c, a, "related", 0.6),
        GraphEdge(alice, a, x, "related", 1.0),  # crosses users: must never be stored
        GraphEdge(bob, x, a, "related", 1.0),
    ])
    got = {(e.source_id, e.target_id, e.relation_type, e.strength)
           for e in graph.neighbours(alice, [a], None, 10)}
    assert got == {(a, b, "causal", 0.9), (c, a, "related", 0.6)}
    assert graph.neighbours(bob, [x], None, 10) == []
    assert graph.neighbours(bob, [a], None, 10) == []  # alice's memory, asked as bob
    assert [e.target_id for e in graph.neighbours(alice, [a], ("causal",), 10)] == [b]
    assert [e.other(a) for e in graph.neighbours(alice, [a], None, 1)] == [b]  # strongest only
    assert graph.node_ids(alice) == {a, b, c} and graph.edge_count(alice) == 2
    assert graph.entity_names(alice, [a]) == {a: ["Apollo"]}


def test_resync_replaces_edges_and_delete_removes_them(
    graph: GraphStore, users: list[str]
) -> None:
    alice, bob = users
    a, b, c = ids(alice, "a", "b", "c")
    graph.sync([node(alice, a), node(alice, b), node(alice, c)],
               [GraphEdge(alice, a, b, "temporal", 0.5), GraphEdge(alice, b, c, "causal", 0.8)])
    graph.sync([node(alice, b)], [GraphEdge(alice, b, c, "causal", 0.7)])  # b's edges are now this
    assert {(e.source_id, e.target_id, e.strength)
            for e in graph.neighbours(alice, [b], None, 10)} == {(b, c, 0.7)}
    graph.delete([c])
    assert graph.node_ids(alice) == {a, b} and graph.neighbours(alice, [b], None, 10) == []
    graph.sync([node(bob, ids(bob, "x")[0])], [])
    graph.delete_user(alice)
    assert graph.node_ids(alice) == set() and graph.node_ids(bob) == set(ids(bob, "x"))


def random_graph(user: str, n: int = 40, m: int = 120, seed: int = 7) -> tuple[list, list]:
    rnd = random.Random(seed)
    nodes = [node(user, f"{user}:{i:03d}") for i in range(n)]
    edges = {}
    for _ in range(m):
        s, t = rnd.sample(range(n), 2)
        kind = rnd.choice(["causal", "temporal", "related"])
        edges[(s, t, kind)] = GraphEdge(user, f"{user}:{s:03d}", f"{user}:{t:03d}", kind,
                                        rnd.choice([0.5, 0.6, 0.8, 0.9, 1.0]))
    return nodes, list(edges.values())


def expansion(store: GraphStore, user: str, types: tuple[str, ...] | None) -> dict:
    cfg = associative.ExpansionConfig(
        hops=3, relation_types=types, per_node=4, max_nodes=15,
        type_weights={"causal": 1.0, "related": 0.8, "temporal": 0.6},
    )
    seeds = {f"{user}:000": 1.0, f"{user}:001": 0.7, f"{user}:002": 0.4}
    got = associative.expand(store, user, seeds, cfg)
    return {k: (round(r.score, 9), r.seed, [(s.source, s.relation_type, s.target) for s in r.path])
            for k, r in got.items()}


@pytest.mark.services
@pytest.mark.parametrize("types", [None, ("causal", "related")])
def test_networkx_and_neo4j_expand_identically(
    users: list[str], types: tuple[str, ...] | None
) -> None:
    alice = users[0]
    nodes, edges = random_graph(alice)
    nx_graph, neo = NetworkxGraph(), open_neo4j()
    try:
        for g in (nx_graph, neo):
            g.sync(nodes, edges)
        a, b = expansion(nx_graph, alice, types), expansion(neo, alice, types)
        assert a and a == b
        for start in ([nodes[0].memory_id], [n.memory_id for n in nodes[:5]]):
            na = associative.neighbourhood(nx_graph, alice, start[0], 2, types, 4)
            nb = associative.neighbourhood(neo, alice, start[0], 2, types, 4)
            assert sorted(na[0]) == sorted(nb[0]) and sorted(
                (e.source_id, e.target_id, e.relation_type) for e in na[1]) == sorted(
                (e.source_id, e.target_id, e.relation_type) for e in nb[1])
    finally:
        neo.delete_user(alice)
        neo.close()


def test_expansion_scores_decay_and_never_cycle() -> None:
    g = NetworkxGraph()
    u = "u"
    g.sync([node(u, m) for m in "abcd"], [
        GraphEdge(u, "a", "b", "causal", 1.0), GraphEdge(u, "b", "c", "temporal", 0.5),
        GraphEdge(u, "c", "a", "related", 1.0), GraphEdge(u, "c", "d", "causal", 1.0),
    ])
    cfg = associative.ExpansionConfig(hops=2, hop_decay=0.5,
                                      type_weights={"causal": 1.0, "temporal": 0.6,
                                                    "related": 0.8})
    got = associative.expand(g, u, {"a": 1.0}, cfg)
    assert got["b"].score == pytest.approx(1.0)
    assert got["c"].score == pytest.approx(0.8)  # a <-related- c beats a -> b -> c
    assert [(s.source, s.relation_type, s.target) for s in got["d"].path] == [
        ("c", "related", "a"), ("c", "causal", "d")]
    assert got["d"].score == pytest.approx(0.8 * 1.0 * 0.5)
    assert "a" not in got
    assert associative.expand(g, u, {"a": 1.0}, associative.ExpansionConfig(hops=0)) == {}


def test_every_statement_the_adapter_runs_is_in_cypher_files() -> None:
    src = (Path(__file__).resolve().parents[2] / "graphmem/stores/graph/neo4j.py").read_text()
    import re

    used = re.findall(r'statement\("(\w+\.cypher)", "(\w+)"\)', src)
    assert used and all(name in load_statements(f) for f, name in used)
    assert load_statements("schema.cypher")
    assert _browser_queries()


def _browser_queries() -> list[str]:
    folder = cypher_dir() / "browser"
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".cypher"))


def test_cypher_is_package_data_and_the_environment_overrides_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The statements come from the package (graphmem/cypher), not from a path relative to the
    source file, so an installed wheel finds them; GRAPHMEM_CYPHER_DIR still wins."""
    from importlib import resources

    monkeypatch.delenv("GRAPHMEM_CYPHER_DIR", raising=False)
    packaged = resources.files("graphmem") / "cypher"
    assert str(cypher_dir()) == str(packaged)
    assert (packaged / "schema.cypher").is_file()
    (tmp_path / "schema.cypher").write_text("// name: only\nRETURN 1;\n", "utf-8")
    monkeypatch.setenv("GRAPHMEM_CYPHER_DIR", str(tmp_path))
    load_statements.cache_clear()
    try:
        assert load_statements("schema.cypher") == {"only": "RETURN 1"}
    finally:
        load_statements.cache_clear()


def test_neighbours_at_a_time_follow_only_valid_edges(graph: GraphStore, users: list[str]) -> None:
    alice = users[0]
    a, b, c = ids(alice, "a", "b", "c")
    graph.sync([node(alice, a), node(alice, b), node(alice, c)], [
        GraphEdge(alice, a, b, "related", 0.9, 100.0, 200.0),  # closed at 200 (superseded)
        GraphEdge(alice, a, c, "superseded_by", 1.0, 200.0, None),
        GraphEdge(alice, b, c, "causal", 0.5),
    ])

    def got(at: float | None, per_node: int = 10) -> list[tuple]:
        return sorted((e.target_id, e.valid_from, e.valid_to)
                      for e in graph.neighbours(alice, [a], None, per_node, at=at))

    assert got(None) == [(b, 100.0, 200.0), (c, 200.0, None)]
    assert got(150.0) == [(b, 100.0, 200.0)]
    assert got(200.0) == got(250.0) == [(c, 200.0, None)]
    assert got(50.0) == []
    assert got(250.0, per_node=1) == [(c, 200.0, None)]  # filtered before the per-node cut


@pytest.mark.services
def test_networkx_and_neo4j_agree_on_validity(users: list[str]) -> None:
    alice = users[0]
    nodes, edges = random_graph(alice, seed=11)
    rnd = random.Random(3)
    edges = [GraphEdge(e.user_id, e.source_id, e.target_id, e.relation_type, e.strength,
                       rnd.choice([None, 100.0, 300.0]), rnd.choice([None, None, 200.0, 400.0]))
             for e in edges]
    nx_graph, neo = NetworkxGraph(), open_neo4j()
    try:
        for g in (nx_graph, neo):
            g.sync(nodes, edges)
        for at in (None, 50.0, 150.0, 250.0, 350.0, 500.0):
            cfg = associative.ExpansionConfig(
                hops=3, per_node=4, max_nodes=15, at=at,
                type_weights={"causal": 1.0, "related": 0.8, "temporal": 0.6},
            )
            seeds = {f"{alice}:000": 1.0, f"{alice}:001": 0.7, f"{alice}:002": 0.4}
            x, y = (associative.expand(g, alice, seeds, cfg) for g in (nx_graph, neo))
            assert {k: (round(r.score, 9), r.seed) for k, r in x.items()} == {
                k: (round(r.score, 9), r.seed) for k, r in y.items()}, at
            ends = sorted((e.source_id, e.target_id, e.relation_type)
                          for e in nx_graph.neighbours(alice, [n.memory_id for n in nodes], None,
                                                       4, at=at))
            assert ends == sorted((e.source_id, e.target_id, e.relation_type)
                                  for e in neo.neighbours(alice, [n.memory_id for n in nodes],
                                                          None, 4, at=at))
    finally:
        neo.delete_user(alice)
        neo.close()


def test_ranked_neighbours_follow_every_change(users: list[str]) -> None:
    """The networkx adapter keeps each node's edges ranked between calls; after any mix of
    re-syncs, new edges, deletes and ranking everything ahead (`rebuilt`) its answers must
    equal a from-scratch ranking."""
    alice, _ = users
    rng = random.Random(7)
    graph = NetworkxGraph()
    names = ids(alice, *[f"m{i}" for i in range(40)])
    live: set[str] = set()
    edges: dict[tuple[str, str, str], GraphEdge] = {}
    for step in range(300):
        op = rng.random()
        if op < 0.15 and live:  # delete a memory with its edges
            gone = rng.choice(sorted(live))
            graph.delete([gone])
            live.discard(gone)
            edges = {k: e for k, e in edges.items() if gone not in (e.source_id, e.target_id)}
        elif op < 0.3 and live:  # re-sync a memory: its edges become exactly these
            m = rng.choice(sorted(live))
            mine = [GraphEdge(alice, m, o, rng.choice(["related", "causal"]),
                              round(rng.random(), 2)) for o in rng.sample(sorted(live), 2)
                    if o != m]
            graph.sync([node(alice, m)], mine)
            edges = {k: e for k, e in edges.items() if m not in (e.source_id, e.target_id)}
            edges.update({(e.source_id, e.target_id, e.relation_type): e for e in mine})
        else:  # a new memory linked to a few earlier ones, or an edge between live ones
            m = names[step % len(names)]
            if m not in live:
                graph.sync([node(alice, m)], [])
                live.add(m)
            o = rng.choice(sorted(live))
            if o != m:
                e = GraphEdge(alice, m, o, rng.choice(["related", "temporal"]),
                              round(rng.random(), 2))
                graph.sync([], [e])
                edges[(e.source_id, e.target_id, e.relation_type)] = e
        if step % 50 == 49:  # what a rebuild ends with: every node ranked ahead of time
            graph.rebuilt()
            assert set(graph._ranked) == set(graph.g.nodes)
        for m in rng.sample(sorted(live), min(3, len(live))):
            mine = sorted((e for e in edges.values() if m in (e.source_id, e.target_id)),
                          key=lambda e, m=m: (-e.strength, e.other(m), e.relation_type,
                                              e.source_id))
            got = graph.neighbours(alice, [m], None, 4)
            assert sorted(got, key=lambda e: (e.source_id, e.target_id, e.relation_type)) == \
                sorted(mine[:4], key=lambda e: (e.source_id, e.target_id, e.relation_type))
