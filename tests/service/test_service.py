"""MemoryService end to end on real stores: the embedded default, and MariaDB + qdrant-client."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from graphmem import InvalidInputError, MemoryService, NotFoundError, Settings
from graphmem.domain import fusion, ranking
from graphmem.domain.model import utcnow
from graphmem.domain.requests import learned_fusion
from graphmem.embedding import Embedder
from graphmem.stores.records.mysql import MySQLRecords
from graphmem.stores.vectors.edge import EdgeVectors
from graphmem.stores.vectors.qdrant import QdrantServerVectors

STORY_EN = [
    "I'm Zhang San, I do debt-risk analysis for the medical industry",
    "The weather is lovely today, let's go for a walk in the park.",
    "I had ramen for lunch with my sister.",
    "My favourite football team won last night.",
    "Remind me to buy milk and eggs tomorrow morning.",
]
STORY_ZH = [
    "我叫张三，在做医疗行业的债务风险分析",
    "今天天气不错，我们去公园散步吧。",
    "中午和妹妹一起吃了拉面。",
    "昨晚我最喜欢的足球队赢了。",
    "提醒我明天早上买牛奶和鸡蛋。",
]


@pytest.fixture(params=["embedded", pytest.param("production", marks=pytest.mark.services)])
def any_svc(
    request: pytest.FixtureRequest, tmp_path: Path, embedder: Embedder
) -> Iterator[MemoryService]:
    """The same service over SQLite + Qdrant Edge, or over MariaDB + qdrant-client."""
    settings = Settings(data_dir=tmp_path / "data")
    if request.param == "embedded":
        svc = MemoryService(settings, embedder=embedder)
    else:
        svc = MemoryService(
            settings,
            embedder=embedder,
            records=MySQLRecords(request.getfixturevalue("mysql_url")),
            vectors=QdrantServerVectors(":memory:", None, "memories", embedder.dim),
        )
    yield svc
    svc.close()


@pytest.mark.parametrize(
    ("story", "question"),
    [(STORY_EN, "the project I mentioned — where are its risk points?"),
     (STORY_ZH, "我刚才说的那个项目你觉得风险点在哪")],
    ids=["english", "chinese"],
)
def test_the_project_i_mentioned_comes_back_first(
    any_svc: MemoryService, story: list[str], question: str
) -> None:
    first = any_svc.write("zhang", story[0])
    for turn in story[1:]:
        any_svc.write("zhang", turn, "event")
    hits = any_svc.search("zhang", question, top_k=3).hits
    assert hits[0].memory.id == first.id
    assert set(hits[0].scores) == {"vector", "keyword", "recency", "frequency"}
    assert all(0.0 <= v <= 1.0 for v in hits[0].scores.values())
    if learned_fusion(any_svc.context.settings.ranking.fusion, question):
        return  # a Chinese query under fusion=auto: the fitted fusion (tests/unit/test_fusion*.py)
    # the default weights 0.6/0.2/0.1/0.1, the vector weight scaled down when the embedding
    # model does not know the query's language (English-only MiniLM on Chinese), renormalised
    w = ranking.language_weights(
        {"vector": 0.6, "keyword": 0.2, "recency": 0.1, "frequency": 0.1},
        fusion.language(question),
        any_svc.context.embedder.languages,
    )
    assert hits[0].score == pytest.approx(sum(w[c] * hits[0].scores[c] for c in w))


def test_users_never_see_each_other(any_svc: MemoryService) -> None:
    a = any_svc.write("alice", "My bank PIN reminder: the blue notebook")
    any_svc.write("bob", "My bank PIN reminder: the blue notebook")
    for user in ("alice", "bob"):
        hits = any_svc.search(user, "bank PIN notebook", top_k=10).hits
        assert [h.memory.user_id for h in hits] == [user]
    with pytest.raises(NotFoundError):
        any_svc.get("bob", a.id)
    assert any_svc.forget("bob", [a.id]) == []
    with pytest.raises(NotFoundError):
        any_svc.update("bob", a.id, "hijacked")
    assert any_svc.get("alice", a.id).content.startswith("My bank PIN")


def test_update_reembeds_and_forget_deletes_everywhere(any_svc: MemoryService) -> None:
    m = any_svc.write("u", "My manager is Alice Chen", "fact")
    any_svc.update("u", m.id, "My manager is Priya Raman, since the reorg")
    hits = any_svc.search("u", "Who is Priya?", top_k=1).hits
    assert hits[0].memory.id == m.id and "Priya" in hits[0].memory.content
    assert hits[0].scores["keyword"] == 1.0
    assert any_svc.search("u", "Alice Chen", top_k=5, weights="keyword=1").hits == []
    assert any_svc.forget("u", [m.id]) == [m.id]
    assert any_svc.records.get("u", [m.id]) == {}
    assert m.id not in any_svc.vectors.ids("u")
    assert any_svc.search("u", "manager Priya", top_k=5).hits == []
    assert any_svc.records.audit_rows("u")[0]["action"] == "forget"
    assert "Priya" not in str(any_svc.records.audit_rows("u"))


def test_forget_by_query_deletes_only_close_matches(any_svc: MemoryService) -> None:
    seat = any_svc.write("u", "I prefer window seats on long flights", "preference")
    keep = any_svc.write("u", "My daughter starts school in September", "event")
    dry = any_svc.forget_by_query("u", "I prefer window seats on flights", dry_run=True)
    assert [m.id for m in dry] == [seat.id] and any_svc.get("u", seat.id)
    gone = any_svc.forget_by_query("u", "I prefer window seats on flights")
    assert [m.id for m in gone] == [seat.id]
    assert {m.id for m in any_svc.list("u")} == {keep.id}


def test_filters_type_time_range_session_and_weights(any_svc: MemoryService) -> None:
    old = any_svc.write("u", "Trip to Lisbon was great", "event",
                        created_at=utcnow() - timedelta(days=45))
    new = any_svc.write("u", "Trip to Porto next week", "task", session_id="s2")
    assert {h.memory.id for h in any_svc.search("u", "trip", 10).hits} == {old.id, new.id}
    assert [h.memory.id for h in any_svc.search("u", "trip", 10, time_range="30d").hits] == [new.id]
    assert [h.memory.id for h in any_svc.search("u", "trip", 10, memory_type="event").hits] == [
        old.id]
    assert [h.memory.id for h in any_svc.search("u", "trip", 10, session_id="s2").hits] == [new.id]
    recent_first = any_svc.search("u", "trip", 2, weights={"recency": 1}).hits
    assert recent_first[0].memory.id == new.id
    assert any_svc.search("u", "trip", 2, profile="support").hits


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({"query": ""}, "query"), ({"top_k": 0}, "top_k"), ({"memory_type": "opinion"},
     "memory_type"), ({"time_range": "7 days"}, "time_range"), ({"weights": "vector=x"},
     "weights"), ({"query": "x" * 9000}, "query")],
)
def test_bad_search_input_names_the_field(svc: MemoryService, kwargs: dict, field: str) -> None:
    args = {"user_id": "u", "query": "hello", **kwargs}
    with pytest.raises(InvalidInputError) as e:
        svc.search(**args)
    assert e.value.field == field


def test_bad_writes_leave_nothing_behind(svc: MemoryService) -> None:
    for kwargs, field in [
        ({"content": ""}, "content"), ({"content": "x" * 8001}, "content"),
        ({"content": "ok", "memory_type": "opinion"}, "memory_type"),
        ({"content": "ok", "metadata": "[1, 2]"}, "metadata"),
        ({"content": "ok", "source": "rumour"}, "source"),
        ({"content": "ok", "created_at": "yesterday"}, "created_at"),
    ]:
        with pytest.raises(InvalidInputError) as e:
            svc.write("u", **kwargs)
        assert e.value.field == field
    with pytest.raises(InvalidInputError) as e:
        svc.write_many("u", [{"content": "fine"}, {"content": ""}])
    assert e.value.field == "items[1].content"
    assert svc.records.count() == 0 and svc.vectors.count() == 0
    assert svc.records.outbox_count() == 0


def test_search_counts_access_without_a_write_per_hit(svc: MemoryService) -> None:
    m = svc.write("u", "Coffee order: oat flat white")
    svc.access.every, svc.access.seconds = 1000, 3600.0
    for _ in range(3):
        assert svc.search("u", "coffee order", 1).hits[0].memory.id == m.id
    assert svc.records.get("u", [m.id])[m.id].access_count == 0  # buffered, not yet written
    svc.access.flush()
    stored = svc.records.get("u", [m.id])[m.id]
    assert stored.access_count == 3 and stored.last_access_at is not None
    # a new query (the old one is served from the search cache until the user writes)
    assert svc.search("u", "my coffee order", 1).hits[0].scores["frequency"] > 0


def test_vector_store_down_loses_nothing_and_orphans_nothing(svc: MemoryService) -> None:
    kept = svc.write("u", "The release train leaves every second Tuesday")
    doomed = svc.write("u", "Old wifi password hint: the cat's name")
    assert isinstance(svc.vectors, EdgeVectors)
    svc.vectors.close()  # the shard is really closed: every call now fails

    written = svc.write("u", "Deploy freeze starts on December 20")
    assert svc.records.get("u", [written.id])  # committed in the records store
    assert svc.forget("u", [doomed.id]) == [doomed.id]
    assert svc.records.outbox_count() == 2  # the upsert and the tombstone wait for the index
    res = svc.search("u", "deploy freeze december", 3)
    assert res.degraded == ["vectors"] and res.hits[0].memory.id == written.id
    assert svc.stats("u")["stores"]["vectors"]["ok"] is False

    svc.vectors.open()
    assert svc.drain_outbox() == (2, 0)
    assert svc.records.outbox_count() == 0
    assert svc.vectors.ids("u") == svc.records.all_ids("u") == {kept.id, written.id}
    hits = svc.search("u", "when does the deploy freeze start?", 1)
    assert hits.degraded == [] and hits.hits[0].memory.id == written.id


def test_vector_only_weights_fall_back_to_keywords_when_vectors_fail(svc: MemoryService) -> None:
    """The keyword channel normally runs beside the vector one; with keyword weight 0 it is
    not started, and it still answers when the vector channel fails."""
    svc.write("u", "The release train leaves every second Tuesday")
    written = svc.write("u", "Deploy freeze starts on December 20")
    both = svc.search("u", "deploy freeze december", 2)
    assert both.hits[0].memory.id == written.id and both.hits[0].scores["keyword"] == 1.0
    only_vec = svc.search("u", "deploy freeze december", 2, weights="vector=1,keyword=0")
    assert only_vec.hits[0].memory.id == written.id
    svc.vectors.close()
    try:
        res = svc.search("u", "deploy freeze in december?", 2, weights="vector=1,keyword=0")
    finally:
        svc.vectors.open()
    assert res.degraded == ["vectors"] and res.hits[0].memory.id == written.id
    assert res.hits[0].scores["keyword"] == 1.0


def test_a_reopened_service_finishes_pending_projection(tmp_path: Path, embedder: Embedder) -> None:
    settings = Settings(data_dir=tmp_path / "d")
    svc = MemoryService(settings, embedder=embedder)
    svc.vectors.close()
    m = svc.write("u", "Pending projection survives a restart")
    svc.records.close()
    again = MemoryService(settings, embedder=embedder)  # drains the outbox on start
    assert again.vectors.ids("u") == {m.id} and again.records.outbox_count() == 0
    again.close()


def test_stats_reports_totals_latency_and_stores(svc: MemoryService) -> None:
    svc.write_many("u", [{"content": f"note {i}", "memory_type": "task"} for i in range(3)])
    svc.search("u", "note", 2)
    st = svc.stats("u")
    assert st["total"] == 3 and st["by_type"] == {"task": 3} and st["vectors"] == 3
    assert st["recall_p50_ms"] > 0 and st["stores"]["records"]["ok"] is True


def test_user_stated_memories_outrank_agent_inferences(svc: MemoryService) -> None:
    said = svc.write("u", "My favourite colour is green", source="user")
    guessed = svc.write("u", "My favourite colour is green", source="agent")
    hits = svc.search("u", "favourite colour", 2).hits
    assert [h.memory.id for h in hits] == [said.id, guessed.id]
    assert hits[1].scores["trust"] == 0.7 and "trust" not in hits[0].scores
    assert hits[1].memory.source.value == "agent"
