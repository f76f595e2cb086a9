"""Outbox projector: applies committed record changes to the vector index, with retries.

The records transaction is the commit point. A write is acknowledged once its row and its outbox
row are committed; if the vector store is down at that moment, the outbox row stays and is
applied later, with exponential backoff, so no memory is lost and none is left orphaned.
"""

from __future__ import annotations

import logging
from datetime import timedelta

import numpy as np

from graphmem.embedder import Embedder
from graphmem.model import Memory, utcnow
from graphmem.stores.records import OutboxItem, RecordsStore
from graphmem.stores.vectors import VectorPoint, VectorStore

log = logging.getLogger("graphmem.projection")

MAX_BACKOFF_SECONDS = 300.0


def vector_point(m: Memory, vec: np.ndarray) -> VectorPoint:
    return VectorPoint(
        memory_id=m.id,
        vector=vec,
        user_id=m.user_id,
        memory_type=m.memory_type.value,
        status=m.status.value,
        created_at=m.created_at.timestamp(),
        session_id=m.session_id,
    )


class Projector:
    def __init__(self, records: RecordsStore, vectors: VectorStore, embedder: Embedder) -> None:
        self.records = records
        self.vectors = vectors
        self.embedder = embedder
        self.last_error: str | None = None

    def drain(self, limit: int = 1000, *, force: bool = False) -> tuple[int, int]:
        """Apply every due outbox row (every row with `force`); returns (applied, failed).

        Never raises for store errors: they are recorded on the rows and retried later.
        """
        applied = failed = 0
        while True:
            due_by = utcnow() + timedelta(seconds=MAX_BACKOFF_SECONDS * 2) if force else utcnow()
            items = self.records.outbox_due(limit, due_by)
            if not items:
                return applied, failed
            ok, bad = self.apply(items)
            applied += ok
            failed += bad
            if bad or len(items) < limit:
                return applied, failed

    def apply(
        self, items: list[OutboxItem], known: dict[str, np.ndarray] | None = None
    ) -> tuple[int, int]:
        """Project a batch; `known` holds vectors the caller already has, so none is re-embedded."""
        known = known or {}
        try:
            self._apply(items, known)
        except Exception as e:  # noqa: BLE001 - any store failure is retried later
            self.last_error = f"{type(e).__name__}: {e}"
            log.warning("projection of %d outbox rows failed, will retry: %s", len(items), e)
            now = utcnow()
            for it in items:
                delay = min(MAX_BACKOFF_SECONDS, 0.5 * 2**it.attempts)
                self.records.outbox_retry_later(
                    it.id, self.last_error, now + timedelta(seconds=delay)
                )
            return 0, len(items)
        self.last_error = None
        self.records.outbox_done([it.id for it in items])
        return len(items), 0

    def _apply(self, items: list[OutboxItem], known: dict[str, np.ndarray]) -> None:
        by_user: dict[str, list[str]] = {}
        deletes: list[str] = []
        for it in items:
            if it.op == "delete":
                deletes.append(it.memory_id)
            else:
                by_user.setdefault(it.user_id, []).append(it.memory_id)
        if deletes:
            self.vectors.delete(deletes)
        for user_id, ids in by_user.items():
            rows = self.records.get(user_id, list(dict.fromkeys(ids)))
            gone = [i for i in ids if i not in rows]
            if gone:  # deleted after this row was queued: the point must not exist
                self.vectors.delete(gone)
            todo = [m for m in rows.values() if m.id not in known]
            fresh = self.embedder.encode([m.content for m in todo]) if todo else []
            vecs = dict(known)
            vecs.update({m.id: v for m, v in zip(todo, fresh, strict=True)})
            self.vectors.upsert([vector_point(m, vecs[m.id]) for m in rows.values()])
