"""SQLite reads on a connection per thread: a search never waits for a running write."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem import MemoryService
from graphmem.domain.model import Memory, new_id
from graphmem.domain.text import query_terms, search_text
from graphmem.stores.records import RecordQuery
from graphmem.stores.records.sqlite import SQLiteRecords

HOLD_S = 3.0  # how long the write transaction stays open; every read must finish well before


def mem(user: str, content: str) -> Memory:
    return Memory(id=new_id(), user_id=user, content=content)


@pytest.fixture
def records(tmp_path: Path) -> Iterator[SQLiteRecords]:
    store = SQLiteRecords(tmp_path / "r.sqlite3")
    yield store
    store.close()


def open_write(records: SQLiteRecords, m: Memory) -> tuple[threading.Event, threading.Thread]:
    """Insert `m` in a write transaction that stays open until the returned event is set."""
    started, release = threading.Event(), threading.Event()

    def write() -> None:
        with records._tx() as cur:
            cur.execute(
                "INSERT INTO memories (id, user_id, content, summary, search_text, memory_type,"
                " source, confidence, metadata, access_count, decay_score, status, created_at,"
                " updated_at, kind) VALUES (?, ?, ?, '', ?, 'fact', 'user', 1, '{}', 0, 1,"
                " 'active', '2026-01-01 00:00:00', '2026-01-01 00:00:00', 'memory')",
                (m.id, m.user_id, m.content, search_text(m.content)),
            )
            started.set()
            release.wait(HOLD_S)

    t = threading.Thread(target=write)
    t.start()
    assert started.wait(5)
    return release, t


def test_a_read_does_not_wait_for_a_running_write_transaction(records: SQLiteRecords) -> None:
    old = mem("u", "the green teapot is on the shelf")
    records.insert([old], [search_text(old.content)])
    new = mem("u", "the green kettle is in the kitchen")
    release, writer = open_write(records, new)
    try:
        t0 = time.perf_counter()
        got = records.get("u", [old.id, new.id])
        hits = records.keyword_search(RecordQuery("u"), query_terms("green"), 10)
        took = time.perf_counter() - t0
    finally:
        release.set()
        writer.join()
    assert took < HOLD_S / 3
    # what was committed when the read started, not the write still open
    assert set(got) == {old.id} and [h[0] for h in hits] == [old.id]
    assert set(records.get("u", [old.id, new.id])) == {old.id, new.id}  # committed since


def test_a_write_transaction_reads_its_own_rows(records: SQLiteRecords) -> None:
    m = mem("u", "a row read back inside its own transaction")
    with records._tx() as cur:
        cur.execute(
            "INSERT INTO memories (id, user_id, content, summary, search_text, memory_type,"
            " source, confidence, metadata, access_count, decay_score, status, created_at,"
            " updated_at, kind) VALUES (?, 'u', 'x', '', 'x', 'fact', 'user', 1, '{}', 0, 1,"
            " 'active', '2026-01-01 00:00:00', '2026-01-01 00:00:00', 'memory')",
            (m.id,),
        )
        assert records.get("u", [m.id])  # on the write connection, uncommitted
        cur.execute("DELETE FROM memories WHERE id = ?", (m.id,))


def test_each_thread_reads_on_its_own_connection_and_close_closes_them(
    records: SQLiteRecords,
) -> None:
    m = mem("u", "read from two threads")
    records.insert([m], [search_text(m.content)])
    seen: list[bool] = []
    t = threading.Thread(target=lambda: seen.append(m.id in records.get("u", [m.id])))
    t.start()
    t.join()
    assert m.id in records.get("u", [m.id]) and seen == [True]
    readers = records._readers
    assert readers is not None and len(readers) >= 1
    records.close()
    assert len(readers) == 0
    with pytest.raises(sqlite3.ProgrammingError):
        records.get("u", [m.id])


def test_readers_plan_with_statistics_refreshed_after_they_opened(
    records: SQLiteRecords,
) -> None:
    """ANALYZE on the write connection reaches the read connections (reopened), so a reader
    that opened on an empty store does not keep planning without statistics."""
    records.get("u", [new_id()])  # this thread's reader opens on the empty store
    readers = records._readers
    assert readers is not None
    before = readers.get()
    ms = [mem("u", f"memory number {i}") for i in range(1500)]
    records.insert(ms, [search_text(x.content) for x in ms])  # past the re-ANALYZE threshold
    after = readers.get()
    assert after is not before
    assert after.execute("SELECT COUNT(*) FROM sqlite_stat1").fetchone()[0] > 0


def test_a_search_does_not_wait_for_a_running_write(svc: MemoryService) -> None:
    svc.write("u", "I keep the spare house key under the blue flowerpot")
    records = svc.records
    assert isinstance(records, SQLiteRecords)
    release, writer = open_write(records, mem("u", "the garage key hangs by the door"))
    try:
        t0 = time.perf_counter()
        hits = svc.search("u", "where is the spare key", 5, track_access=False).hits
        took = time.perf_counter() - t0
    finally:
        release.set()
        writer.join()
    assert took < HOLD_S / 3
    assert hits and "flowerpot" in hits[0].memory.content
