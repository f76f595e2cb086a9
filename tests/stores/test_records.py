"""The records port, the same tests on SQLite and on a real MariaDB."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from graphmem.domain.filters import MemoryFilter
from graphmem.domain.model import Memory, MemoryType, Status, new_id, utcnow
from graphmem.domain.text import query_terms, search_text
from graphmem.stores.records import RecordQuery, RecordsStore
from graphmem.stores.records.mysql import MySQLRecords
from graphmem.stores.records.sqlite import SQLiteRecords
from tests.helpers.records import mem, put


@pytest.fixture(params=["sqlite", pytest.param("mysql", marks=pytest.mark.services)])
def records(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RecordsStore]:
    if request.param == "sqlite":
        store: RecordsStore = SQLiteRecords(tmp_path / "r.sqlite3")
    else:
        store = MySQLRecords(request.getfixturevalue("mysql_url"))
    yield store
    store.close()






def test_insert_get_roundtrip_keeps_every_field(records: RecordsStore) -> None:
    t = utcnow() - timedelta(days=3)
    m = mem("u1", "I prefer window seats 🪟", memory_type=MemoryType.PREFERENCE, summary="seats",
            session_id="s1", confidence=0.8, metadata={"dia_id": "D1:3", "n": [1, 2]},
            created_at=t)
    put(records, m)
    got = records.get("u1", [m.id])[m.id]
    assert got.content == m.content and got.memory_type is MemoryType.PREFERENCE
    assert got.metadata == {"dia_id": "D1:3", "n": [1, 2]} and got.session_id == "s1"
    assert got.confidence == pytest.approx(0.8)
    assert abs((got.created_at - t).total_seconds()) < 1e-3
    assert got.status is Status.ACTIVE and got.access_count == 0


def test_every_read_is_scoped_by_user(records: RecordsStore) -> None:
    a, b = put(records, mem("alice", "alice likes green tea"), mem("bob", "bob likes green tea"))
    assert set(records.get("alice", [a.id, b.id])) == {a.id}
    hits = records.keyword_search(RecordQuery("alice"), query_terms("green tea"), 10)
    assert [h[0] for h in hits] == [a.id]
    assert records.delete("alice", [b.id]) == []  # bob's memory is invisible to alice
    assert b.id in records.get("bob", [b.id])


def test_keyword_search_ranks_english_and_chinese(records: RecordsStore) -> None:
    en, zh, other = put(
        records,
        mem("u", "I do debt-risk analysis for the medical industry"),
        mem("u", "我叫张三，在做医疗行业的债务风险分析"),
        mem("u", "Lunch was ramen with my sister"),
    )
    hits = records.keyword_search(RecordQuery("u"), query_terms("where are the risk points"), 10)
    assert hits[0][0] == en.id and hits[0][1] > 0
    hits = records.keyword_search(RecordQuery("u"), query_terms("你觉得风险点在哪"), 10)
    assert hits[0][0] == zh.id
    assert other.id not in {h[0] for h in hits}


def test_keyword_filters_type_status_time_and_session(records: RecordsStore) -> None:
    old = mem("u", "project apollo kickoff", created_at=utcnow() - timedelta(days=40))
    task = mem("u", "project apollo budget review", memory_type=MemoryType.TASK, session_id="s9")
    archived = mem("u", "project apollo retro", status=Status.ARCHIVED)
    put(records, old, task, archived)
    terms = query_terms("project apollo")

    def ids(**kw: object) -> set[str]:
        return {h[0] for h in records.keyword_search(RecordQuery("u", **kw), terms, 10)}  # type: ignore[arg-type]

    assert ids() == {old.id, task.id}
    assert ids(memory_type="task") == {task.id}
    assert ids(created_after=utcnow() - timedelta(days=7)) == {task.id}
    assert ids(filter=MemoryFilter(session_id="s9")) == {task.id}
    assert ids(statuses=("active", "archived")) == {old.id, task.id, archived.id}


def test_update_reindexes_keywords_and_queues_projection(records: RecordsStore) -> None:
    (m,) = put(records, mem("u", "my manager is Alice"))
    records.outbox_done([i.id for i in records.outbox_for([m.id])])
    m.content = "my manager is Priya"
    records.update_content(m, search_text(m.content))
    assert records.keyword_search(RecordQuery("u"), query_terms("Alice"), 5) == []
    assert records.keyword_search(RecordQuery("u"), query_terms("Priya"), 5)[0][0] == m.id
    assert [i.op for i in records.outbox_for([m.id])] == ["upsert"]


def test_delete_removes_row_links_and_pending_work_and_leaves_a_tombstone(
    records: RecordsStore,
) -> None:
    a, b = put(records, mem("u", "first"), mem("u", "second"))
    with records._tx() as cur:  # relations/entities arrive with the graph issue; seed them here
        now = records._dt_in(utcnow())
        cur.execute(records._q(
            "INSERT INTO memory_relations (user_id, source_memory_id, target_memory_id,"
            " relation_type, strength, created_at) VALUES (?, ?, ?, 'related', 1.0, ?)"),
            ("u", a.id, b.id, now))
        cur.execute(records._q(
            "INSERT INTO memory_entities (memory_id, entity_id, user_id) VALUES (?, 1, ?)"),
            (a.id, "u"))
    assert records.delete("u", [a.id, new_id()]) == [a.id]
    assert records.get("u", [a.id]) == {}
    assert records._fetch("SELECT COUNT(*) FROM memory_relations")[0][0] == 0
    assert records._fetch("SELECT COUNT(*) FROM memory_entities")[0][0] == 0
    assert [i.op for i in records.outbox_for([a.id])] == ["delete"]
    assert records.keyword_search(RecordQuery("u"), query_terms("first"), 5) == []


def test_access_counts_are_added_in_one_batch(records: RecordsStore) -> None:
    a, b = put(records, mem("u", "alpha"), mem("u", "beta"))
    records.record_access({("u", a.id): 3, ("u", b.id): 1, ("other", a.id): 5}, utcnow())
    got = records.get("u", [a.id, b.id])
    assert got[a.id].access_count == 3 and got[b.id].access_count == 1
    assert got[a.id].last_access_at is not None


def test_outbox_retry_backoff_and_stats(records: RecordsStore) -> None:
    (m,) = put(records, mem("u", "alpha", memory_type=MemoryType.EVENT))
    (item,) = records.outbox_due(10, utcnow())
    records.outbox_retry_later(item.id, "boom", utcnow() + timedelta(seconds=60))
    assert records.outbox_due(10, utcnow()) == []
    assert records.outbox_due(10, utcnow() + timedelta(seconds=61))[0].attempts == 1
    oldest = records.outbox_oldest()  # the projection lag that /metrics reports
    assert oldest is not None and abs((utcnow() - oldest).total_seconds()) < 60
    records.outbox_done([item.id])
    assert records.outbox_count() == 0 and records.outbox_oldest() is None
    st = records.stats("u")
    assert st["total"] == 1 and st["by_type"] == {"event": 1}
    records.audit("u", "forget", [m.id], {"count": 1})
    assert records.audit_rows("u")[0]["memory_ids"] == [m.id]


def test_a_failed_transaction_writes_nothing(records: RecordsStore) -> None:
    (m,) = put(records, mem("u", "original"))
    dup = mem("u", "duplicate id")
    dup.id = m.id  # violates the unique key on the second row of the batch
    with pytest.raises(Exception):  # noqa: B017 - driver-specific integrity error
        put(records, mem("u", "would be first"), dup)
    assert records.count("u") == 1
    assert len(records.outbox_for([m.id])) == 1


def _corpus(user: str, n: int, **kw: object) -> list[Memory]:
    """Many memories over a small vocabulary, so a question's terms match most of them."""
    names = ["alice", "bruno", "chen", "dara"]
    places = ["library", "harbour", "market", "garden", "museum"]
    acts = ["painting", "chess", "sailing", "pottery", "running", "baking"]
    out = []
    for i in range(n):
        words = [names[i % 4], "went", acts[i % 6], "near", places[(i // 3) % 5]]
        words += ["again"] * (i % 3) + [acts[(i // 7) % 6]] * (i % 2)
        out.append(mem(user, " ".join(words), **kw))
    return out


def _exact(texts: dict[str, str], query: str) -> list[tuple[str, float]]:
    """Per-user BM25 over every memory, the reference the narrowed search must reproduce."""
    from collections import Counter

    from graphmem.stores.records.keyword import bm25

    docs = {mid: search_text(t).split() for mid, t in texts.items()}
    avgdl = sum(map(len, docs.values())) / len(docs)
    terms = query_terms(query)
    df = {t: sum(1 for d in docs.values() if t in d) for t in terms}
    scores = {
        mid: sum(bm25(Counter(d)[t], df[t], len(docs), len(d), avgdl) for t in terms if t in d)
        for mid, d in docs.items()
    }
    return sorted(((m, s) for m, s in scores.items() if s > 0), key=lambda kv: (-kv[1], kv[0]))


@pytest.mark.parametrize("query", ["alice sailing at the harbour", "chess in the garden with dara",
                                   "bruno pottery", "painting"])
def test_narrowed_keyword_candidates_keep_the_exact_bm25_top(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, query: str
) -> None:
    """Past CANDIDATES matches SQLite narrows the pool by coordination level, not the scores."""
    from graphmem.stores.records import keyword

    store = SQLiteRecords(tmp_path / "r.sqlite3")
    mine = put(store, *_corpus("u", 240))
    put(store, *_corpus("other", 480))  # another tenant's postings must not crowd the pool
    monkeypatch.setattr(keyword, "CANDIDATES", 40)  # 240 memories then overflow the cap
    got = store.keyword_search(RecordQuery("u"), query_terms(query), 10)
    want = _exact({m.id: m.content for m in mine}, query)
    kth = want[9][1]
    assert len(got) == 10 and all(s >= kth - 1e-9 for _, s in got)
    assert [round(s, 9) for _, s in got] == [round(s, 9) for _, s in want[:10]]
    store.close()


def test_narrowed_keyword_search_still_applies_the_filters(
    records: RecordsStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    from graphmem.stores.records import keyword

    put(records, *_corpus("u", 200))
    late = put(records, *_corpus("u", 12, session_id="s2"))
    monkeypatch.setattr(keyword, "CANDIDATES", 30)
    hits = records.keyword_search(RecordQuery("u", filter=MemoryFilter(session_id="s2")),
                                  query_terms("alice sailing at the harbour"), 10)
    assert hits and {h[0] for h in hits} <= {m.id for m in late}


def test_at_least_expression_counts_distinct_terms(tmp_path: Path) -> None:
    from graphmem.stores.records.keyword import at_least

    store = SQLiteRecords(tmp_path / "r.sqlite3")
    texts = ["red green blue", "red green", "red", "green blue", "blue yellow", "red blue x"]
    put(store, *[mem("u", t) for t in texts])
    terms = query_terms("red green blue yellow")
    for j, n in [(1, 6), (2, 5), (3, 1), (4, 0)]:
        got = store._fetch("SELECT COUNT(*) FROM memories_fts WHERE memories_fts MATCH ?",
                           (at_least(terms, j),))[0][0]
        assert got == n, (j, got)
    store.close()


def test_relations_for_finds_both_ends_once_in_order_with_validity(
    records: RecordsStore,
) -> None:
    """Edges out of, into and between the asked memories, each once, in insertion order, with
    validity filled from the two memories (the later start, the earlier end)."""
    from graphmem.stores.records import GraphRows, Relation

    t0 = utcnow() - timedelta(days=10)
    a, b, c, d = (mem("u1", f"memory {x}", created_at=t0 + timedelta(days=i))
                  for i, x in enumerate("abcd"))
    d.valid_to = t0 + timedelta(days=20)
    other = mem("u2", "someone else's memory", created_at=t0)
    put(records, a, b, c, d, other)
    rels = [
        Relation("u1", b.id, a.id, "related", 0.6),
        Relation("u1", c.id, d.id, "causal", 0.9),
        Relation("u1", a.id, c.id, "temporal", 0.5),
        Relation("u1", d.id, b.id, "related", 0.7),
    ]
    records.save_graph(GraphRows("u1", {}, rels), project=False)
    got = records.relations_for("u1", [a.id, c.id])
    assert [(r.source_id, r.target_id, r.relation_type) for r in got] == [
        (b.id, a.id, "related"),
        (c.id, d.id, "causal"),
        (a.id, c.id, "temporal"),
    ]
    causal = got[1]
    assert abs((causal.valid_from - d.created_at).total_seconds()) < 1e-3  # later start
    assert abs((causal.valid_to - d.valid_to).total_seconds()) < 1e-3  # earlier end
    assert got[0].valid_to is None
    assert records.relations_for("u2", [a.id, c.id]) == []
    assert len(records.relations_for("u1", [a.id, b.id, c.id, d.id])) == 4


def test_relation_lookups_use_the_memory_id_indexes(tmp_path: Path) -> None:
    """SQLite must look relations up by memory id, not walk every relation of the user (which
    made the graph projection of a write batch grow with the store)."""
    store = SQLiteRecords(tmp_path / "r.sqlite3")
    try:
        uid = store._user_col
        plan = store._fetch(
            f"EXPLAIN QUERY PLAN SELECT id FROM memory_relations WHERE {uid} = ? AND"
            " source_memory_id IN (?, ?) UNION ALL SELECT id FROM memory_relations WHERE"
            f" {uid} = ? AND target_memory_id IN (?, ?) ORDER BY id",
            ("u", "a", "b", "u", "a", "b"),
        )
        detail = " ".join(str(r[-1]) for r in plan)
        assert "ix_relations_user" not in detail
        assert "ix_relations_target" in detail
        assert "autoindex_memory_relations" in detail or "ix_relations_source_rank" in detail
    finally:
        store.close()


def test_graph_expansion_reads_a_ranked_index_range_per_side(tmp_path: Path) -> None:
    """Each memory's strongest relations come off an index already in expansion order: no
    sort, no scan of the user's relations, however many relations a memory has."""
    store = SQLiteRecords(tmp_path / "r.sqlite3")
    try:
        uid = store._user_col
        for side, other in (("source", "target"), ("target", "source")):
            plan = store._fetch(
                f"EXPLAIN QUERY PLAN SELECT * FROM memory_relations WHERE {side}_memory_id = ?"
                f" AND {uid} = ? AND relation_type IN (?) AND (valid_from IS NULL OR"
                " valid_from <= ?) AND (valid_to IS NULL OR valid_to > ?)"
                f" ORDER BY strength DESC, {other}_memory_id, relation_type LIMIT 20",
                ("a", "u", "related", "2026", "2026"),
            )
            detail = " ".join(str(r[-1]) for r in plan)
            assert f"ix_relations_{side}_rank" in detail, detail
            assert "TEMP B-TREE" not in detail, detail
    finally:
        store.close()
