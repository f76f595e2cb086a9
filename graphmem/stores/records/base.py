"""The host every SQL records mixin builds on: connection, transaction and row plumbing.

The adapters differ only in connection handling, placeholders, datetime and JSON encoding, and
the full-text query; everything else in the canonical schema is portable SQL. The mixins for
the graph tables, the lifecycle and the keyword channel inherit from `SQLBase`, so what they
use of their host is declared here, once, and type-checked.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, TypeVar

from graphmem.domain.filters import Scalar
from graphmem.domain.model import Kind, Memory, MemoryType, Source, Status, utcnow
from graphmem.stores.id_hash import IdHasher
from graphmem.stores.records.locks import NamedLocks, ProcessLocks
from graphmem.stores.records.rows import RecordQuery

MEMORY_COLUMNS = (
    "id, user_id, session_id, content, summary, memory_type, source, confidence, metadata, "
    "access_count, last_access_at, decay_score, status, expires_at, created_at, updated_at, "
    "valid_from, valid_to, slot, doc_id, agent_id, run_id, kind"
)
CHUNK = 400

E = TypeVar("E", bound=StrEnum)
_MEMORY_TYPES = {m.value: m for m in MemoryType}
_SOURCES = {m.value: m for m in Source}
_STATUSES = {m.value: m for m in Status}
_KINDS = {m.value: m for m in Kind}


def _member(members: dict[str, E], enum: type[E], value: Any) -> E:
    """`enum(value)` from the dict of its members; an unknown value still raises as the call
    does."""
    found = members.get(value)
    return enum(value) if found is None else found


def chunks(items: list[Any], n: int = CHUNK) -> Iterable[list[Any]]:
    for i in range(0, len(items), n):
        yield items[i : i + n]


def iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


class SQLBase:
    """Subclasses set `backend` and `ph`, and connect (`_conn`)."""

    backend = "sql"
    ph = "?"

    backend = "sql"
    ph = "?"

    def __init__(self, id_hasher: IdHasher | None = None) -> None:
        self._lock = threading.RLock()
        # One process owns an embedded store; server adapters replace these with locks every
        # replica sees (graphmem.stores.records.locks).
        self.locks: NamedLocks = ProcessLocks()
        # Names an erased user in the audit log. Without a key file to keep, a key that lives
        # as long as the process: the row still never holds the raw id.
        self.id_hasher = id_hasher or IdHasher(os.urandom(32))

    # ------------------------------------------------------------------ dialect hooks
    def _conn(self) -> Any:
        raise NotImplementedError

    def _on_error(self, exc: BaseException) -> None:
        """Called after a failed transaction was rolled back; adapters may reset connections."""

    def _dt_in(self, value: datetime | None) -> Any:
        """Python datetime (aware) -> DB value (naive UTC)."""
        if value is None:
            return None
        return value.astimezone(UTC).replace(tzinfo=None)

    def _dt_out(self, value: Any) -> datetime | None:
        if value is None:
            return None
        if isinstance(value, str):
            if len(value) == 26 and value[10] == " " and value[25].isdigit():
                # the text SQLite's _dt_in writes, 'YYYY-MM-DD HH:MM:SS.ffffff', parsed as
                # UTC in one call (0.2 us; replace() below takes 1); any other text as before
                try:
                    fast = datetime.fromisoformat(value + "+00:00")
                except ValueError:
                    fast = None  # raised below, in the words it always was
                if fast is not None and fast.tzinfo is UTC:
                    return fast
            value = datetime.fromisoformat(value)
        return value.replace(tzinfo=UTC)

    def _json_out(self, value: Any) -> Any:
        if value is None:
            return None
        if value == "{}":  # most memories' metadata: json.loads would take 1 us to say so
            return {}
        return json.loads(value) if isinstance(value, (str, bytes)) else value

    # ------------------------------------------------------------------ plumbing
    @contextmanager
    def _tx(self) -> Iterator[Any]:
        """One transaction: commit on success, roll back on any error, never half a write."""
        with self._lock:
            conn = self._conn()
            cur = conn.cursor()
            try:
                yield cur
                conn.commit()
            except BaseException as exc:
                try:
                    conn.rollback()
                finally:
                    self._on_error(exc)
                raise
            finally:
                cur.close()

    def _q(self, sql: str) -> str:
        return sql if self.ph == "?" else sql.replace("?", self.ph)

    def _fetch(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        with self._tx() as cur:
            cur.execute(self._q(sql), tuple(params))
            return list(cur.fetchall())

    def _marks(self, n: int) -> str:
        return ",".join(["?"] * n)

    @property
    def _user_col(self) -> str:
        """`user_id` as a filter that must not pick the index. SQLite's planner, on sampled
        statistics, prefers the low-selectivity (user_id) index over the memory-id indexes of
        an `IN` list; `+user_id` (a no-op for the value) rules that index out. MySQL chooses
        from its own statistics and gets the plain column."""
        return self._user_of("")

    def _user_of(self, alias: str) -> str:
        """`_user_col` of the table named `alias` in a join."""
        column = f"{alias}.user_id" if alias else "user_id"
        return f"+{column}" if self.backend == "sqlite" else column

    @property
    def _ignore(self) -> str:
        return "INSERT IGNORE" if self.backend == "mysql" else "INSERT OR IGNORE"

    def _row_to_memory(self, r: Sequence[Any]) -> Memory:
        """A `memories` row (MEMORY_COLUMNS) as a Memory. A search turns 50-200 rows into
        memories, so this is kept cheap: enum members are looked up in a dict (an Enum call
        costs 0.4 us), and `_dt_out` and `_json_out` have fast paths for the common values."""
        dt = self._dt_out
        return Memory(
            id=r[0],
            user_id=r[1],
            session_id=r[2],
            content=r[3],
            summary=r[4] or "",
            memory_type=_member(_MEMORY_TYPES, MemoryType, r[5]),
            source=_member(_SOURCES, Source, r[6]),
            confidence=float(r[7]),
            metadata=self._json_out(r[8]) or {},
            access_count=int(r[9]),
            last_access_at=dt(r[10]),
            decay_score=float(r[11]),
            status=_member(_STATUSES, Status, r[12]),
            expires_at=dt(r[13]),
            created_at=dt(r[14]),  # type: ignore[arg-type]
            updated_at=dt(r[15]),  # type: ignore[arg-type]
            valid_from=dt(r[16]),
            valid_to=dt(r[17]),
            slot=r[18],
            seq=int(r[19]),
            agent_id=r[20],
            run_id=r[21],
            kind=_member(_KINDS, Kind, r[22]),
        )

    def _where(
        self, q: RecordQuery, alias: str = "", user_index: bool = True
    ) -> tuple[str, list[Any]]:
        """The query's conditions as SQL. `user_index=False` (SQLite only) writes the user's
        condition as `+user_id`, which no index may serve: the rows then come from another
        condition (the metadata rows of a listing, graphmem.stores.records.sqlite_meta)."""
        a = f"{alias}." if alias else ""
        clauses = [f"{'' if user_index else '+'}{a}user_id = ?"]
        params: list[Any] = [q.user_id]
        if q.statuses:
            clauses.append(f"{a}status IN ({self._marks(len(q.statuses))})")
            params.extend(q.statuses)
        if q.memory_type:
            clauses.append(f"{a}memory_type = ?")
            params.append(q.memory_type)
        if q.created_after is not None:
            clauses.append(f"{a}created_at >= ?")
            params.append(self._dt_in(q.created_after))
        if q.created_before is not None:
            clauses.append(f"{a}created_at < ?")
            params.append(self._dt_in(q.created_before))
        if q.valid_at is not None:
            at = self._dt_in(q.valid_at)
            clauses.append(
                f"COALESCE({a}valid_from, {a}created_at) <= ?"
                f" AND ({a}valid_to IS NULL OR {a}valid_to > ?)"
            )
            params.extend([at, at])
        f = q.filter
        for column, op, value in (
            ("session_id", "=", f.session_id),
            ("agent_id", "=", f.agent_id),
            ("run_id", "=", f.run_id),
            ("confidence", ">=", f.min_confidence),
        ):
            if value is not None:
                clauses.append(f"{a}{column} {op} ?")
                params.append(value)
        if f.kinds is not None:
            clauses.append(f"{a}kind IN ({self._marks(len(f.kinds))})")
            params.extend(f.kinds)
        if f.sources is not None:
            clauses.append(f"{a}source IN ({self._marks(len(f.sources))})")
            params.extend(f.sources)
        for cond in f.metadata:
            ors = [self._meta_equals(f"{a}metadata", cond.key, v) for v in cond.values]
            clauses.append("(" + " OR ".join(sql for sql, _ in ors) + ")")
            for _, ps in ors:
                params.extend(ps)
        return " AND ".join(clauses), params

    def _meta_equals(self, column: str, key: str, value: Scalar) -> tuple[str, list[Any]]:
        """SQL true when the JSON object in `column` holds `value` at top-level `key`, with the
        typing of graphmem.domain.filters.same_value (no bool/number/string coercion). The key is a
        bound parameter; graphmem.domain.filters rejects keys with quotes or backslashes."""
        raise NotImplementedError

    def _outbox_rows(
        self, cur: Any, rows: list[tuple[str, str, str]], target: str = "vectors,graph"
    ) -> None:
        """Queue projections; `target` lists the projections the row must reach."""
        now = self._dt_in(utcnow())
        cur.executemany(
            self._q(
                "INSERT INTO outbox (user_id, memory_id, op, target, attempts, next_attempt_at,"
                " created_at) VALUES (?, ?, ?, ?, 0, ?, ?)"
            ),
            [(u, m, op, target, now, now) for u, m, op in rows],
        )
