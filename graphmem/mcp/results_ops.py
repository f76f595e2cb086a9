"""What the working-memory, health and admin tools return, as pydantic models (the memory
tools' are in `results`, under the same rules: same JSON as before, always-sent keys required,
occasional keys left out rather than sent as null)."""

from typing import Any, Literal

from pydantic import ConfigDict, Field

from graphmem.mcp.results import MemoryRecord, MemoryTypeName, Result, Sometimes


# ----------------------------------------------------------------------------- working memory
class Slots(Result):
    names: dict[str, str] = Field(description="People, places, products, projects by role.")
    numbers: dict[str, int | float | str] = Field(description="Amounts, dates, counts by name.")
    preferences: dict[str, str] = Field(description="How the user wants things, by topic.")


class PreloadedMemory(Result):
    """A long-term memory preloaded into the session at its start (read-only here)."""

    memory_id: str = Field(description="The memory's id (for get, update, forget, history).")
    summary: str = Field(description="A short summary of the content.")
    memory_type: MemoryTypeName = Field(description="fact, preference, event or task.")
    access_count: int
    why: Literal["recent", "frequent"]


class WorkingMemoryResult(Result):
    session_id: str
    exists: bool = Field(description="False for a session never set or expired (then empty).")
    task_context: str
    recent_turns: list[str] = Field(description="Summaries of the last turns, oldest first.")
    slots: Slots
    updated_at: str | None
    expires_at: str | None
    expires_in_s: int | None
    long_term: list[PreloadedMemory] = Field(
        description="The user's recent and most used memories, preloaded at session start."
    )


# ----------------------------------------------------------------------------- health
class MemoryTotals(Result):
    total: int | None
    new_today: int = Field(description="Created since midnight UTC.")
    by_type: dict[str, int] | None
    by_status: dict[str, int] | None
    all_users_total: Sometimes[int] = Field(None, description="Operator only.")


class RecallFigures(Result):
    searches: int
    avg_ms: float | None
    p50_ms: float | None
    p95_ms: float | None


class ToolFigures(Result):
    calls: int
    errors: int
    rate_limited: int
    charged: float = Field(description="Budget units charged.")
    avg_ms: float | None
    p95_ms: float | None


class RateLimit(Result):
    limit_per_minute: float


class StoreStatus(Result):
    """A caller sees whether the store is up and its backend; an operator sees the store's
    whole report (extra keys)."""

    model_config = ConfigDict(extra="allow")

    backend: Sometimes[str] = None
    ok: Sometimes[bool] = None


class HealthResult(Result):
    user_id: str
    role: Literal["agent", "operator"]
    version: str
    memories: MemoryTotals | None = Field(description="null when the records store is down.")
    outbox_pending: Sometimes[int] = Field(None, description="Operator only.")
    recall: RecallFigures = Field(description="The caller's searches (an operator's: all).")
    tools: dict[str, ToolFigures] = Field(description="The caller's calls, per tool.")
    rate_limits: dict[str, RateLimit] | None = Field(description="null when none are set.")
    status: Literal["ok", "degraded"]
    stores: dict[str, StoreStatus]
    uptime_s: float
    cache_hit_rate: Sometimes[dict[str, float]] = Field(
        None, description="Operator only, by cache."
    )
    all_users_tools: Sometimes[dict[str, ToolFigures]] = Field(None, description="Operator only.")
    metrics: Sometimes[dict[str, Any]] = Field(
        None, description="Operator only: the numbers GET /metrics serves, nested by label."
    )


# ----------------------------------------------------------------------------- admin
class ErasureResult(Result):
    """The receipt of erasing a user: what was deleted per store, and the proof that nothing
    is left (`residue` all zeros, `verified`)."""

    user_id: str
    requested_by: str
    deleted: dict[str, Any] = Field(description="Counts per store.")
    residue: dict[str, int] = Field(description="What each store still holds: all zeros.")
    pending: list[str] = Field(description="Stores that could not be erased yet.")
    files_clean: bool
    files_holding: list[str]
    verified: bool
    finished_at: str


class HeldRecord(MemoryRecord):
    """A quarantined memory and why the firewall held it."""

    reason: str = Field(
        description="The firewall's rules or classifier evidence, with the excerpt that"
        " triggered them (personal values redacted)."
    )


class QuarantineList(Result):
    quarantined: list[HeldRecord]
    count: int


class ReviewResult(Result):
    """`approved` or `rejected`: the ids the review applied to."""

    approved: Sometimes[list[str]] = None
    rejected: Sometimes[list[str]] = None
    count: int


class ImportResult(Result):
    """What memory_import wrote (or, with dry_run, would write)."""

    format: str
    source: str
    dry_run: bool
    added: int = Field(description="New memories (or kept chat turns).")
    updated: int = Field(description="Records changed in the source: updated, old kept.")
    unchanged: int = Field(description="Records already imported as they are.")
    versions: int = Field(description="Earlier contents written as versions.")
    quarantined: int = Field(description="Written but held for review by the firewall.")
    relations: int
    documents: int
    conversations: int
    turns_skipped: int = Field(description="Chat turns the observe policy did not keep.")
    unresolved_links: int = Field(description="Wikilinks to notes not in the folder.")
    resumed: int = Field(0, description="Records an interrupted earlier run had finished.")
    vault_references: int = Field(
        0, description="graphmem-v1: secret references restored without their values."
    )
    images: int = Field(0, description="graphmem-v1: image memories restored.")
    images_without_bytes: int = Field(
        0,
        description="graphmem-v1: image memories restored without the image's bytes, which"
        " the export left out (--redact).",
    )
    skipped: int = Field(description="Records not written (see problems).")
    problems: list[str] = Field(description="One line per skipped record (the first 50).")


__all__ = [
    "ErasureResult",
    "ImportResult",
    "HealthResult",
    "MemoryTotals",
    "PreloadedMemory",
    "HeldRecord",
    "QuarantineList",
    "RateLimit",
    "RecallFigures",
    "ReviewResult",
    "Slots",
    "StoreStatus",
    "ToolFigures",
    "WorkingMemoryResult",
]
