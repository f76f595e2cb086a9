"""Read connections for the SQLite records store: one per thread, so reads never queue.

The store writes through one connection behind the records lock, and every read used to go
through it too: a search waited for a running write transaction (a `write_many` of 500
memories holds it for tens of milliseconds), and the search's own keyword channel, on a worker
thread, queued behind the searching thread's reads. In WAL mode SQLite lets readers run beside
the one writer, each on its own connection and snapshot, so each thread reads on a connection of
its own, without the lock.

A read sees what was committed when its statement started; a thread inside a write
transaction keeps reading on the write connection, so it sees its own uncommitted rows. An
in-memory database exists only on its one connection, so it has no readers.

A connection loads the planner's statistics (ANALYZE) when it opens and keeps them: after the
writer refreshes them (`stale`), each thread's connection is reopened on its next read, or it
would go on planning with the old ones (without statistics SQLite scans a whole tenant instead
of using the id index, graphmem.stores.records.sqlite).
"""

from __future__ import annotations

import sqlite3
import threading
import weakref
from collections.abc import Callable


class ReadConnections:
    """A read-only connection per thread on one database file, opened on first use.

    The connections of threads that ended are closed when the next one opens (a server that
    starts threads per request does not collect connections); `close` closes every one still
    open, and after it `get` refuses."""

    def __init__(self, path: str, setup: Callable[[sqlite3.Connection], None]) -> None:
        self.path = path
        self._setup = setup
        self._local = threading.local()
        # each connection with its thread (weakly: a thread that ended is collected)
        self._open: list[tuple[weakref.ref[threading.Thread], sqlite3.Connection]] = []
        self._guard = threading.Lock()
        self._closed = False
        self._generation = 0

    def stale(self) -> None:
        """The statistics changed: every connection is reopened before its next read."""
        self._generation += 1

    def get(self) -> sqlite3.Connection:
        local = self._local
        conn: sqlite3.Connection | None = getattr(local, "conn", None)
        if conn is not None:
            if local.generation == self._generation:
                return conn
            conn.close()
            local.conn = None
            with self._guard:
                self._open = [(t, c) for t, c in self._open if c is not conn]
        with self._guard:
            generation = self._generation
            if self._closed:
                raise sqlite3.ProgrammingError("records store is closed")
            # check_same_thread=False only so that close() may close it from another thread
            # autocommit: each statement reads the latest commit, no read transaction lingers
            conn = sqlite3.connect(
                self.path, check_same_thread=False, timeout=30, isolation_level=None
            )
            try:
                conn.execute("PRAGMA query_only = ON")
                self._setup(conn)
            except BaseException:
                conn.close()
                raise
            self._open = [(t, c) for t, c in self._open if _alive(t, c)]
            self._open.append((weakref.ref(threading.current_thread()), conn))
        local.conn, local.generation = conn, generation
        return conn

    def close(self) -> None:
        with self._guard:
            self._closed = True
            for _, conn in self._open:
                conn.close()
            self._open.clear()
        self._local = threading.local()

    def __len__(self) -> int:
        return len(self._open)


def _alive(thread: weakref.ref[threading.Thread], conn: sqlite3.Connection) -> bool:
    """Is the connection's thread still running? If not, the connection is closed here."""
    t = thread()
    if t is not None and t.is_alive():
        return True
    conn.close()
    return False
