"""A user's graph counts are read from counts the schema's triggers keep, not counted per call.

memory_health and the inspector's Health page ask for them on every call; COUNT(*) over a user's
relations walked every index entry (the 1.65 million relations of 100,000 memories took
170-490 ms). The counts must stay exactly the rows' counts through writes, deletes and an
erase (which must leave no row naming the user), and a store made before the counts must be
counted when it is opened. What a read walks is counted in SQLite virtual-machine steps.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem.domain.model import Memory, new_id
from graphmem.domain.text import search_text
from graphmem.stores.records.rows import EntityRef, GraphRows, Relation
from graphmem.stores.records.sqlite import SQLiteRecords
from tests.helpers.sqlite_steps import vm_steps

TABLES = ("memory_relations", "entities", "memory_entities")


def write(store: SQLiteRecords, user: str, n: int, fan: int = 8) -> list[Memory]:
    """n memories, each related to the `fan` before it and naming two of five entities."""
    mems = [Memory(id=new_id(), user_id=user, content=f"{user} memory {i}") for i in range(n)]
    rels = [
        Relation(user, m.id, mems[j].id, "related", 0.5)
        for i, m in enumerate(mems)
        for j in range(max(0, i - fan), i)
    ]
    ents = {
        m.id: [EntityRef(f"e{i % 5}", f"E{i % 5}"), EntityRef(f"f{i % 3}", "F")]
        for i, m in enumerate(mems)
    }
    store.insert(mems, [search_text(m.content) for m in mems], GraphRows(user, ents, rels))
    return mems


def counted(store: SQLiteRecords, user: str | None) -> dict[str, int]:
    where, params = (" WHERE user_id = ?", (user,)) if user else ("", ())
    return {t: int(store._fetch(f"SELECT COUNT(*) FROM {t}{where}", params)[0][0]) for t in TABLES}


def steps_of_counts(store: SQLiteRecords, user: str) -> tuple[int, dict[str, int]]:
    store.graph_counts(user)  # the connection reads the schema on its first statement
    return vm_steps(store, lambda: store.graph_counts(user))


def test_counts_follow_writes_deletes_and_an_erase(tmp_path: Path) -> None:
    store = SQLiteRecords(tmp_path / "r.sqlite3")
    mine = write(store, "me", 300)
    write(store, "you", 40)
    for user in ("me", "you", None):
        assert store.graph_counts(user) == counted(store, user)
    # the same relations again (INSERT OR IGNORE) change nothing
    write_again = [Relation("me", mine[5].id, mine[1].id, "related", 0.9)]
    store.insert([], [], GraphRows("me", {}, write_again))
    assert store.graph_counts("me") == counted(store, "me")
    store.delete("me", [m.id for m in mine[:120]])
    assert store.graph_counts("me") == counted(store, "me")
    assert store.graph_counts(None) == counted(store, None)
    store.erase_user("me", "test")
    assert store.graph_counts("me") == {t: 0 for t in TABLES}
    assert not store._fetch("SELECT * FROM graph_row_counts WHERE user_id = 'me'")
    assert store.graph_counts("you") == counted(store, "you")
    store.close()


def test_reading_the_counts_does_not_walk_the_relations(tmp_path: Path) -> None:
    small = SQLiteRecords(tmp_path / "small.sqlite3")
    big = SQLiteRecords(tmp_path / "big.sqlite3")
    write(small, "me", 50)
    write(big, "me", 2000)  # about 16,000 relations
    small_steps, small_counts = steps_of_counts(small, "me")
    big_steps, big_counts = steps_of_counts(big, "me")
    assert big_counts == counted(big, "me") and small_counts == counted(small, "me")
    # before: COUNT(*) walked every index entry, thousands of steps at 16,000 relations
    assert big_steps <= small_steps + 20, (small_steps, big_steps)
    small.close()
    big.close()


def test_a_store_made_before_the_counts_is_counted_when_opened(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite3"
    store = SQLiteRecords(path)
    write(store, "me", 100)
    write(store, "you", 30)
    want = {u: counted(store, u) for u in ("me", "you")}
    db = store._conn()
    for t in TABLES:
        db.execute(f"DROP TRIGGER {t}_count_ai")
        db.execute(f"DROP TRIGGER {t}_count_ad")
    db.execute("DROP TABLE graph_row_counts")
    db.commit()
    store.close()
    reopened = SQLiteRecords(path)
    assert {u: reopened.graph_counts(u) for u in ("me", "you")} == want
    write(reopened, "me", 10)  # and the triggers keep them from then on
    assert reopened.graph_counts("me") == counted(reopened, "me")
    reopened.close()


@pytest.mark.parametrize("user", ["me", None])
def test_an_empty_store_counts_zero(tmp_path: Path, user: str | None) -> None:
    store = SQLiteRecords(tmp_path / "r.sqlite3")
    assert store.graph_counts(user) == {t: 0 for t in TABLES}
    store.close()
