"""One port per store, two adapters each: the embedded default and the production server.

`open_records` and `open_vectors` pick the adapter from settings, so nothing above this package
knows which database it talks to.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphmem.stores.cache import ResultCache
from graphmem.stores.graph import GraphStore
from graphmem.stores.records import RecordsStore
from graphmem.stores.vectors import VectorFilter, VectorHit, VectorStore

if TYPE_CHECKING:
    from graphmem.settings import Settings

__all__ = [
    "ResultCache",
    "open_cache",
    "GraphStore",
    "RecordsStore",
    "VectorFilter",
    "VectorHit",
    "VectorStore",
    "open_graph",
    "open_records",
    "open_vectors",
]


def open_records(settings: Settings) -> RecordsStore:
    if settings.records_backend == "mysql":
        from graphmem.stores.id_hash import IdHasher
        from graphmem.stores.records.mysql import MySQLRecords

        records = MySQLRecords(settings.mysql_url)
        # the key that names erased users in the audit log lives with the service's own files
        records.id_hasher = IdHasher.for_dir(settings.data_dir)
        return records
    from graphmem.stores.records.sqlite import SQLiteRecords

    return SQLiteRecords(settings.sqlite_path)


def open_cache(settings: Settings) -> ResultCache:
    from graphmem.stores.cache import InProcessCache, RedisCache

    if settings.redis_url:
        return RedisCache(settings.redis_url, settings.search_cache_ttl_seconds)
    return InProcessCache(settings.search_cache_ttl_seconds)


def open_graph(settings: Settings) -> GraphStore:
    if settings.graph_backend == "neo4j":
        from graphmem.stores.graph.neo4j import Neo4jGraph

        return Neo4jGraph(
            settings.neo4j_url,
            settings.neo4j_user,
            settings.neo4j_password,
            settings.neo4j_database,
        )
    from graphmem.stores.graph.networkx import NetworkxGraph

    return NetworkxGraph()


def open_vectors(settings: Settings, dim: int) -> VectorStore:
    if settings.vector_backend == "qdrant":
        from graphmem.stores.vectors.qdrant import QdrantServerVectors

        return QdrantServerVectors(
            url=settings.qdrant_url,
            api_key=settings.qdrant_api_key,
            collection=settings.qdrant_collection,
            dim=dim,
        )
    from graphmem.stores.vectors.edge import EdgeVectors

    return EdgeVectors(settings.edge_path, dim=dim)
