"""A user's figures (memory_health, the inspector's Health page) are read from indexes alone.

One statement over the rows' own columns (first and last creation time, accesses) read every
memory row of the user: 80-135 ms of the Health page at 100,000 memories. Each statement
`stats` issues is checked against SQLite's plan: it may walk index entries, never table rows.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from graphmem.domain.model import Memory, MemoryType, Status, new_id
from graphmem.domain.text import search_text
from graphmem.stores.records.sqlite import SQLiteRecords


def test_stats_read_no_memory_rows_and_stay_exact(tmp_path: Path) -> None:
    store = SQLiteRecords(tmp_path / "r.sqlite3")
    start = datetime(2026, 1, 1, tzinfo=UTC)
    statuses = [Status.ACTIVE, Status.SUPERSEDED, Status.ARCHIVED, Status.QUARANTINED]
    mems = [
        Memory(
            id=new_id(),
            user_id="me",
            content=f"memory {i}",
            memory_type=MemoryType.FACT if i % 3 else MemoryType.PREFERENCE,
            status=statuses[i % 4],
            created_at=start + timedelta(hours=(i * 37) % 500),
            access_count=i % 5,
        )
        for i in range(400)
    ]
    other = [Memory(id=new_id(), user_id="you", content="x", access_count=99)]
    store.insert(mems + other, [search_text(m.content) for m in mems + other])
    seen: list[str] = []
    store._read_conn().set_trace_callback(seen.append)
    got = store.stats("me")
    store._read_conn().set_trace_callback(None)
    times = sorted(m.created_at for m in mems)
    assert got["by_status"] == {s.value: 100 for s in statuses}
    assert got["by_type"] == {"fact": 266, "preference": 134}
    assert got["total"] == 300  # superseded rows are versions, not memories
    assert got["total_accesses"] == sum(m.access_count for m in mems)
    assert got["first_created_at"].startswith(times[0].strftime("%Y-%m-%dT%H:%M:%S"))
    assert got["last_created_at"].startswith(times[-1].strftime("%Y-%m-%dT%H:%M:%S"))
    plans = [
        row[3]
        for sql in seen
        if "FROM memories" in sql
        for row in store._read_conn().execute("EXPLAIN QUERY PLAN " + sql)
        if "memories" in row[3]
    ]
    assert plans and all("COVERING INDEX" in p for p in plans), plans
    assert store.stats("nobody")["first_created_at"] is None
    store.close()
