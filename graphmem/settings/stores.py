"""Sections of the settings tree that pick and reach the stores: `records`, `vault`,
`vectors`, `qdrant`, `edge` (Qdrant Edge), `neo4j`, `cache` (the search cache) and `working`
(working memory).

Each section reads the variables the root read before it had sections: its prefix is the one
its settings shared (GRAPHMEM_QDRANT_URL is `qdrant.url`); a setting whose variable did not
start with it is named by the prefix too and keeps its old variable as an alias, as the llm
section does (`records.mysql_url`: GRAPHMEM_RECORDS_MYSQL_URL, or GRAPHMEM_MYSQL_URL).
Redis is the root's `redis_url`, shared by the cache, working memory and the rate limits.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings

from graphmem.settings.sections import section_config


class RecordsSettings(BaseSettings):
    """The records store, the source of truth."""

    model_config = section_config("GRAPHMEM_RECORDS_")

    backend: Literal["sqlite", "mysql"] = Field(
        "sqlite",
        description="records, the source of truth: sqlite (<data_dir>/graphmem.sqlite3) or mysql",
    )
    mysql_url: str = Field(
        "mysql://graphmem:graphmem@127.0.0.1:3306/graphmem",
        validation_alias=AliasChoices("GRAPHMEM_RECORDS_MYSQL_URL", "GRAPHMEM_MYSQL_URL"),
        description="for records.backend mysql",
    )


class VaultSettings(BaseSettings):
    """The vault's store key, which wraps every user's data key (docs/security.md)."""

    model_config = section_config("GRAPHMEM_VAULT_")

    key: SecretStr | None = Field(
        None,
        description="the vault's store key, base64 of 32 bytes, which wraps every user's data"
        " key; unset: read from vault.key_file (docs/security.md, rotation)",
    )
    key_file: Path | None = Field(
        None,
        description="where the store key is kept when vault.key is unset (created mode 0600 on"
        " first use); unset: <data_dir>/vault.key. Back it up apart from the database",
    )


class VectorSettings(BaseSettings):
    """Which vector store, and what a cosine is worth."""

    model_config = section_config("GRAPHMEM_VECTOR_")

    backend: Literal["edge", "qdrant"] = Field(
        "edge", description="vectors: edge (Qdrant Edge, <data_dir>/vectors) or qdrant (a server)"
    )
    score_floor: float | None = Field(
        None,
        ge=0,
        lt=1,
        description="cosine that counts as no match in the vector channel (rescaled to 0..1"
        " above it); unset: the embedding model's own (0 for all-MiniLM-L6-v2, whose unrelated"
        " texts score near 0; 0.7 for multilingual-e5, whose cosines sit between 0.7 and 0.95)",
    )


class QdrantSettings(BaseSettings):
    """A Qdrant server, for vectors.backend qdrant."""

    model_config = section_config("GRAPHMEM_QDRANT_")

    url: str = Field("http://127.0.0.1:6333", description="for vectors.backend qdrant")
    api_key: str | None = Field(None, description="for vectors.backend qdrant")
    collection: str = Field("graphmem_memories", description="for vectors.backend qdrant")
    shard_groups: int = Field(
        0,
        ge=0,
        description="for vectors.backend qdrant, when the collection is created: 0 lets Qdrant"
        " shard by point id; N creates N custom shard keys, each user's points in one (a"
        " search then asks one shard group, not every shard)",
    )
    shards: int = Field(
        1, ge=1, description="for vectors.backend qdrant: shards per shard group (or in all)"
    )
    replication_factor: int = Field(
        1, ge=1, description="for vectors.backend qdrant: copies of every shard across the cluster"
    )
    write_consistency: int = Field(
        1,
        ge=1,
        description="for vectors.backend qdrant: replicas that must confirm a write before it is"
        " acknowledged (at most the replication factor)",
    )


class EdgeSettings(BaseSettings):
    """Qdrant Edge, the embedded vector store (vectors.backend edge): what it keeps in memory."""

    model_config = section_config("GRAPHMEM_EDGE_")

    vectors_memory: Literal["cached", "cold"] = Field(
        "cached",
        description="cached (default) maps the vectors and reads them into the page cache on"
        " open (1.5 GB at a million memories); cold maps them and reads pages on demand, for a"
        " store larger than the RAM to spare (best with edge.quantization int8)",
    )
    hnsw_memory: Literal["cached", "cold", "pinned"] = Field(
        "cached",
        description="the HNSW graph mapped and read on open (cached, default), mapped and read"
        " on demand (cold), or on the heap (pinned)",
    )
    payload_memory: Literal["cold", "cached"] = Field(
        "cold",
        description="the points' payload mapped and read on demand (cold, default) or read into"
        " the page cache on open (cached)",
    )
    quantization: Literal["none", "int8"] = Field(
        "none",
        description="int8 keeps a quarter-size copy of the vectors on the heap (0.4 GB at a"
        " million) that the search walks, rescoring the best candidates with the originals; it"
        " and the placements above apply from the next index build",
    )


class Neo4jSettings(BaseSettings):
    """A Neo4j server, for graph.backend neo4j."""

    model_config = section_config("GRAPHMEM_NEO4J_")

    url: str = Field("bolt://127.0.0.1:7687", description="for graph.backend neo4j")
    user: str = Field("neo4j", description="for graph.backend neo4j")
    password: str | None = Field(None, description="for graph.backend neo4j")
    database: str | None = Field(
        None, description="for graph.backend neo4j (unset: the server's default)"
    )


class CacheSettings(BaseSettings):
    """The search cache: results of recent searches, dropped on every write of their user."""

    model_config = section_config("GRAPHMEM_CACHE_")

    backend: Literal["auto", "memory", "redis"] = Field(
        "auto", description="search cache: auto is redis when redis_url is set, else memory"
    )
    ttl_seconds: float = Field(
        60.0,
        validation_alias=AliasChoices(
            "GRAPHMEM_CACHE_TTL_SECONDS", "GRAPHMEM_SEARCH_CACHE_TTL_SECONDS"
        ),
        description="a cached search result lives this long (writes invalidate it sooner)",
    )


class WorkingSettings(BaseSettings):
    """Working memory: each session's scratch state (working_memory_set over MCP)."""

    model_config = section_config("GRAPHMEM_WORKING_")

    backend: Literal["auto", "memory", "redis"] = Field(
        "auto",
        description="working memory: auto is redis when redis_url is set, else memory"
        " (in-process, one server process)",
    )
    ttl_seconds: float = Field(86_400, gt=0, description="working memory expires after")
    max_sessions: int = Field(10_000, gt=0, description="in-process adapter's bound")


__all__ = [
    "CacheSettings",
    "EdgeSettings",
    "Neo4jSettings",
    "QdrantSettings",
    "RecordsSettings",
    "VaultSettings",
    "VectorSettings",
    "WorkingSettings",
]
