"""A keyset page costs what the first page costs, however many rows lie before its cursor.

The inspector's timeline lists every status at once (active, superseded, archived,
quarantined). With a list of statuses, the cursor's "after (value, doc_id)" written as an OR
made SQLite read every row of the user before the cursor and sort them: at 100,000 memories
the timeline's second page took a second while its first took a millisecond. What a page reads
is counted in SQLite virtual-machine steps, which do not depend on the machine's load.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from graphmem.domain.model import Memory, Status, new_id
from graphmem.domain.text import search_text
from graphmem.stores.records import RecordQuery
from graphmem.stores.records.sqlite import SQLiteRecords
from tests.helpers.sqlite_steps import vm_steps

STATUSES = ("active", "superseded", "archived", "quarantined")
N = 3000
PAGE = 50


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """N memories of one user over the four statuses, some sharing a creation time (ties are
    broken by doc_id) and a few access counts, and another user's rows in between."""
    s = SQLiteRecords(Path(tmp_path_factory.mktemp("keyset")) / "r.sqlite3")
    start = datetime(2026, 1, 1, tzinfo=UTC)
    mine = [
        Memory(
            id=new_id(),
            user_id="me",
            content=f"memory {i}",
            status=Status(STATUSES[i % 4]),
            created_at=start + timedelta(minutes=i // 3),
            access_count=i % 7,
        )
        for i in range(N)
    ]
    other = [Memory(id=new_id(), user_id="you", content=f"other {i}") for i in range(N // 3)]
    for chunk in (mine[: N // 2], other, mine[N // 2 :]):
        s.insert(chunk, [search_text(m.content) for m in chunk])
    yield s
    s.close()


@pytest.mark.parametrize("sort", ["newest", "oldest", "most_accessed", "decay"])
def test_a_later_page_reads_no_more_than_the_first(store: SQLiteRecords, sort: str) -> None:
    q = RecordQuery("me", statuses=STATUSES)
    first_steps, first = vm_steps(store, lambda: store.page(q, sort, None, PAGE + 1))
    after = (first[PAGE - 1][1], first[PAGE - 1][0].seq)
    later_steps, later = vm_steps(store, lambda: store.page(q, sort, after, PAGE + 1))
    assert len(later) == PAGE + 1
    # before: the OR read every row up to the cursor (tens of thousands of steps at N = 3000)
    assert later_steps <= 3 * first_steps + 100, (first_steps, later_steps)


@pytest.mark.parametrize("sort", ["newest", "oldest", "most_accessed"])
@pytest.mark.parametrize("statuses", [STATUSES, ("active",)])
def test_paging_through_returns_every_row_once_in_order(
    store: SQLiteRecords, sort: str, statuses: tuple[str, ...]
) -> None:
    q = RecordQuery("me", statuses=statuses)
    seen: list[Memory] = []
    after = None
    while True:
        rows = store.page(q, sort, after, PAGE)
        seen.extend(m for m, _ in rows)
        if len(rows) < PAGE:
            break
        after = (rows[-1][1], rows[-1][0].seq)
    every = [m for m, _ in store.page(q, sort, None, N + 1)]
    assert [m.id for m in seen] == [m.id for m in every]
    assert len(every) == sum(1 for i in range(N) if STATUSES[i % 4] in statuses)


def tenant(path: Path, n: int) -> SQLiteRecords:
    """One user's n memories with access counts and decay scores spread over them."""
    s = SQLiteRecords(path)
    for start in range(0, n, 1000):
        chunk = [
            Memory(
                id=new_id(),
                user_id="me",
                content=f"memory {i}",
                status=Status(STATUSES[i % 4]),
                access_count=(i * 7) % 101,
                decay_score=((i * 13) % 97) / 97,
            )
            for i in range(start, min(n, start + 1000))
        ]
        s.insert(chunk, [search_text(m.content) for m in chunk])
    return s


@pytest.mark.parametrize("statuses", [("active",), STATUSES])
@pytest.mark.parametrize("sort", ["newest", "oldest", "most_accessed", "decay"])
def test_no_page_sorts_the_whole_tenant(
    tmp_path: Path, sort: str, statuses: tuple[str, ...]
) -> None:
    """The memory list sorted by access count or decay read every row of the user and sorted
    them (150-220 ms at 100,000 memories); an index per order makes a page a walk in order.
    Those indexes must not take the place of the time index for the timeline's four statuses
    sorted by time (a (user, status, decay) index did: 80 ms for its first page)."""
    small, big = tenant(tmp_path / "small.sqlite3", 500), tenant(tmp_path / "big.sqlite3", 6000)
    q = RecordQuery("me", statuses=statuses)
    steps = {}
    for name, store in (("small", small), ("big", big)):
        store.page(q, sort, None, PAGE + 1)  # the connection reads the schema first
        steps[name], first = vm_steps(store, lambda s=store: s.page(q, sort, None, PAGE + 1))
        after = (first[PAGE - 1][1], first[PAGE - 1][0].seq)
        later, _ = vm_steps(store, lambda s=store, a=after: s.page(q, sort, a, PAGE + 1))
        steps[name] = max(steps[name], later)
    assert steps["big"] <= 1.5 * steps["small"] + 50, steps
    small.close()
    big.close()
