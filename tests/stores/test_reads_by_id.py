"""Reading a few hundred memories by id costs the same in a small and in a large tenant.

The Graph page reads every memory of a neighbourhood (about 1,000 at three hops) and their
entities. SQLite's sampled statistics put about 1,000 rows under each user, so for an IN list of
a few hundred ids its planner walked the user's whole index instead of looking the ids up:
at 100,000 memories the entities of a three-hop neighbourhood took 1.9 s, the rows 0.4 s. What a
read walks is counted in SQLite virtual-machine steps, which do not depend on the machine's
load.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem.domain.model import Memory, new_id
from graphmem.domain.text import search_text
from graphmem.stores.records.rows import EntityRef, GraphRows
from graphmem.stores.records.sqlite import SQLiteRecords
from tests.helpers.sqlite_steps import vm_steps

WANTED = 600


def tenant(path: Path, n: int) -> tuple[SQLiteRecords, list[str]]:
    """One user's n memories, each naming three of 40 entities, written in batches as writes
    come (so the store's sampled ANALYZE runs as it grows); returns the store and the ids of
    WANTED memories spread over it."""
    store = SQLiteRecords(path)
    ids = []
    for start in range(0, n, 1000):
        mems = [
            Memory(id=new_id(), user_id="me", content=f"memory {i}")
            for i in range(start, min(n, start + 1000))
        ]
        ents = {
            m.id: [EntityRef(f"e{(i * k) % 40}", f"E{(i * k) % 40}") for k in (1, 3, 7)]
            for i, m in enumerate(mems, start)
        }
        store.insert(mems, [search_text(m.content) for m in mems], GraphRows("me", ents, []))
        ids += [m.id for m in mems]
    return store, ids[:: max(1, n // WANTED)][:WANTED]


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[SQLiteRecords, list[str]]]:
    folder = tmp_path_factory.mktemp("by-id")
    out = {
        "small": tenant(folder / "small.sqlite3", 1_500),
        "big": tenant(folder / "big.sqlite3", 12_000),
    }
    yield out
    for store, _ in out.values():
        store.close()


@pytest.mark.parametrize("read", ["rows", "entities"])
def test_reading_by_id_does_not_walk_the_tenant(
    stores: dict[str, tuple[SQLiteRecords, list[str]]], read: str
) -> None:
    steps = {}
    for size, (store, ids) in stores.items():

        def run(store: SQLiteRecords = store, ids: list[str] = ids) -> object:
            if read == "rows":
                return store.get("me", ids)
            return store.entities_for("me", ids)

        run()  # the connection reads the schema on its first statement
        steps[size], got = vm_steps(store, run)
        assert len(got) == WANTED  # type: ignore[arg-type]
    # before: the plan walked the user's index, 8 times the rows in the big store
    assert steps["big"] <= 1.5 * steps["small"] + 50, steps


def test_another_users_ids_are_not_read(tmp_path: Path) -> None:
    store, ids = tenant(tmp_path / "r.sqlite3", 50)
    assert store.get("you", ids) == {}
    assert store.entities_for("you", ids) == {}
    assert len(store.get("me", ids)) == len(ids)
    store.close()
