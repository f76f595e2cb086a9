"""The doors of the use-cases: what each group of them may reach of the service's state.

A use-case never receives the service, nor the service's whole `Context`
(graphmem.service.context): it receives one of these protocols, which names only the stores,
models and shared state that group of use-cases reads. The service's `Context` satisfies every
one of them structurally, so the facade still hands its one context to every call; but a
use-case's signature says which door it uses, mypy rejects a use-case reaching for anything
behind another door, and a test (or another caller) can hand a use-case exactly what it
names. The doors are few and nested, from the narrowest (the records and the settings) to the
write pipeline's; see docs/architecture.md for which use-case takes which.

Everything a door names lives in this layer or below it: the shared state the service owns
(the projector, the circuit breaker, the access counts) is described here by what a use-case
calls on it, so no use-case imports the service.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from graphmem.domain.linking import Linker
from graphmem.domain.model import Memory
from graphmem.domain.summary import SummaryVectors
from graphmem.embedding import Embedder
from graphmem.extractors import Extractor
from graphmem.guard import Guard
from graphmem.guard.vault import Vault
from graphmem.images import ImageChannel, ImageStore
from graphmem.infra.metrics import LatencyRecorder
from graphmem.settings import Settings
from graphmem.stores import GraphStore, RecordsStore, ResultCache, VectorStore
from graphmem.usecases.versions import Projection, Temporal

# Extra stores (working memory, result caches) register a purge and a residue count, so erasing
# a user reaches them too.
Purger = tuple[Callable[[str], int], Callable[[str], int]]


class AccessCounts(Protocol):
    """The buffered access counts (the service's AccessTracker): a search adds what it showed,
    a listing or a lifecycle pass flushes them first so it reads the latest."""

    def add(self, user_id: str, memory_ids: Iterable[str]) -> None: ...

    def flush(self) -> None: ...


class CircuitBreaker(Protocol):
    """The projection stores' circuit breaker (graphmem.service.breaker), as recall uses it:
    skip a store that failed a moment ago, and say how a call to it went."""

    def allow(self, store: str) -> bool: ...

    def ok(self, store: str) -> None: ...

    def failed(self, store: str) -> None: ...


@dataclass
class SearchStats:
    """Search-result cache hits and misses and recall latencies, for `stats` and /metrics."""

    cache_hits: int = 0
    cache_misses: int = 0
    latencies_ms: LatencyRecorder = field(default_factory=lambda: LatencyRecorder(10_000))

    @property
    def cache_hit_rate(self) -> float:
        total = self.cache_hits + self.cache_misses
        return self.cache_hits / total if total else 0.0


class RecordsPorts(Protocol):
    """The records and the settings: lookups, listings, exports, the review queue, library
    grants, the keyword channel - every use-case that neither changes a memory nor needs a
    model. The other doors all open onto this one."""

    settings: Settings
    records: RecordsStore


class ReadPorts(RecordsPorts, Protocol):
    """Reads that count what they show, or must see every access counted so far (a listing
    sorted by access, a session's preload)."""

    @property
    def access(self) -> AccessCounts: ...


class VectorPorts(RecordsPorts, Protocol):
    """The vector index and the embedder beside the records: nearest memories of a text
    (update.similar, the fan-out of a query's parts), stored payloads rewritten."""

    embedder: Embedder
    vectors: VectorStore


class GraphPorts(RecordsPorts, Protocol):
    """The memory graph and the version history: a memory's neighbourhood and its versions,
    read after a lagging projection has caught up."""

    graph: GraphStore
    temporal: Temporal

    def maybe_drain(self) -> None: ...


class SearchPorts(ReadPorts, VectorPorts, GraphPorts, Protocol):
    """Recall: every channel (keyword, vector, summaries, graph walk, image), the result cache,
    the firewall's query screening, the breaker that skips a store that is down, and the
    statistics `stats` and /metrics report."""

    cache: ResultCache
    guard: Guard
    summaries: SummaryVectors
    image_channel: ImageChannel | None
    search_stats: SearchStats

    @property
    def breaker(self) -> CircuitBreaker: ...


class ImagePorts(RecordsPorts, Protocol):
    """Where the images' bytes, thumbnails and OCR text live, beside the records that point
    at them: an image read, saved, exported, restored or swept."""

    images: ImageStore


class ChangePorts(ImagePorts, Protocol):
    """A change to memories that are stored already - a status, a relation, a grant, a merge,
    a review, a forget - committed under the user's lock, projected, and the user's cached
    results invalidated. A forget sweeps the images no memory points at any more, so the
    image store is behind this door too."""

    temporal: Temporal

    @property
    def projector(self) -> Projection: ...

    def serialised(self, user_id: str, wait: bool = True) -> AbstractContextManager[bool]: ...

    def invalidate(self, user_id: str) -> None: ...

    def stored_vectors(self, ids: list[str]) -> dict[str, np.ndarray]: ...


class MergePorts(ChangePorts, VectorPorts, Protocol):
    """Finding and merging near-duplicates: on a write, and in a compaction."""

    @property
    def merge_similarity(self) -> float: ...


class WritePorts(MergePorts, Protocol):
    """The write pipeline: screening, embedding, extraction, linking, version planning, the
    vault, the commit and its projection, a merge. A write (memories, document chunks,
    observed turns, imports, a restore) needs nearly all of the context; this is its door
    because splitting it further would only split one pipeline's steps apart."""

    extractor: Extractor
    guard: Guard
    linker: Linker
    vault: Vault
    write_lock: threading.RLock

    @property
    def forget_similarity(self) -> float: ...

    def writing(self, user_id: str) -> AbstractContextManager[None]: ...

    def project(self, memories: list[Memory], vecs: np.ndarray) -> None: ...


class ImageWritePorts(WritePorts, Protocol):
    """An image written: the write pipeline, and the image channel that embeds the picture
    itself when an operator configured an image-text model."""

    image_channel: ImageChannel | None


class ErasePorts(ReadPorts, ImagePorts, Protocol):
    """Erasing a user or a library from every store: the records, vectors, graph and images,
    the purgers of the stores beside them, the caches, and the residue counted after."""

    embedder: Embedder
    vectors: VectorStore
    graph: GraphStore
    purgers: dict[str, Purger]

    @property
    def projector(self) -> Projection: ...

    def serialised(self, user_id: str, wait: bool = True) -> AbstractContextManager[bool]: ...

    def forget_text_caches(self) -> int: ...


class VaultPorts(RecordsPorts, Protocol):
    """The vault of secrets taken out of memories: revealed to their owner, or re-wrapped
    under a new key."""

    vault: Vault
    write_lock: threading.RLock


class UpkeepPorts(MergePorts, ReadPorts, Protocol):
    """Store-wide upkeep an operator or a background job runs: compaction, the relation
    backfill, a rebuild of the vector index, graph and image channel, the checks at open."""

    graph: GraphStore
    extractor: Extractor
    linker: Linker
    image_channel: ImageChannel | None
    write_lock: threading.RLock

    def drain_outbox(self, *, force: bool = True) -> tuple[int, int]: ...


__all__ = [
    "AccessCounts",
    "ChangePorts",
    "CircuitBreaker",
    "ErasePorts",
    "GraphPorts",
    "ImagePorts",
    "ImageWritePorts",
    "MergePorts",
    "Purger",
    "ReadPorts",
    "RecordsPorts",
    "SearchPorts",
    "SearchStats",
    "UpkeepPorts",
    "VaultPorts",
    "VectorPorts",
    "WritePorts",
]
