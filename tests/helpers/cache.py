"""Services that share their stores, each with its own search cache."""

from __future__ import annotations

from graphmem import MemoryService, Settings
from graphmem.embedding import Embedder
from graphmem.stores.cache import ResultCache


def services_sharing_stores(
    settings: Settings, embedder: Embedder, cache_a: ResultCache, cache_b: ResultCache
) -> tuple[MemoryService, MemoryService]:
    """Two services on the same records, vectors and graph, each with its own cache object."""
    a = MemoryService(settings, embedder=embedder, cache=cache_a)
    b = MemoryService(
        settings,
        embedder=embedder,
        records=a.records,
        vectors=a.vectors,
        graph=a.graph_store,
        cache=cache_b,
    )
    return a, b
