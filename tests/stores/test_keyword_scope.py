"""The keyword channel walks only the searching user's postings, and stays exact BM25.

Other tenants share the full-text index; their memories must neither change a user's keyword
results nor make that user's search slower. A store written before the postings were scoped is
reindexed once when it is opened.
"""

from __future__ import annotations

import logging
import math
import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.domain.model import Memory, new_id
from graphmem.domain.text import query_terms, search_text
from graphmem.stores.records import RecordQuery
from graphmem.stores.records.keyword import CANDIDATES, MATCH_MAX_SHARE, bm25
from graphmem.stores.records.sqlite import SQLiteRecords
from tests.helpers.sqlite_steps import vm_steps as steps_of

# The full-text index as stores before per-user postings had it (external content, rowid =
# doc_id, every tenant in one doclist per term).
OLD_FTS = """
DROP TRIGGER memories_fts_ai;
DROP TRIGGER memories_fts_ad;
DROP TRIGGER memories_fts_au;
DROP TABLE memories_fts;
DROP TABLE memories_fts_owner;
CREATE VIRTUAL TABLE memories_fts USING fts5(
  search_text, content='memories', content_rowid='doc_id', tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER memories_fts_ai AFTER INSERT ON memories BEGIN
  INSERT INTO memories_fts (rowid, search_text) VALUES (new.doc_id, new.search_text);
END;
CREATE TRIGGER memories_fts_ad AFTER DELETE ON memories BEGIN
  INSERT INTO memories_fts (memories_fts, rowid, search_text)
  VALUES ('delete', old.doc_id, old.search_text);
END;
CREATE TRIGGER memories_fts_au AFTER UPDATE OF search_text ON memories BEGIN
  INSERT INTO memories_fts (memories_fts, rowid, search_text)
  VALUES ('delete', old.doc_id, old.search_text);
  INSERT INTO memories_fts (rowid, search_text) VALUES (new.doc_id, new.search_text);
END;
INSERT INTO memories_fts (memories_fts) VALUES ('rebuild');
"""


def mem(user: str, content: str) -> Memory:
    return Memory(id=new_id(), user_id=user, content=content)


def put(store: SQLiteRecords, *ms: Memory) -> list[Memory]:
    store.insert(list(ms), [search_text(m.content) for m in ms])
    return list(ms)


def corpus(user: str, n: int, words: list[str]) -> list[Memory]:
    return [
        mem(user, f"{words[i % len(words)]} visited {words[(i // 3) % len(words)]} {i}")
        for i in range(n)
    ]


def vm_steps(store: SQLiteRecords, user: str, query: str) -> int:
    """SQLite virtual-machine steps one keyword search takes: what it walks, load-independent."""
    steps, _ = steps_of(
        store, lambda: store.keyword_search(RecordQuery(user), query_terms(query), 10)
    )
    return steps


def shared_store(path: Path, mine: list[Memory], users: int, each: int) -> SQLiteRecords:
    """`mine` interleaved with `users` other tenants' `each` memories over the same words, as
    concurrent writers leave a shared store."""
    words = ["harbour", "painting", "chess", "museum", "garden"]
    store = SQLiteRecords(path)
    for i in range(each):
        crowd = [f"{words[(i + u) % 5]} visited {words[(i // 3) % 5]} {i}" for u in range(users)]
        put(store, *[mem(f"c{u}", t) for u, t in enumerate(crowd)])
        put(store, *mine[i * len(mine) // each : (i + 1) * len(mine) // each])
    return store


@pytest.mark.parametrize("cap", [1000, 20])
@pytest.mark.parametrize("query", ["harbour painting", "chess harbour museum garden"])
def test_other_tenants_common_terms_do_not_slow_or_change_my_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, query: str, cap: int
) -> None:
    """Both the exact pool (every match) and the narrowed one (cap 20: coordination levels)."""
    from graphmem.stores.records import keyword

    monkeypatch.setattr(keyword, "CANDIDATES", cap)
    mine = corpus("me", 60, ["harbour", "painting", "chess", "museum", "garden"])
    alone = SQLiteRecords(tmp_path / "alone.sqlite3")
    put(alone, *mine)
    few = shared_store(tmp_path / "few.sqlite3", mine, 10, 30)  # 300 others
    many = shared_store(tmp_path / "many.sqlite3", mine, 100, 120)  # 12,000 others
    want = alone.keyword_search(RecordQuery("me"), query_terms(query), 10)
    assert len(want) == 10
    for store in (few, many):
        assert store.keyword_search(RecordQuery("me"), query_terms(query), 10) == want
    steps = [vm_steps(s, "me", query) for s in (alone, few, many)]
    # what the search walks does not grow with the other tenants' postings
    assert steps[2] <= steps[1] * 1.3 + 30 and steps[2] <= steps[0] * 1.5 + 30, steps
    for store in (alone, few, many):
        store.close()


def test_a_search_names_only_the_users_rowid_range(tmp_path: Path) -> None:
    store = SQLiteRecords(tmp_path / "r.sqlite3")
    put(store, *corpus("me", 5, ["tea"]), *corpus("you", 5, ["tea"]))
    seen: list[str] = []
    store._read_conn().set_trace_callback(seen.append)
    store.keyword_search(RecordQuery("me"), query_terms("tea"), 10)
    store._read_conn().set_trace_callback(None)
    matches = [s for s in seen if "MATCH" in s]
    assert matches and all("rowid BETWEEN" in s for s in matches)
    assert store.keyword_search(RecordQuery("nobody"), query_terms("tea"), 10) == []
    store.close()


def test_a_users_number_is_freed_with_their_last_memory(tmp_path: Path) -> None:
    store = SQLiteRecords(tmp_path / "r.sqlite3")
    mine = put(store, *corpus("me", 3, ["tea"]))
    put(store, *corpus("you", 3, ["tea"]))
    store.delete("me", [m.id for m in mine[:2]])
    owners = "SELECT user_id FROM memories_fts_owner ORDER BY user_id"
    assert [r[0] for r in store._fetch(owners)] == ["me", "you"]
    store.delete("me", [mine[2].id])
    assert [r[0] for r in store._fetch(owners)] == ["you"]
    put(store, mem("me", "tea again"))  # a new number, and the search still finds it
    assert len(store.keyword_search(RecordQuery("me"), query_terms("tea"), 10)) == 1
    assert len(store.keyword_search(RecordQuery("you"), query_terms("tea"), 10)) == 3
    store.close()


def test_an_old_full_text_index_is_reindexed_on_open(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "r.sqlite3"
    store = SQLiteRecords(path)
    words = ["harbour", "painting", "chess", "museum", "garden", "sailing"]
    put(store, *corpus("me", 60, words), *corpus("you", 90, words[::-1]))
    queries = ["harbour painting", "chess garden sailing", "museum"]
    before = {
        (u, q): store.keyword_search(RecordQuery(u), query_terms(q), 20)
        for u in ("me", "you")
        for q in queries
    }
    store.close()
    db = sqlite3.connect(path)
    db.executescript(OLD_FTS)
    db.close()

    with caplog.at_level(logging.WARNING, logger="graphmem.records"):
        store = SQLiteRecords(path)
    assert any("per-user postings" in r.getMessage() for r in caplog.records)
    sql = store._fetch("SELECT sql FROM sqlite_master WHERE name = 'memories_fts'")[0][0]
    assert "content='memories'" not in sql
    after = {k: store.keyword_search(RecordQuery(k[0]), query_terms(k[1]), 20) for k in before}
    assert after == before
    # the new triggers keep the index right for later writes
    extra = put(store, mem("me", "harbour harbour painting"))[0]
    assert store.keyword_search(RecordQuery("me"), query_terms("harbour painting"), 1)[0][0] == (
        extra.id
    )
    store.close()
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="graphmem.records"):
        SQLiteRecords(path).close()  # once only
    assert not any("per-user postings" in r.getMessage() for r in caplog.records)


def brute_force(texts: dict[str, str], terms: list[str], k: int) -> list[tuple[str, float]]:
    """Per-user Okapi BM25 over every memory of the user, under the documented matching rule:
    when the user has at most CANDIDATES memories, or the query's terms occur in at most
    CANDIDATES together, every memory holding any query term is a candidate (exact BM25);
    past that a term in more than MATCH_MAX_SHARE of the memories is scored but not matched on
    (unless no term is rarer), so a memory holding only such terms is no candidate."""
    docs = {mid: t.split() for mid, t in texts.items()}
    n = len(docs)
    if not n:
        return []
    avgdl = sum(map(len, docs.values())) / n
    terms = list(dict.fromkeys(terms))
    df = {t: sum(1 for d in docs.values() if t in d) for t in terms}
    useful = [t for t in terms if df[t]]
    if not useful:
        return []
    if n <= CANDIDATES or sum(df[t] for t in useful) <= CANDIDATES:
        match = useful
    else:
        match = [t for t in useful if df[t] <= MATCH_MAX_SHARE * n] or [
            min(useful, key=lambda t: (df[t], t))
        ]
    out = []
    for mid, d in docs.items():
        if not any(t in d for t in match):
            continue
        tf = Counter(d)
        s = sum(bm25(tf[t], df[t], n, len(d), avgdl) for t in useful if tf[t])
        if s > 0:
            out.append((mid, s))
    out.sort(key=lambda kv: (-kv[1], kv[0]))
    return out[:k]


VOCAB = ["tea", "harbour", "chess", "museum", "garden", "sailing", "pottery", "lisbon"]
doc = st.lists(st.sampled_from(VOCAB), min_size=1, max_size=8).map(" ".join)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    mine=st.lists(doc, min_size=1, max_size=25),
    others=st.lists(st.tuples(st.sampled_from(["u2", "u3"]), doc), max_size=40),
    dropped=st.sets(st.integers(0, 24), max_size=5),
    query=st.lists(st.sampled_from(VOCAB), min_size=1, max_size=4),
)
def test_top_k_is_the_brute_force_per_user_bm25(
    tmp_path_factory: pytest.TempPathFactory,
    mine: list[str],
    others: list[tuple[str, str]],
    dropped: set[int],
    query: list[str],
) -> None:
    store = SQLiteRecords(tmp_path_factory.mktemp("kw") / "r.sqlite3")
    # interleaved with the other tenants, some deleted again, as writes leave a shared store
    ms: list[Memory] = []
    for i, text in enumerate(mine):
        ms += put(store, mem("u1", text))
        if i < len(others):
            put(store, mem(*others[i]))
    put(store, *[mem(u, t) for u, t in others[len(mine) :]])
    gone = [m.id for i, m in enumerate(ms) if i in dropped]
    store.delete("u1", gone)
    texts = {m.id: search_text(m.content) for m in ms if m.id not in gone}
    terms = query_terms(" ".join(query))
    got = store.keyword_search(RecordQuery("u1"), terms, 10)
    want = brute_force(texts, terms, 10)
    assert [h for h, _ in got] == [h for h, _ in want]
    assert all(math.isclose(a, b, rel_tol=1e-9) for (_, a), (_, b) in zip(got, want, strict=True))
    store.close()


def one_user(path: Path, n: int) -> SQLiteRecords:
    """n memories over a small vocabulary: every query term is in thousands of them."""
    names = ["alice", "bruno", "chen", "dara", "emeka", "fiona"]
    places = ["library", "harbour", "market", "garden", "museum", "beach", "station"]
    acts = ["painting", "chess", "sailing", "pottery", "running", "baking", "yoga", "tennis"]
    store = SQLiteRecords(path)
    ms = []
    for i in range(n):
        words = [names[i % 6], acts[(i // 6) % 8], places[(i // 48) % 7], acts[(i * 7) % 8]]
        ms.append(mem("me", " ".join(words + ["again"] * (i % 3))))
    put(store, *ms)
    return store


@pytest.mark.parametrize("query", ["alice sailing at the harbour", "chess", "bruno yoga beach"])
def test_a_large_users_common_terms_do_not_make_the_search_walk_every_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, query: str
) -> None:
    """Past CANDIDATES the pool is narrowed; what that costs stays bounded by the pool, however
    many of the user's memories hold the terms (four times the memories, not four times the
    work)."""
    from graphmem.stores.records import keyword

    monkeypatch.setattr(keyword, "CANDIDATES", 100)
    small, large = one_user(tmp_path / "s.sqlite3", 1500), one_user(tmp_path / "l.sqlite3", 6000)
    steps = [vm_steps(s, "me", query) for s in (small, large)]
    assert steps[1] <= steps[0] * 1.5 + 50, steps
    assert len(large.keyword_search(RecordQuery("me"), query_terms(query), 10)) == 10
    small.close()
    large.close()
