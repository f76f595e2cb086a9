"""Sections of the settings tree for what happens to memories once written: `writes` (limits,
the write lock, the outbox and access counts), `lifecycle` (decay, archive, TTL, merge,
forget-by-query, compaction, preload; graphmem.domain.lifecycle) and `documents` (how
ingested documents are cut).

`writes` and `lifecycle` read GRAPHMEM_ + the field's name, as the server's section does: their
settings had no prefix in common, so each keeps its variable (GRAPHMEM_MERGE_ON_WRITE is
`lifecycle.merge_on_write`). `documents` takes the prefix its settings shared
(GRAPHMEM_DOCUMENT_CHUNK_CHARS is `documents.chunk_chars`).
"""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings

from graphmem.settings.sections import section_config

# Hours a memory of each type lives after it is written; None keeps it until forgotten.
DEFAULT_TTL_HOURS: dict[str, float | None] = {
    "task": 24.0,
    "event": 90 * 24.0,
    "preference": None,
    "fact": None,
}


class WriteSettings(BaseSettings):
    """What a write may hold, how writes of one user wait for each other, and the work a
    write leaves behind (the outbox to project, the access counts to flush)."""

    model_config = section_config("GRAPHMEM_")

    max_content_chars: int = Field(8000, description="longer memories are refused")
    max_batch: int = Field(10_000, description="items per batch write, at most")
    write_lock_timeout_seconds: float = Field(
        30.0,
        ge=0,
        description="a write waits this long for another write of the same user (on any"
        " replica) to finish, then fails with a try-again error and writes nothing",
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
    access_flush_every: int = Field(256, description="access counts are written after this many")
    access_flush_seconds: float = Field(2.0, description="... or after this many seconds")


class LifecycleSettings(BaseSettings):
    """Decay, archive, TTL, merge, forget-by-query, compaction and the preload of a session."""

    model_config = section_config("GRAPHMEM_")

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
    forget_similarity: float | None = Field(
        None,
        gt=0,
        le=1,
        description="forget-by-query deletes memories at least this cosine-similar to the query;"
        " unset: the embedding model's own (0.9 for multilingual-e5-small, 0.75 for"
        " all-MiniLM-L6-v2: the same share of unrelated pairs, bench/thresholds.py)",
    )
    compact_interval_seconds: float = Field(
        0.0, ge=0, description="the server compacts every this many seconds (0: never)"
    )
    preload_memories: int = Field(
        5, ge=0, description="recent and most-used memories preloaded into a new session, each"
    )


class DocumentSettings(BaseSettings):
    """How ingested documents are cut into chunks (docs/documents.md)."""

    model_config = section_config("GRAPHMEM_DOCUMENT_")

    chunk_chars: int = Field(
        700,
        ge=50,
        le=8000,
        description="ingested documents are cut into chunks of about this many characters,"
        " whole paragraphs inside one heading (docs/documents.md, chunk size)",
    )
    chunk_max_chars: int = Field(
        1400,
        ge=50,
        le=8000,
        description="no chunk is longer: a longer paragraph is cut at sentence ends",
    )


__all__ = ["DEFAULT_TTL_HOURS", "DocumentSettings", "LifecycleSettings", "WriteSettings"]
