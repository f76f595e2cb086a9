"""The outbox table: projections queued with the records, claimed and applied by drains.

A row is written in the same transaction as the records change it projects, so nothing
committed is ever missing from the queue. Several server replicas drain one queue: a drain
claims its rows (SELECT ... FOR UPDATE SKIP LOCKED, then a lease) so that no two replicas
apply the same row at once, and rows of a replica that dies mid-drain fall due again.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from graphmem.domain.model import utcnow
from graphmem.stores.records.base import SQLBase, chunks
from graphmem.stores.records.rows import OutboxItem


class SQLOutbox(SQLBase):
    def outbox_due(self, limit: int, now: datetime) -> list[OutboxItem]:
        rows = self._fetch(
            "SELECT id, user_id, memory_id, op, attempts, target FROM outbox"
            f" WHERE next_attempt_at <= ? ORDER BY id LIMIT {int(limit)}",
            (self._dt_in(now),),
        )
        return [OutboxItem(int(r[0]), r[1], r[2], r[3], int(r[4]), r[5]) for r in rows]

    _skip_locked = ""  # MySQL/MariaDB: rows another transaction is claiming are passed over

    def outbox_claim(self, limit: int, due_by: datetime, lease_seconds: float) -> list[OutboxItem]:
        """Take up to `limit` rows due by `due_by` and push them out of everyone else's due
        set for `lease_seconds`, in one transaction: two replicas draining at once get
        disjoint rows, and rows of a replica that dies mid-drain fall due after the lease."""
        with self._tx() as cur:
            cur.execute(
                self._q(
                    # In due order, along ix_outbox_due: the scan stops after `limit` rows,
                    # so a claim locks only what it takes (ORDER BY id sorted every due
                    # row first, locking them all, and the other replicas found none).
                    "SELECT id, user_id, memory_id, op, attempts, target FROM outbox"
                    " WHERE next_attempt_at <= ? ORDER BY next_attempt_at, id"
                    f" LIMIT {int(limit)}" + self._skip_locked
                ),
                (self._dt_in(due_by),),
            )
            rows = cur.fetchall()
            until = utcnow() + timedelta(seconds=lease_seconds)
            self._due_at(cur, [int(r[0]) for r in rows], until)
        return [OutboxItem(int(r[0]), r[1], r[2], r[3], int(r[4]), r[5]) for r in rows]

    def outbox_release(self, ids: list[int]) -> None:
        """Hand claimed rows back, due now: a drain that could not take their user's lock
        must not hold them for a whole lease."""
        with self._tx() as cur:
            self._due_at(cur, ids, utcnow())

    def _due_at(self, cur: Any, ids: list[int], when: datetime) -> None:
        at = self._dt_in(when)
        for chunk in chunks(ids, 500):
            marks = self._marks(len(chunk))
            cur.execute(
                self._q(f"UPDATE outbox SET next_attempt_at = ? WHERE id IN ({marks})"),
                (at, *chunk),
            )

    def outbox_pending(self, ids: list[int]) -> set[int]:
        """Which of these rows are still queued (not applied and deleted by someone else)."""
        out: set[int] = set()
        for chunk in chunks(ids, 500):
            marks = self._marks(len(chunk))
            rows = self._fetch(f"SELECT id FROM outbox WHERE id IN ({marks})", chunk)
            out.update(int(r[0]) for r in rows)
        return out

    def outbox_for(self, memory_ids: list[str]) -> list[OutboxItem]:
        out: list[OutboxItem] = []
        for i in range(0, len(memory_ids), 500):
            chunk = memory_ids[i : i + 500]
            rows = self._fetch(
                "SELECT id, user_id, memory_id, op, attempts, target FROM outbox"
                f" WHERE memory_id IN ({self._marks(len(chunk))}) ORDER BY id",
                chunk,
            )
            out.extend(OutboxItem(int(r[0]), r[1], r[2], r[3], int(r[4]), r[5]) for r in rows)
        return out

    def outbox_done(self, ids: list[int]) -> None:
        if not ids:
            return
        with self._tx() as cur:
            for i in range(0, len(ids), 500):
                chunk = ids[i : i + 500]
                cur.execute(
                    self._q(f"DELETE FROM outbox WHERE id IN ({self._marks(len(chunk))})"), chunk
                )

    def outbox_retry_later(
        self, item_id: int, error: str, next_attempt_at: datetime, target: str | None = None
    ) -> None:
        with self._tx() as cur:
            cur.execute(
                self._q(
                    "UPDATE outbox SET attempts = attempts + 1, last_error = ?,"
                    " next_attempt_at = ?, target = COALESCE(?, target) WHERE id = ?"
                ),
                (error[:500], self._dt_in(next_attempt_at), target, item_id),
            )

    def outbox_count(self) -> int:
        return int(self._fetch("SELECT COUNT(*) FROM outbox")[0][0])

    def outbox_oldest(self) -> datetime | None:
        """When the oldest unprojected row was queued: how far projection lags behind."""
        return self._dt_out(self._fetch("SELECT MIN(created_at) FROM outbox")[0][0])
