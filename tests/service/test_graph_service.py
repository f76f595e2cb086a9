"""Graph memory end to end: writes extract and relate, recall expands, every hit has its path.

Runs on the embedded default (SQLite, Qdrant Edge, networkx) and on SQLite + Qdrant Edge +
a real Neo4j.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem import InvalidInputError, MemoryService, NotFoundError, Settings
from graphmem.embedding import Embedder
from graphmem.stores.graph.networkx import NetworkxGraph
from tests.helpers.services import open_neo4j

PROJECT = "Zhang San leads Project Apollo, a debt-risk platform for hospitals"
BUDGET = "Apollo's funding was cut in half by the board"  # shares no word with the question
QUESTION = "the project I mentioned — where are its risk points?"
CHATTER = [
    "The weather is lovely today, let's go for a walk in the park.",
    "I had ramen for lunch with my sister.",
    "My favourite football team won last night.",
]


@pytest.fixture(params=["networkx", pytest.param("neo4j", marks=pytest.mark.services)])
def gsvc(
    request: pytest.FixtureRequest, tmp_path: Path, embedder: Embedder
) -> Iterator[MemoryService]:
    graph = NetworkxGraph() if request.param == "networkx" else open_neo4j()
    svc = MemoryService(Settings(data_dir=tmp_path / "data"), embedder=embedder, graph=graph)
    svc.test_users = [f"{n}-{uuid.uuid4().hex[:8]}" for n in ("alice", "bob")]  # type: ignore[attr-defined]
    yield svc
    for u in svc.test_users:  # type: ignore[attr-defined]
        graph.delete_user(u)
    svc.close()


def story(svc: MemoryService, user: str) -> tuple[str, str]:
    project = svc.write(user, PROJECT)
    for line in CHATTER:
        svc.write(user, line, "event")
    budget = svc.write(user, BUDGET, "event")
    return project.id, budget.id


def test_a_memory_sharing_no_word_is_found_through_the_graph_with_its_path(
    gsvc: MemoryService,
) -> None:
    alice = gsvc.test_users[0]  # type: ignore[attr-defined]
    project, budget = story(gsvc, alice)
    rels = gsvc.records.relations_for(alice, [budget])
    assert [(r.relation_type, {r.source_id, r.target_id}) for r in rels] == [
        ("related", {project, budget})]  # one shared entity: Apollo

    plain = gsvc.search(alice, QUESTION, top_k=5, weights="keyword=1", expand_hops=0).hits
    assert [h.memory.id for h in plain] == [project]  # keywords alone cannot find the budget

    hits = gsvc.search(alice, QUESTION, top_k=5, weights="keyword=1").hits
    assert [h.memory.id for h in hits] == [project, budget]
    found = hits[1]
    assert found.scores["keyword"] == 0 and found.scores["graph"] > 0
    assert [(s.relation_type, {s.source, s.target}) for s in found.path] == [
        ("related", {project, budget})]
    assert found.to_dict()["path"][0]["type"] == "related"
    assert hits[0].path == [] and "graph" not in hits[0].scores

    ranked = gsvc.search(alice, QUESTION, top_k=3).hits  # default weights: still first two
    assert [h.memory.id for h in ranked[:2]] == [project, budget]
    assert ranked[1].score == pytest.approx(
        1 - (1 - sum(w * ranked[1].scores[c] for c, w in gsvc.settings.ranking.weights.items()))
        * (1 - gsvc.settings.graph.weight * ranked[1].scores["graph"]))
    only_causal = gsvc.search(alice, QUESTION, top_k=5, weights="keyword=1",
                              relation_types="causal").hits
    assert [h.memory.id for h in only_causal] == [project]


def test_expansion_never_crosses_users(gsvc: MemoryService) -> None:
    alice, bob = gsvc.test_users  # type: ignore[attr-defined]
    story(gsvc, alice)
    bob_budget = gsvc.write(bob, BUDGET).id  # bob mentions Apollo too
    hits = gsvc.search(alice, QUESTION, top_k=10, expand_hops=3).hits
    assert bob_budget not in {h.memory.id for h in hits}
    assert {h.memory.user_id for h in hits} == {alice}
    assert gsvc.records.relations_for(bob, [bob_budget]) == []  # entities are per user
    with pytest.raises(NotFoundError):
        gsvc.graph(bob, hits[0].memory.id)


def test_relate_graph_and_forget(gsvc: MemoryService) -> None:
    alice, bob = gsvc.test_users  # type: ignore[attr-defined]
    a = gsvc.write(alice, "The quarterly audit starts on Monday").id
    b = gsvc.write(alice, "I booked a hotel room near the office").id
    rel = gsvc.relate(alice, a, b, "causal", 0.9)
    assert (rel.relation_type, rel.strength) == ("causal", 0.9)
    g = gsvc.graph(alice, a, hops=1)
    assert {n["id"] for n in g["nodes"]} == {a, b}
    assert g["edges"] == [{"from": a, "type": "causal", "to": b, "strength": 0.9}]
    gsvc.relate(alice, a, b, "causal", 0.4)  # re-stating re-weights, never duplicates
    assert [r.strength for r in gsvc.records.relations_for(alice, [a])] == [0.4]
    hits = gsvc.search(alice, "quarterly audit", top_k=2, weights="keyword=1").hits
    assert [h.memory.id for h in hits] == [a, b] and hits[1].path[0].relation_type == "causal"

    c = gsvc.write(bob, "Bob's note").id
    for kwargs, field in [({"relation_type": "friend"}, "relation_type"),
                          ({"strength": 2}, "strength"), ({"target_id": a}, "target_id")]:
        with pytest.raises(InvalidInputError) as e:
            gsvc.relate(alice, a, **{"target_id": b, **kwargs})
        assert e.value.field == field
    with pytest.raises(NotFoundError):
        gsvc.relate(alice, a, c)
    with pytest.raises(InvalidInputError):
        gsvc.search(alice, "audit", expand_hops=9)

    assert gsvc.forget(alice, [b]) == [b]
    assert gsvc.records.relations_for(alice, [a]) == []
    assert gsvc.graph_store.node_ids(alice) == {a}
    assert gsvc.graph(alice, a, hops=2)["edges"] == []


def test_session_order_and_cues_become_temporal_and_causal_edges(svc: MemoryService) -> None:
    m1 = svc.write("u", "Priya Raman resigned from Acme last week", session_id="s").id
    m2 = svc.write("u", "So we had to hire a new engineer", session_id="s").id
    m3 = svc.write("u", "Apollo slipped because Priya Raman left", session_id="s").id
    got = {(r.source_id, r.target_id, r.relation_type) for r in svc.records.relations_for(
        "u", [m1, m2, m3])}
    assert {(m1, m2, "temporal"), (m1, m2, "causal"), (m2, m3, "temporal"),
            (m1, m3, "causal")} <= got
    assert any(t == "related" and {s, d} == {m1, m3} for s, d, t in got)
    st = svc.stats("u")
    assert st["graph"]["memory_relations"] == len(got) and st["stores"]["graph"]["ok"]


def test_graph_store_down_delays_projection_and_loses_nothing(
    tmp_path: Path, embedder: Embedder
) -> None:
    graph = NetworkxGraph()
    svc = MemoryService(Settings(data_dir=tmp_path / "d"), embedder=embedder, graph=graph)
    a = svc.write("u", PROJECT).id
    graph.close()  # every graph call now fails
    b = svc.write("u", BUDGET).id
    assert svc.records.get("u", [b]) and b in svc.vectors.ids("u")  # write and vectors fine
    assert [i.target for i in svc.records.outbox_for([b])] == ["graph"]
    res = svc.search("u", QUESTION, top_k=5, weights="keyword=1")
    assert res.degraded == ["graph"] and [h.memory.id for h in res.hits] == [a]
    graph.open()
    assert svc.drain_outbox() == (1, 0) and svc.records.outbox_count() == 0
    assert graph.node_ids("u") == {a, b} and graph.edge_count("u") == 1
    svc.close()
    again = MemoryService(Settings(data_dir=tmp_path / "d"), embedder=embedder)
    assert again.graph_store.node_ids("u") == {a, b}  # networkx is rebuilt from the records
    assert [h.memory.id for h in again.search("u", QUESTION, 5, weights="keyword=1").hits] == [
        a, b]
    again.close()


def test_an_entity_in_most_memories_links_nothing(tmp_path: Path, embedder: Embedder) -> None:
    """A hub (here the user's chat partner, named in every turn) is a stop word for linking;
    a specific entity shared by two memories still relates them."""
    settings = Settings(data_dir=tmp_path / "data", linking={"hub_min": 3, "hub_share": 0.05})
    with MemoryService(settings, embedder=embedder) as svc:
        chat = [
            "Caroline said the pottery class starts on Monday.",
            "Caroline told me her dog is sick again.",
            "Caroline thinks the new cafe downtown is overpriced.",
            "Caroline asked whether I finished the book.",
        ]
        caroline = [m.id for m in svc.write_many("u", [{"content": c} for c in chat])]
        a = svc.write("u", "Caroline and I planned a trip to Lisbon in May.").id
        b = svc.write("u", "I booked the hotel in Lisbon near the old tram line.").id
        related = {
            frozenset((r.source_id, r.target_id))
            for r in svc.records.relations_for("u", [*caroline, a, b])
            if r.relation_type == "related"
        }
        # Lisbon links; Caroline links nothing once she is a hub. The first link_hub_min turns
        # naming her were written before she was one, in this batch as one at a time.
        assert {e for e in related if e & {a, b}} == {frozenset((a, b))}
        assert {e for e in related if caroline[3] in e} == set()
        assert related - {frozenset((a, b))} == {
            frozenset((x, y)) for i, x in enumerate(caroline[:3]) for y in caroline[:i]
        }


def test_a_shared_topic_links_weaker_than_an_entity(tmp_path: Path, embedder: Embedder) -> None:
    """Common nouns (topics) connect the sessions of one subject; their edges stay weaker than
    an entity's, and link_per_topic=0 turns them off."""
    texts = [
        "I signed up for a pottery class this spring.",
        "The glaze on my new pottery cracked in the kiln.",
        "Lena from Vienna called me about the conference.",
        "Lena sent the slides for the conference.",
    ]
    for per_topic, expect_topic_edge in ((3, True), (0, False)):
        settings = Settings(
            data_dir=tmp_path / f"data{per_topic}", linking={"per_topic": per_topic}
        )
        with MemoryService(settings, embedder=embedder) as svc:
            ids = [svc.write("u", t).id for t in texts]
            strength = {
                frozenset((r.source_id, r.target_id)): r.strength
                for r in svc.records.relations_for("u", ids)
                if r.relation_type == "related"
            }
            pottery = strength.get(frozenset(ids[:2]))
            lena = strength.get(frozenset(ids[2:]))
            assert lena is not None and lena >= 0.6  # entity (and topic) shared
            if expect_topic_edge:
                assert pottery is not None and 0.0 < pottery < lena
            else:
                assert pottery is None
