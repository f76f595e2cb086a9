"""One folder per kind of store, each with its port and its adapters side by side.

`records` (the source of truth: SQLite or MySQL), `vectors` (Qdrant Edge or a Qdrant server),
`graph` (read from the records, networkx or Neo4j), `cache` (search results), `working`
(per-session working memory) and `ratelimit` (token buckets): each has an embedded adapter, the
default, and a server one for production. The `open_*` factories pick the adapter from a
`<store>_backend` setting, so nothing above this package knows which database it talks to; an
adapter's driver is imported only when it is chosen. Stores that may use Redis share one
vocabulary (`resolve_backend`): `memory` (in-process), `redis` (the root `redis_url`), `auto`
(redis when redis_url is set, else memory).

Beside the folders, what several stores share: `private_files` (owner-only files and folders),
`id_hash` (the keyed hash that names a user without their id) and `redis_health`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from graphmem.errors import InvalidInputError
from graphmem.infra.extras import require_extra
from graphmem.stores.cache import ResultCache
from graphmem.stores.graph import GraphStore
from graphmem.stores.records import RecordsStore
from graphmem.stores.vectors import VectorFilter, VectorHit, VectorStore
from graphmem.stores.working import WorkingMemoryStore

if TYPE_CHECKING:
    from graphmem.settings import Settings

__all__ = [
    "GraphStore",
    "RecordsStore",
    "ResultCache",
    "VectorFilter",
    "VectorHit",
    "VectorStore",
    "WorkingMemoryStore",
    "open_cache",
    "open_graph",
    "open_image_vectors",
    "open_records",
    "open_vectors",
    "open_working",
    "shared_working_purger",
    "resolve_backend",
]


def resolve_backend(backend: str, redis_url: str | None) -> str:
    """The adapter a Redis-capable store's `<store>_backend` setting names: `auto` becomes
    redis when a Redis URL is configured (the production stack sets one), else memory (the
    embedded default needs no server); any other value is returned as it is."""
    if backend == "auto":
        return "redis" if redis_url else "memory"
    return backend


def open_records(settings: Settings) -> RecordsStore:
    if settings.records.backend == "mysql":
        from graphmem.stores.id_hash import IdHasher

        require_extra("pymysql", "mysql", "the MySQL records store")
        from graphmem.stores.records.mysql import MySQLRecords

        records = MySQLRecords(settings.records.mysql_url)
        # the key that names erased users in the audit log lives with the service's own files
        records.id_hasher = IdHasher.for_dir(settings.data_dir)
        return records
    from graphmem.stores.records.sqlite import SQLiteRecords

    return SQLiteRecords(settings.sqlite_path)


def open_cache(settings: Settings) -> ResultCache:
    from graphmem.stores.cache import InProcessCache, RedisCache

    backend = resolve_backend(settings.cache.backend, settings.redis_url)
    if backend == "redis":
        if not settings.redis_url:
            raise InvalidInputError("redis_url", "is required when the cache backend is redis")
        return RedisCache(settings.redis_url, settings.cache.ttl_seconds)
    return InProcessCache(settings.cache.ttl_seconds)


def open_graph(settings: Settings, records: RecordsStore) -> GraphStore:
    """The graph adapter; `records` backs the embedded default, which reads the graph from
    the records store's own relation tables."""
    if settings.graph.backend == "records":
        from graphmem.stores.graph.records import RecordsGraph

        return RecordsGraph(records)
    if settings.graph.backend == "neo4j":
        from graphmem.stores.graph.neo4j import Neo4jGraph

        return Neo4jGraph(
            settings.neo4j.url,
            settings.neo4j.user,
            settings.neo4j.password,
            settings.neo4j.database,
        )
    from graphmem.stores.graph.networkx import NetworkxGraph

    return NetworkxGraph()


def open_vectors(settings: Settings, dim: int) -> VectorStore:
    if settings.vectors.backend == "qdrant":
        require_extra("qdrant_client", "qdrant", "the Qdrant server vector store")
        from graphmem.stores.vectors.qdrant import QdrantLayout, QdrantServerVectors

        return QdrantServerVectors(
            url=settings.qdrant.url,
            api_key=settings.qdrant.api_key,
            collection=settings.qdrant.collection,
            dim=dim,
            layout=QdrantLayout(
                shard_groups=settings.qdrant.shard_groups,
                shards=settings.qdrant.shards,
                replication_factor=settings.qdrant.replication_factor,
                write_consistency=settings.qdrant.write_consistency,
            ),
        )
    from graphmem.stores.vectors.edge import EdgeFootprint, EdgeVectors

    footprint = EdgeFootprint(
        vectors=settings.edge.vectors_memory,
        hnsw=settings.edge.hnsw_memory,
        payload=settings.edge.payload_memory,
        quantization=settings.edge.quantization,
    )
    return EdgeVectors(settings.edge_path, dim=dim, footprint=footprint)


def open_image_vectors(settings: Settings, dim: int, beside: VectorStore) -> VectorStore:
    """The image channel's index (graphmem.images.channel), on the vector backend the text
    vectors use: a second Qdrant Edge shard, `<data_dir>/image_vectors`, whose ids are hashed
    with the same key; or a second collection, `<qdrant_collection>_images`, on the same Qdrant
    server (through `beside`'s client), laid out and sharded like the first."""
    if settings.vectors.backend == "qdrant":
        from graphmem.stores.vectors.qdrant import QdrantServerVectors

        main = beside if isinstance(beside, QdrantServerVectors) else None
        return QdrantServerVectors(
            url=settings.qdrant.url,
            api_key=settings.qdrant.api_key,
            collection=f"{settings.qdrant.collection}_images",
            dim=dim,
            layout=main.layout if main is not None else None,
            client=main.client if main is not None else None,
        )
    from graphmem.stores.vectors.edge import EdgeFootprint, EdgeVectors

    footprint = EdgeFootprint(
        vectors=settings.edge.vectors_memory,
        hnsw=settings.edge.hnsw_memory,
        payload=settings.edge.payload_memory,
        quantization=settings.edge.quantization,
    )
    return EdgeVectors(image_vectors_path(settings), dim=dim, footprint=footprint)


def image_vectors_path(settings: Settings) -> Path:
    """Where the embedded image vectors live: beside the text vectors' shard."""
    return Path(settings.edge_path).with_name("image_vectors")


def shared_working_purger(
    backend: str, redis_url: str | None
) -> tuple[Callable[[str], int], Callable[[str], int]] | None:
    """(delete_user, count_user) on working memory that outlives this process (Redis), opened
    on the first erase; None when working memory is in-process (it dies with its server)."""
    if resolve_backend(backend, redis_url) != "redis":
        return None
    opened: list[WorkingMemoryStore] = []

    def store() -> WorkingMemoryStore:
        if not opened:
            opened.append(open_working("redis", redis_url=redis_url))
        return opened[0]

    return (lambda user: store().delete_user(user)), (lambda user: store().count_user(user))


def open_working(
    backend: str = "auto",
    *,
    ttl_seconds: float = 86_400,
    redis_url: str | None = None,
    max_sessions: int = 10_000,
) -> WorkingMemoryStore:
    """Pick the working-memory adapter by its backend name (see `resolve_backend`)."""
    from graphmem.stores.working import InProcessWorkingMemory, RedisWorkingMemory

    backend = resolve_backend(backend, redis_url)
    if backend == "redis":
        if not redis_url:
            raise InvalidInputError("redis_url", "is required when the working backend is redis")
        return RedisWorkingMemory(redis_url, ttl_seconds)
    if backend == "memory":
        return InProcessWorkingMemory(ttl_seconds, max_sessions)
    raise InvalidInputError("working_backend", f"{backend!r} is not one of auto, memory, redis")
