"""The settings tree: the root `Settings` and its sections (see graphmem.settings)."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from graphmem.guard.settings import GuardSettings
from graphmem.images.settings import ImageSettings
from graphmem.settings.legacy import by_section, flat_names
from graphmem.settings.lifecycle import (
    DEFAULT_TTL_HOURS,
    DocumentSettings,
    LifecycleSettings,
    WriteSettings,
)
from graphmem.settings.paths import default_data_dir
from graphmem.settings.search import (
    DEFAULT_PROFILES,
    DEFAULT_RELATION_WEIGHTS,
    DEFAULT_WEIGHTS,
    EmbeddingSettings,
    GraphSettings,
    LinkingSettings,
    RankingSettings,
)
from graphmem.settings.sections import LlmSettings, TemporalSettings, TracingSettings
from graphmem.settings.server import McpSettings
from graphmem.settings.stores import (
    CacheSettings,
    EdgeSettings,
    Neo4jSettings,
    QdrantSettings,
    RecordsSettings,
    VaultSettings,
    VectorSettings,
    WorkingSettings,
)

# Each section, by its name in the tree: a BaseSettings of its own, read with the root. The
# first ones hold what the root held before it had sections (MOVED: their flat names still
# work in code, graphmem.settings.legacy); the others were sections from the start.
MOVED: dict[str, tuple[type[BaseSettings], str]] = {
    "records": (RecordsSettings, "the records store, the source of truth"),
    "vault": (VaultSettings, "the vault's store key"),
    "vectors": (VectorSettings, "the vector store and the vector channel"),
    "qdrant": (QdrantSettings, "a Qdrant server (vectors.backend qdrant)"),
    "edge": (EdgeSettings, "Qdrant Edge, the embedded vector store (vectors.backend edge)"),
    "graph": (GraphSettings, "the graph store and the associative walk"),
    "neo4j": (Neo4jSettings, "a Neo4j server (graph.backend neo4j)"),
    "cache": (CacheSettings, "the search cache"),
    "embedding": (EmbeddingSettings, "the text embedding model"),
    "linking": (LinkingSettings, "what links a memory to earlier ones on write"),
    "ranking": (RankingSettings, "the hybrid score"),
    "writes": (WriteSettings, "write limits, the write lock, the outbox, access counts"),
    "lifecycle": (LifecycleSettings, "decay, archive, TTL, merge, forget, compaction, preload"),
    "documents": (DocumentSettings, "how ingested documents are cut"),
}
SECTIONS: dict[str, type[BaseSettings]] = {
    **{name: cls for name, (cls, _) in MOVED.items()},
    "working": WorkingSettings,
    "guard": GuardSettings,
    "temporal": TemporalSettings,
    "server": McpSettings,
    "llm": LlmSettings,
    "images": ImageSettings,
    "tracing": TracingSettings,
}
# The root's flat names of before the sections -> (section, field): `Settings(expand_hops=3)`.
FLAT = flat_names({name: cls for name, (cls, _) in MOVED.items()})


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
        for name, fields in by_section(values, FLAT, "Settings(...)").items():
            given = values.get(name, {})
            if not isinstance(given, dict):
                raise TypeError(f"pass the {name} settings in {name}=... only, not also flat")
            values[name] = {**fields, **given}
        for name, section in SECTIONS.items():
            # a section given as a dict of some of its fields reads the rest as its own would
            given = values.get(name, {})
            if isinstance(given, dict):
                values[name] = section(**env_file, **given)
        super().__init__(**values)

    records: RecordsSettings = Field(
        default_factory=RecordsSettings, description=MOVED["records"][1]
    )
    vault: VaultSettings = Field(default_factory=VaultSettings, description=MOVED["vault"][1])
    vectors: VectorSettings = Field(default_factory=VectorSettings, description=MOVED["vectors"][1])
    qdrant: QdrantSettings = Field(default_factory=QdrantSettings, description=MOVED["qdrant"][1])
    edge: EdgeSettings = Field(default_factory=EdgeSettings, description=MOVED["edge"][1])
    graph: GraphSettings = Field(default_factory=GraphSettings, description=MOVED["graph"][1])
    neo4j: Neo4jSettings = Field(default_factory=Neo4jSettings, description=MOVED["neo4j"][1])
    cache: CacheSettings = Field(default_factory=CacheSettings, description=MOVED["cache"][1])
    embedding: EmbeddingSettings = Field(
        default_factory=EmbeddingSettings, description=MOVED["embedding"][1]
    )
    linking: LinkingSettings = Field(
        default_factory=LinkingSettings, description=MOVED["linking"][1]
    )
    ranking: RankingSettings = Field(
        default_factory=RankingSettings, description=MOVED["ranking"][1]
    )
    writes: WriteSettings = Field(default_factory=WriteSettings, description=MOVED["writes"][1])
    lifecycle: LifecycleSettings = Field(
        default_factory=LifecycleSettings, description=MOVED["lifecycle"][1]
    )
    documents: DocumentSettings = Field(
        default_factory=DocumentSettings, description=MOVED["documents"][1]
    )
    working: WorkingSettings = Field(default_factory=WorkingSettings, description="working memory")
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
    redis_url: str | None = Field(
        None,
        validation_alias=AliasChoices("GRAPHMEM_REDIS_URL", "GRAPHMEM_GUARD_REDIS_URL"),
        description="Redis for the search cache, working memory and rate limits (each `auto`"
        " backend uses it when set); unset means in-process structures (one server process);"
        " `redis+cluster://host:port` for a Redis Cluster (any one node)",
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

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy with `update`; a flat name of before the sections updates its section."""
        if update and any(name in FLAT for name in update):
            changes = dict(update)
            for name, fields in by_section(changes, FLAT, "model_copy(update=...)").items():
                section = changes.get(name, getattr(self, name))
                changes[name] = type(section).model_validate({**dict(section), **fields})
            update = changes
        return super().model_copy(update=update, deep=deep)

    if not TYPE_CHECKING:  # typed code reads the sections; this serves code written before them

        def __getattr__(self, name: str) -> Any:
            moved = FLAT.get(name)
            if moved is None:
                return super().__getattr__(name)
            warnings.warn(
                f"settings.{name} is deprecated: read settings.{moved[0]}.{moved[1]}",
                DeprecationWarning,
                stacklevel=2,
            )
            return getattr(getattr(self, moved[0]), moved[1])

        def __setattr__(self, name: str, value: Any) -> None:
            moved = FLAT.get(name)
            if moved is None:
                return super().__setattr__(name, value)
            warnings.warn(
                f"settings.{name} is deprecated: set settings.{moved[0]}.{moved[1]}",
                DeprecationWarning,
                stacklevel=2,
            )
            setattr(getattr(self, moved[0]), moved[1], value)

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


__all__ = [
    "DEFAULT_PROFILES",
    "DEFAULT_RELATION_WEIGHTS",
    "DEFAULT_TTL_HOURS",
    "DEFAULT_WEIGHTS",
    "FLAT",
    "SECTIONS",
    "Settings",
]
