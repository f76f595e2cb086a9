"""Named locks that serialise one user's writes, in one process or across server replicas.

A write plans against what the user's memories are now (which fact it supersedes, what it
links to, what an update changes); two writes for one user planned at the same time both see
the old fact and both end it, or the second update overwrites the first. In one process a
thread lock is enough. Replicas in front of one MySQL/MariaDB take the lock in the database
(`GET_LOCK`), which every replica sees, holds for as long as the session that took it lives
(a killed replica releases its locks with its connection) and needs no other service.

Each thread holds its MySQL locks on a connection of its own: `GET_LOCK` belongs to a session,
and the records store's connection is shared by every thread of the process. A lock taken
again by the thread that holds it is counted, not taken twice, so a use-case may call another
that locks the same user.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any, Protocol

from graphmem.errors import BusyError, StoreUnavailableError


class NamedLocks(Protocol):
    backend: str

    def hold(self, name: str, timeout: float) -> contextlib.AbstractContextManager[None]:
        """Hold `name` for the block, waiting at most `timeout` seconds (BusyError after)."""
        ...

    def try_hold(self, name: str) -> contextlib.AbstractContextManager[bool]:
        """Hold `name` for the block if nobody else does; the block gets whether it does."""
        ...

    def close(self) -> None: ...


def user_lock(user_id: str) -> str:
    return f"user:{user_id}"


class ProcessLocks:
    """Locks of one process: for the embedded store, which one process owns at a time."""

    backend = "process"

    def __init__(self) -> None:
        self._locks: dict[str, threading.RLock] = {}
        self._guard = threading.Lock()

    def _lock(self, name: str) -> threading.RLock:
        with self._guard:
            return self._locks.setdefault(name, threading.RLock())

    @contextlib.contextmanager
    def hold(self, name: str, timeout: float) -> Iterator[None]:
        lock = self._lock(name)
        if not lock.acquire(timeout=max(0.0, timeout)):
            raise BusyError(name, timeout)
        try:
            yield
        finally:
            lock.release()

    @contextlib.contextmanager
    def try_hold(self, name: str) -> Iterator[bool]:
        lock = self._lock(name)
        mine = lock.acquire(blocking=False)
        try:
            yield mine
        finally:
            if mine:
                lock.release()

    def close(self) -> None:
        pass


class MySQLLocks:
    """`GET_LOCK` locks, seen by every process on the same MySQL/MariaDB database.

    Names are hashed with the database's name: MySQL caps a lock name at 64 characters, and
    lock names are server-wide, so two deployments sharing a server must not block each other.
    """

    backend = "mysql"

    def __init__(self, connect: dict[str, Any]) -> None:
        self._connect = connect
        self._local = threading.local()
        self._all: list[Any] = []
        self._guard = threading.Lock()

    def _name(self, name: str) -> str:
        digest = hashlib.sha256(f"{self._connect['database']}\0{name}".encode()).hexdigest()
        return f"graphmem:{digest[:48]}"

    def _held(self) -> Counter[str]:
        held = getattr(self._local, "held", None)
        if held is None:
            held = self._local.held = Counter()
        return held

    def _conn(self) -> Any:
        import pymysql

        conn = getattr(self._local, "conn", None)
        if conn is not None and conn.open:
            return conn
        try:
            conn = pymysql.connect(
                charset="utf8mb4", autocommit=True, connect_timeout=5, **self._connect
            )
        except pymysql.MySQLError as e:
            raise StoreUnavailableError(f"records store (MySQL) unreachable: {e}") from e
        self._local.conn = conn
        with self._guard:
            self._all.append(conn)
        return conn

    def _call(self, sql: str, *args: Any) -> Any:
        import pymysql

        try:
            with self._conn().cursor() as cur:
                cur.execute(sql, args)
                row = cur.fetchone()
        except pymysql.MySQLError as e:
            self._drop()
            raise StoreUnavailableError(f"records store (MySQL) lock failed: {e}") from e
        return row[0] if row else None

    def _drop(self) -> None:
        conn = getattr(self._local, "conn", None)
        self._local.conn = None
        self._held().clear()  # a closed session has released every lock it held
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()

    def _acquire(self, name: str, timeout: float) -> bool:
        held = self._held()
        if held[name]:
            held[name] += 1
            return True
        # GET_LOCK waits whole seconds: the wait goes in one-second steps and, below a second,
        # in short sleeps between non-blocking tries, so a deadline under a second is kept.
        deadline = time.monotonic() + max(0.0, timeout)
        while True:
            left = deadline - time.monotonic()
            wait = 1 if left >= 1 else 0
            got = self._call("SELECT GET_LOCK(%s, %s)", self._name(name), wait)
            if got == 1:
                held[name] = 1
                return True
            if got is None:
                raise StoreUnavailableError("records store (MySQL): GET_LOCK failed")
            if left <= 0:
                return False
            if not wait:
                time.sleep(min(0.05, left))

    def _release(self, name: str) -> None:
        held = self._held()
        held[name] -= 1
        if held[name] <= 0:
            del held[name]
            with contextlib.suppress(StoreUnavailableError):
                self._call("SELECT RELEASE_LOCK(%s)", self._name(name))

    @contextlib.contextmanager
    def hold(self, name: str, timeout: float) -> Iterator[None]:
        if not self._acquire(name, timeout):
            raise BusyError(name, timeout)
        try:
            yield
        finally:
            self._release(name)

    @contextlib.contextmanager
    def try_hold(self, name: str) -> Iterator[bool]:
        mine = self._acquire(name, 0)
        try:
            yield mine
        finally:
            if mine:
                self._release(name)

    def close(self) -> None:
        with self._guard:
            conns, self._all = self._all, []
        for conn in conns:
            with contextlib.suppress(Exception):
                conn.close()


__all__ = ["MySQLLocks", "NamedLocks", "ProcessLocks", "user_lock"]
