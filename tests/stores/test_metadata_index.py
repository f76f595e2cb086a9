"""A memory list filtered by metadata reads the matching memories, not every memory's JSON.

The inspector's list filtered by `i=7` took 150-230 ms at 100,000 memories: the filter was
tested on each memory's JSON, and with 10 matches the walk read all of them. The embedded store
keeps each memory's top-level scalar values in `memory_meta`, by triggers, and a selective
filter's page is read from there (graphmem.stores.records.sqlite_meta). These tests hold the
rows to the memories through every write (insert, update, merge, delete, erase: an erased
user leaves no row), check that "1", 1, 1.0 and true match as graphmem.domain.filters defines, and
count what a page reads in SQLite virtual-machine steps, which do not depend on the load.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from graphmem.domain.filters import MemoryFilter
from graphmem.domain.model import Memory, new_id
from graphmem.domain.text import search_text
from graphmem.stores.records import RecordQuery, sqlite_meta
from graphmem.stores.records.sqlite import SQLiteRecords
from tests.helpers.sqlite_steps import vm_steps

VALUES: list[Any] = ["7", 7, 7.0, 8, True, False, "true", "x" * 300, None, [7], {"i": 7}]
STATUSES = ("active", "superseded", "archived", "quarantined")


def put(store: SQLiteRecords, user: str, metas: list[dict[str, Any]]) -> list[Memory]:
    mems = [
        Memory(id=new_id(), user_id=user, content=f"{user} memory {i}", metadata=m)
        for i, m in enumerate(metas)
    ]
    store.insert(mems, [search_text(m.content) for m in mems])
    return mems


def indexed(store: SQLiteRecords, user: str) -> set[tuple[str, str, str, Any]]:
    """The user's rows in memory_meta, as (memory id, key, kind, value)."""
    return {
        tuple(r)  # type: ignore[misc]
        for r in store._fetch(
            "SELECT m.id, x.meta_key, x.kind, x.meta_value FROM memory_meta x"
            " JOIN memories m ON m.doc_id = x.doc_id WHERE x.user_id = ?",
            (user,),
        )
    }


def expected(store: SQLiteRecords, user: str) -> set[tuple[str, str, str, Any]]:
    """What the rows must be: each top-level scalar of each memory's metadata, typed."""
    q = RecordQuery(user, statuses=STATUSES)
    out = set()
    for m in store.list(q):
        for k, v in m.metadata.items():
            if isinstance(v, (str, bool, int, float)):
                out.add((m.id, k, *sqlite_meta.kind_value(v)))
    return out


def listed(store: SQLiteRecords, user: str, metadata: dict[str, Any], page: int = 7) -> list[str]:
    """Every memory the list returns with this filter, page by page, newest first."""
    q = RecordQuery(user, statuses=STATUSES, filter=MemoryFilter.parse(metadata=metadata))
    out: list[str] = []
    after = None
    while True:
        rows = store.page(q, "newest", after, page)
        out += [m.id for m, _ in rows]
        if len(rows) < page:
            return out
        after = (rows[-1][1], rows[-1][0].seq)


def test_the_rows_follow_writes_updates_merges_deletes_and_an_erase(tmp_path: Path) -> None:
    store = SQLiteRecords(tmp_path / "r.sqlite3")
    mine = put(store, "me", [{"i": v, "k": i % 3, "n": [1]} for i, v in enumerate(VALUES * 4)])
    put(store, "you", [{"i": 7, "k": "you"}] * 5)
    assert indexed(store, "me") == expected(store, "me") and indexed(store, "me")
    changed = replace(mine[0], metadata={"i": 8, "new": "key"})
    store.update_content(changed, search_text(changed.content))
    assert (mine[0].id, "new", "s", "key") in indexed(store, "me")
    assert indexed(store, "me") == expected(store, "me")
    survivor = replace(mine[1], metadata={"merged": True})
    store.merge("me", survivor, [mine[2].id])
    assert indexed(store, "me") == expected(store, "me")
    store.delete("me", [m.id for m in mine[10:20]])
    assert indexed(store, "me") == expected(store, "me")
    store.erase_user("me", "test")
    assert not store._fetch("SELECT 1 FROM memory_meta WHERE user_id = 'me'")
    assert store.user_residue("me")["memory_meta"] == 0
    assert indexed(store, "you") == expected(store, "you") and len(indexed(store, "you")) == 10
    store.close()


@pytest.mark.parametrize("drive_max", [sqlite_meta.DRIVE_MAX, 0])
@pytest.mark.parametrize(
    "metadata",
    [
        {"i": 7},
        {"i": "7"},
        {"i": True},
        {"i": {"in": ["7", 7]}},
        {"i": {"in": [8, "true", False]}},
        {"i": 7, "k": 1},
        {"k": {"in": [0, 2]}, "i": {"in": [7, True]}},
        {"missing": 1},
    ],
)
def test_a_filtered_list_returns_exactly_what_the_filter_admits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, drive_max: int, metadata: dict[str, Any]
) -> None:
    # drive_max 0: every filter takes the walk in the list's order, the other way a page reads
    monkeypatch.setattr(sqlite_meta, "DRIVE_MAX", drive_max)
    store = SQLiteRecords(tmp_path / "r.sqlite3")
    mine = put(store, "me", [{"i": v, "k": i % 3} for i, v in enumerate(VALUES * 5)])
    put(store, "you", [{"i": 7, "k": 1}] * 5)
    mf = MemoryFilter.parse(metadata=metadata)
    want = [m.id for m in reversed(mine) if mf.admits(m)]  # newest first: the insert order
    assert listed(store, "me", metadata) == want
    store.close()


def test_a_page_of_a_rare_value_reads_the_matches_not_the_user(tmp_path: Path) -> None:
    small = SQLiteRecords(tmp_path / "small.sqlite3")
    big = SQLiteRecords(tmp_path / "big.sqlite3")
    for store, n in ((small, 200), (big, 6000)):
        # ten memories hold i=7 in each store: the oldest ones, so a walk newest-first reads
        # every other memory before it finds them
        put(store, "me", [{"i": 7}] * 10 + [{"i": 100 + i} for i in range(n)])
    q = RecordQuery("me", statuses=STATUSES, filter=MemoryFilter.parse(metadata={"i": 7}))
    steps = {}
    for name, store in (("small", small), ("big", big)):
        store.page(q, "newest", None, 51)  # the connection reads the schema on first use
        steps[name], rows = vm_steps(store, lambda s=store: s.page(q, "newest", None, 51))
        assert len(rows) == 10
    # before: the JSON of every memory was read, about 30 times as many steps in the big one
    assert steps["big"] <= steps["small"] + 50, steps
    small.close()
    big.close()


def test_a_store_made_before_the_index_is_filled_when_opened(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite3"
    store = SQLiteRecords(path)
    put(store, "me", [{"i": v} for v in VALUES])
    want = expected(store, "me")
    db = store._conn()
    for trigger in ("memory_meta_ai", "memory_meta_ad", "memory_meta_au"):
        db.execute(f"DROP TRIGGER {trigger}")
    db.execute("DROP TABLE memory_meta")
    db.commit()
    store.close()
    reopened = SQLiteRecords(path)
    assert indexed(reopened, "me") == want and want
    put(reopened, "me", [{"i": 7}])  # and the triggers keep it from then on
    assert indexed(reopened, "me") == expected(reopened, "me")
    assert len(listed(reopened, "me", {"i": 7})) == 3  # 7, 7.0 and the new one
    reopened.close()


@pytest.mark.parametrize("analysis_limit", [1000, 0])  # the store's sampled ANALYZE, and a full one
def test_a_rare_value_beside_common_ones_is_read_by_doc_id(
    tmp_path: Path, analysis_limit: int
) -> None:
    """Full statistics say a value of `p` is held by half the memories; the page of the rare
    one must still be read from its own rows, not by a scan of every memory."""
    store = SQLiteRecords(tmp_path / "r.sqlite3")
    put(store, "me", [{"p": "rare"}] * 10 + [{"p": "ab"[i % 2]} for i in range(4000)])
    db = store._conn()
    db.execute(f"PRAGMA analysis_limit = {analysis_limit}")
    db.execute("ANALYZE")
    db.commit()
    q = RecordQuery("me", statuses=STATUSES, filter=MemoryFilter.parse(metadata={"p": "rare"}))
    where, params = store._listing_where(q)
    plan = " / ".join(
        r[3]
        for r in store._conn().execute(
            f"EXPLAIN QUERY PLAN SELECT id FROM memories WHERE {where}"
            " ORDER BY created_at DESC, doc_id DESC LIMIT 51",
            params,
        )
    )
    assert "memories USING INTEGER PRIMARY KEY" in plan and "SCAN memories" not in plan, plan
    assert len(store.page(q, "newest", None, 51)) == 10
    store.close()
