"""What every use-case works with: the stores, the models and the shared state of one service.

`MemoryService` builds one `Context` and hands it to the use-cases (graphmem.usecases); they
never see the service, so the facade can call them and they can call each other without an
import cycle. Everything a use-case shares with another one lives here and is public: the write
lock, the projector and its breaker, cache invalidation, the access counts, search statistics.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Concatenate, Generic, ParamSpec, Protocol, TypeVar, overload

import numpy as np

from graphmem.domain.linking import Linker
from graphmem.domain.model import Memory, utcnow
from graphmem.domain.summary import SummaryVectors
from graphmem.domain.text import forget_derived
from graphmem.embedding import Embedder
from graphmem.embedding.base import own
from graphmem.extractors import Extractor
from graphmem.guard import Guard
from graphmem.guard.vault import Vault
from graphmem.images import ImageChannel, ImageStore
from graphmem.infra import metrics, tracing
from graphmem.service.breaker import Breaker
from graphmem.service.projection import Projector
from graphmem.settings import Settings
from graphmem.stores import (
    GraphStore,
    RecordsStore,
    ResultCache,
    VectorStore,
    shared_working_purger,
)
from graphmem.stores.erase_notices import EraseNotices, EraseWatcher
from graphmem.stores.records import MemoryRecords
from graphmem.stores.records.locks import user_lock
from graphmem.usecases.ports import Purger, SearchStats
from graphmem.usecases.versions import Temporal

log = logging.getLogger("graphmem.context")


def default_purgers(
    cache: ResultCache, guard: Guard, s: Settings, images: ImageStore
) -> dict[str, Purger]:
    """What erasure must also empty: the user's cached results (entries and the version key,
    which names the user), their image files and, when shared in Redis, their rate-limit
    buckets and their working memory. Working memory in Redis outlives the MCP server that
    wrote it, so the service itself reaches it: a `graphmem forget-user` from the CLI erases
    what a server's `working_memory_set` kept (a running server swaps in its own store for the
    same keys)."""
    out: dict[str, Purger] = {"search_cache": (cache.purge, cache.count)}
    # the bytes, thumbnails and OCR text of their images, wherever images.store keeps them
    out["images"] = (images.purge_user, images.count_user)
    limiter = guard.limiter
    delete, count = getattr(limiter, "delete_user", None), getattr(limiter, "count_user", None)
    if delete is not None and count is not None:  # the in-process buckets hold no user id
        out["rate_limits"] = (delete, count)
    shared = shared_working_purger(s.working.backend, s.redis_url)
    if shared is not None:
        out["working_memory"] = shared
    if s.redis_url:  # replicas: the others drop their in-process caches (stores.erase_notices)
        notices = EraseNotices(s.redis_url)
        out["replica_notice"] = (lambda _user: notices.announce() and 1, lambda _user: 0)
    return out


class AccessTracker:
    """Buffers access counts so a search never pays one synchronous write per hit."""

    def __init__(self, records: MemoryRecords, every: int, seconds: float) -> None:
        self.records = records
        self.every = every
        self.seconds = seconds
        self._counts: Counter[tuple[str, str]] = Counter()
        self._since = time.monotonic()
        self._lock = threading.Lock()

    def add(self, user_id: str, memory_ids: Iterable[str]) -> None:
        with self._lock:
            for m in memory_ids:
                self._counts[(user_id, m)] += 1
            due = len(self._counts) >= self.every or time.monotonic() - self._since >= self.seconds
        if due:
            self.flush()

    def flush(self) -> None:
        with self._lock:
            counts, self._counts = self._counts, Counter()
            self._since = time.monotonic()
        if counts:
            try:
                self.records.record_access(dict(counts), utcnow())
            except Exception as e:  # noqa: BLE001 - stats are best-effort, recall must not fail
                log.warning("could not record %d access counts: %s", len(counts), e)
                metrics.store_error("records", "access_stats")


@dataclass
class Context:
    settings: Settings
    records: RecordsStore
    vectors: VectorStore
    graph: GraphStore
    cache: ResultCache
    embedder: Embedder
    extractor: Extractor
    guard: Guard
    linker: Linker
    projector: Projector
    access: AccessTracker
    summaries: SummaryVectors
    temporal: Temporal
    purgers: dict[str, Purger]
    vault: Vault  # the secrets the PII policy takes out of memories (graphmem.guard.vault)
    images: ImageStore  # the images' bytes, thumbnails and OCR text (graphmem.images.port)
    # images and queries in one space, when images.image_model is set (graphmem.images.channel)
    image_channel: ImageChannel | None = None
    write_lock: threading.RLock = field(default_factory=threading.RLock)
    search_stats: SearchStats = field(default_factory=SearchStats)
    next_drain: float = 0.0  # monotonic time before which a lagging outbox is not retried

    def __post_init__(self) -> None:
        tracing.configure(self.settings)  # off by default; on, once per process
        self.projector.serialise = self.serialised
        self.projector.on_projected = self.invalidate
        self.projector.lease_seconds = self.settings.writes.outbox_lease_seconds
        if self.image_channel is not None:  # projected with the text vectors, erased with them
            self.projector.images = self.image_channel
            chan = self.image_channel
            self.purgers.setdefault("image_vectors", (chan.purge_user, chan.count_user))

    @property
    def merge_similarity(self) -> float:
        """The merge cosine: the setting, else the embedding model's own (embedding.base.own)."""
        return own(self.settings.lifecycle.merge_similarity, self.embedder.merge_similarity)

    @property
    def forget_similarity(self) -> float:
        """The forget-by-query cosine: the setting, else the embedding model's own."""
        return own(self.settings.lifecycle.forget_similarity, self.embedder.forget_similarity)

    @property
    def breaker(self) -> Breaker:
        return self.projector.breaker

    def writing(self, user_id: str) -> contextlib.AbstractContextManager[None]:
        """Hold the user's write lock: on every replica of the records store (MySQL), so two
        writes of one user never plan against the same old state. Taken before `write_lock`,
        never inside it: a thread waiting for another replica must not stall this process."""
        return self.records.locks.hold(
            user_lock(user_id), self.settings.writes.write_lock_timeout_seconds
        )

    @contextlib.contextmanager
    def serialised(self, user_id: str, wait: bool = True) -> Iterator[bool]:
        """The user's lock, then the process's write lock: the one way every use-case that
        changes a user's memories (write, update, forget, merge, review, import, erase) and
        the drain that projects their rows take both, always in this order. Without `wait` it
        yields False at once when another thread or replica holds the user's lock (a drain
        inside a write must not wait for a lock while holding one)."""
        if wait:
            with self.writing(user_id), self.write_lock:
                yield True
            return
        with self.records.locks.try_hold(user_lock(user_id)) as mine:
            if not mine:
                yield False
                return
            with self.write_lock:
                yield True

    def invalidate(self, user_id: str) -> None:
        """A user's write, update or forget makes every cached result of theirs stale."""
        try:
            self.cache.invalidate(user_id)
        except Exception as e:  # noqa: BLE001 - entries expire by TTL if Redis is down now
            log.warning("could not invalidate the search cache for a user: %s", e)
            metrics.store_error("cache", "invalidate")
        forget = getattr(self.graph, "forget_user", None)  # the walk's prepared adjacency
        if forget is not None:
            forget(user_id)

    def forget_text_caches(self) -> int:
        """Empty this process's caches keyed by what users wrote, which cannot be purged by
        user: the summary vectors and the text-derived ranking caches
        (graphmem.domain.text.forget_derived). Returns the entries dropped."""
        return self.summaries.forget_all() + forget_derived()

    def forget_everyone_cached(self) -> int:
        """All of the above, every user's cached query embeddings and the walk's prepared
        adjacencies: after another replica erased a user this process cannot name."""
        forget = getattr(self.graph, "forget_all", None)
        graph = forget() if forget is not None else 0
        return graph + self.embedder.forget_all() + self.forget_text_caches()

    def erase_watcher(self) -> EraseWatcher | None:
        """With replicas (a shared Redis), the tick that drops this process's caches when
        another replica erases a user; None for a lone embedded store."""
        if not self.settings.redis_url:
            return None
        return EraseWatcher(EraseNotices(self.settings.redis_url), self.forget_everyone_cached)

    def close(self) -> None:
        """Flush the buffered access counts, then close every store: the graph first, whose
        background build of a walk's adjacency reads the records (stores/graph/prepared.py)."""
        self.access.flush()
        self.graph.close()
        self.records.close()
        self.vectors.close()
        if self.image_channel is not None:
            self.image_channel.close()
        self.cache.close()

    def drain_outbox(self, *, force: bool = True) -> tuple[int, int]:
        """Apply pending projections now, backoff or not; calls retry due ones on their own.
        Each user's rows are projected under that user's lock (Projector.serialise)."""
        applied, failed = self.projector.drain(force=force)
        self.next_drain = time.monotonic() + (2.0 if failed else 0.0)
        return applied, failed

    def maybe_drain(self) -> None:
        """Catch up a lagging projection before a read, at most every couple of seconds."""
        if self.projector.last_error is not None and time.monotonic() >= self.next_drain:
            self.drain_outbox(force=False)

    def project(self, memories: list[Memory], vecs: np.ndarray) -> None:
        """Project freshly committed memories with the vectors the caller already has."""
        known = {m.id: v for m, v in zip(memories, vecs, strict=True)}
        items = self.records.outbox_for(list(known))
        _, failed = self.projector.apply(items, known)
        if failed:
            self.next_drain = time.monotonic() + 1.0

    def stored_vectors(self, ids: list[str]) -> dict[str, np.ndarray]:
        """Vectors already in the index: a status change need not re-embed the content."""
        try:
            return self.vectors.vectors(ids)
        except Exception as e:  # noqa: BLE001 - the projector re-embeds what is missing
            log.warning("could not read stored vectors for a merge: %s", e)
            return {}


__all__ = ["AccessTracker", "Context", "Purger", "SearchStats", "default_purgers"]


T = TypeVar("T")


class HasContext(Protocol):
    context: Context


class FromContext(Generic[T]):
    """A read-only attribute of the service that is its Context's: `svc.records` is
    `svc.context.records`, `svc.latencies_ms` is `svc.context.search_stats.latencies_ms`."""

    def __init__(self, path: str) -> None:
        self.path = path.split(".")

    @overload
    def __get__(self, svc: None, owner: type | None = None) -> FromContext[T]: ...
    @overload
    def __get__(self, svc: HasContext, owner: type | None = None) -> T: ...
    def __get__(self, svc: HasContext | None, owner: type | None = None) -> Any:
        if svc is None:
            return self
        value: Any = svc.context
        for name in self.path:
            value = getattr(value, name)
        return value

    def __set__(self, svc: HasContext, value: object) -> None:
        raise AttributeError(f"{'.'.join(self.path)} is the context's, read-only here")


P = ParamSpec("P")


class WithContext(Generic[P, T]):
    """A method of the service that is one use-case called with its Context:
    `svc.observe(user, turns)` is `turns.observe(svc.context, user, turns)`. For the calls that
    pass their arguments through unchanged, so the facade declares them in one line each (the
    use-case's own signature and docstring are the method's) and an interface never has to
    reach for the context to make them (tests/packaging/test_architecture.py)."""

    def __init__(self, use_case: Callable[Concatenate[Context, P], T]) -> None:
        self.use_case = use_case
        self.__doc__ = use_case.__doc__

    @overload
    def __get__(self, svc: None, owner: type | None = None) -> WithContext[P, T]: ...
    @overload
    def __get__(self, svc: HasContext, owner: type | None = None) -> Callable[P, T]: ...
    def __get__(self, svc: HasContext | None, owner: type | None = None) -> Any:
        if svc is None:
            return self
        return functools.partial(self.use_case, svc.context)
