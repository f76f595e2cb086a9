"""Outbox projector: applies committed record changes to the vector index and the graph.

The records transaction is the commit point. A write is acknowledged once its row and its outbox
row are committed; if a projection store is down at that moment, the outbox row stays and is
applied later, with exponential backoff, so no memory is lost and none is left orphaned.
An outbox row names the projections it still has to reach (`target`, e.g. "vectors,graph"):
when one store is down and the other up, the row is narrowed to the one that failed.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from datetime import timedelta
from typing import Protocol

import numpy as np

from graphmem.domain.model import Memory, utcnow
from graphmem.embedding import Embedder
from graphmem.errors import BusyError
from graphmem.infra import metrics
from graphmem.service.breaker import Breaker
from graphmem.stores.graph import GraphStore, graph_edge, graph_node
from graphmem.stores.records import (
    GraphTables,
    MemoryRecords,
    OutboxItem,
    RecordsStore,
)
from graphmem.stores.vectors import VectorStore, vector_point

log = logging.getLogger("graphmem.projection")

MAX_BACKOFF_SECONDS = 300.0


class ImageProjection(Protocol):
    """The image channel's index (graphmem.images.channel), projected with the text vectors:
    its points follow their memories' status and go when they go."""

    def project(self, rows: Iterable[Memory]) -> int: ...

    def delete(self, memory_ids: list[str]) -> None: ...


class GraphSource(MemoryRecords, GraphTables, Protocol):
    """What the graph projection reads: memory rows, their entities and their relations."""


def sync_graph(records: GraphSource, graph: GraphStore, user_id: str, ids: list[str]) -> None:
    """Make the graph's copy of these memories (nodes, entities, edges) match the records."""
    rows = records.get(user_id, list(dict.fromkeys(ids)))
    gone = [i for i in ids if i not in rows]
    if gone:
        graph.delete(gone)
    if not rows:
        return
    ents = records.entities_for(user_id, list(rows))
    rels = records.relations_for(user_id, list(rows))
    graph.sync(
        [graph_node(m, ents.get(m.id)) for m in rows.values()],
        [graph_edge(r) for r in rels],
    )


def projects_into(graph: GraphStore | None) -> bool:
    """Does graph work in the outbox reach this store? Not when it reads the records."""
    return graph is not None and graph.projected


@contextlib.contextmanager
def _unserialised(user_id: str, wait: bool) -> Iterator[bool]:
    yield True


def _targets(item: OutboxItem) -> list[str]:
    return [t for t in item.target.split(",") if t]


class Projector:
    def __init__(
        self,
        records: RecordsStore,
        vectors: VectorStore,
        embedder: Embedder,
        graph: GraphStore | None = None,
    ) -> None:
        self.records = records
        self.vectors = vectors
        self.embedder = embedder
        self.graph = graph
        self.breaker = Breaker()
        self.last_error: str | None = None
        # Set by the service: the user's write lock around projecting that user's rows, so a
        # drain never projects a state older than what a concurrent write (on this replica or
        # another) has projected. With `wait` false it yields False instead of waiting.
        self.serialise: Callable[[str, bool], AbstractContextManager[bool]] = _unserialised
        # Set by the service: a drain that projected a user's rows makes that user's cached
        # search results stale, like the write that queued them.
        self.on_projected: Callable[[str], None] = lambda user_id: None
        self.lease_seconds = 60.0
        # Set by the service when an image-text model is configured (images.image_model).
        self.images: ImageProjection | None = None

    def drain(
        self, limit: int = 1000, *, force: bool = False, wait: bool = True
    ) -> tuple[int, int]:
        """Apply every due outbox row (every row with `force`); returns (applied, failed).

        Rows are claimed for `lease_seconds` first, so replicas draining at once share the
        work instead of doubling it; a user whose lock is taken (by a write that projects its
        own rows) is left to that write when `wait` is false. Never raises for store errors:
        they are recorded on the rows and retried later.
        """
        applied = failed = 0
        if force:
            self.breaker.reset()
        while True:
            due_by = utcnow() + timedelta(seconds=MAX_BACKOFF_SECONDS * 2) if force else utcnow()
            items = self.records.outbox_claim(limit, due_by, self.lease_seconds)
            if not items:
                return applied, failed
            ok, bad = self._project_claimed(items, wait)
            applied += ok
            failed += bad
            if bad or len(items) < limit:
                return applied, failed

    def _project_claimed(self, items: list[OutboxItem], wait: bool) -> tuple[int, int]:
        """Project claimed rows one user at a time, under that user's lock, skipping rows that
        the write holding the lock before us has already applied and deleted."""
        by_user: dict[str, list[OutboxItem]] = {}
        for it in items:
            by_user.setdefault(it.user_id, []).append(it)
        applied = failed = 0
        for user_id, rows in by_user.items():
            try:
                with self.serialise(user_id, wait) as mine:
                    if not mine:  # a write of this user is on; the next drain takes the rest
                        self.records.outbox_release([it.id for it in rows])
                        continue
                    live = self.records.outbox_pending([it.id for it in rows])
                    ok, bad = self._project([it for it in rows if it.id in live], {})
                    if ok:
                        self.on_projected(user_id)
            except BusyError as e:
                log.warning("outbox rows of a busy user left for later: %s", e)
                self.records.outbox_release([it.id for it in rows])
                continue
            applied += ok
            failed += bad
        return applied, failed

    def apply(
        self, items: list[OutboxItem], known: dict[str, np.ndarray] | None = None
    ) -> tuple[int, int]:
        """Project a batch, then every other outbox row that is due; returns (applied, failed).

        `known` holds vectors the caller already has, so none is re-embedded. The sweep is
        what keeps the outbox empty while the stores are up: a transaction queues rows for
        more memories than its caller hands over (a merge re-points its neighbours' edges and
        queues their graph rows), and those used to wait for the next restart. When this
        batch failed a store is down, so the rest waits for its backoff instead.
        """
        ok, bad = self._project(items, known or {})
        if bad:
            return ok, bad
        more, failed = self.drain(wait=False)  # the caller holds a write lock: never wait here
        return ok + more, failed

    def _project(self, items: list[OutboxItem], known: dict[str, np.ndarray]) -> tuple[int, int]:
        """Project exactly these rows: done ones are deleted, failed ones retried later."""
        errors: dict[str, str] = {}
        for target, fn in (("vectors", self._apply), ("graph", self._apply_graph)):
            subset = [it for it in items if target in _targets(it)]
            if not subset or (target == "graph" and not projects_into(self.graph)):
                continue
            if not self.breaker.allow(target):
                errors[target] = f"{target}: store down, retrying later"
                continue
            try:
                fn(subset, known)
                self.breaker.ok(target)
            except Exception as e:  # noqa: BLE001 - any store failure is retried later
                self.breaker.failed(target)
                errors[target] = f"{target}: {type(e).__name__}: {e}"
                metrics.store_error(target, "project")
                log.warning(
                    "%s projection of %d outbox rows failed, will retry: %s", target, len(subset), e
                )
        done, failed = [], 0
        now = utcnow()
        for it in items:
            left = [t for t in _targets(it) if t in errors]
            if not left:
                done.append(it.id)
                continue
            failed += 1
            delay = min(MAX_BACKOFF_SECONDS, 0.5 * 2**it.attempts)
            self.records.outbox_retry_later(
                it.id,
                "; ".join(errors[t] for t in left),
                now + timedelta(seconds=delay),
                target=",".join(left),
            )
        self.last_error = "; ".join(errors.values()) or None
        self.records.outbox_done(done)
        return len(done), failed

    def _apply_graph(self, items: list[OutboxItem], known: dict[str, np.ndarray]) -> None:
        assert self.graph is not None
        for it in items:
            if it.op == "erase_user":
                self.graph.delete_user(it.user_id)
        items = [it for it in items if it.op != "erase_user"]
        deletes = [it for it in items if it.op == "delete"]
        if deletes:
            self.graph.delete([it.memory_id for it in deletes])
            self.graph.prune_entities(sorted({it.user_id for it in deletes}))
        by_user: dict[str, list[str]] = {}
        for it in items:
            if it.op != "delete":
                by_user.setdefault(it.user_id, []).append(it.memory_id)
        for user_id, ids in by_user.items():
            sync_graph(self.records, self.graph, user_id, ids)

    def _apply(self, items: list[OutboxItem], known: dict[str, np.ndarray]) -> None:
        by_user: dict[str, list[str]] = {}
        deletes: list[str] = []
        for it in items:
            if it.op == "erase_user":
                self.vectors.delete_user(it.user_id)
            elif it.op == "delete":
                deletes.append(it.memory_id)
            elif it.op == "relations":
                continue  # edges only: nothing for the vector index
            else:
                by_user.setdefault(it.user_id, []).append(it.memory_id)
        if deletes:
            self.vectors.delete(deletes)
            if self.images is not None:
                self.images.delete(deletes)
        for user_id, ids in by_user.items():
            rows = self.records.get(user_id, list(dict.fromkeys(ids)))
            gone = [i for i in ids if i not in rows]
            if gone:  # deleted after this row was queued: the point must not exist
                self.vectors.delete(gone)
                if self.images is not None:
                    self.images.delete(gone)
            todo = [m for m in rows.values() if m.id not in known]
            fresh: np.ndarray | list[np.ndarray] = (
                self.embedder.encode([m.content for m in todo]) if todo else []
            )
            vecs = dict(known)
            vecs.update({m.id: v for m, v in zip(todo, fresh, strict=True)})
            self.vectors.upsert([vector_point(m, vecs[m.id]) for m in rows.values()])
            if self.images is not None:  # after the text vectors: a failure retries both
                self.images.project(rows.values())
