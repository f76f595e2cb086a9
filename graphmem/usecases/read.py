"""Reading memories by id and by listing, and the per-user figures `stats` reports."""

from __future__ import annotations

from typing import Any

from graphmem.context import Context
from graphmem.errors import NotFoundError
from graphmem.model import Memory, Status, check_user, parse_memory_type
from graphmem.stores.records import RecordQuery
from graphmem.visibility import Viewer, check_visible, readable_statuses


def get(ctx: Context, user_id: str, memory_id: str, *, viewer: Viewer = Viewer.AGENT) -> Memory:
    """One memory. An agent asking for a quarantined one gets HeldForReviewError (a
    NotFoundError that says it is pending review) instead of its content."""
    user_id = check_user(user_id)
    found = ctx.records.get(user_id, [str(memory_id)])
    if memory_id not in found:
        raise NotFoundError(str(memory_id))
    return check_visible(found[memory_id], viewer)


def list_memories(
    ctx: Context,
    user_id: str,
    *,
    memory_type: str | None = None,
    include_archived: bool = True,
    limit: int | None = None,
    offset: int = 0,
    viewer: Viewer = Viewer.AGENT,
) -> list[Memory]:
    """The user's memories, oldest first; quarantined ones only for an operator (an agent
    reads those through `quarantined`, the review queue, which lists them on purpose)."""
    user_id = check_user(user_id)
    every = tuple(s.value for s in Status) if include_archived else ("active",)
    statuses = readable_statuses(every, viewer)
    mt = parse_memory_type(memory_type).value if memory_type else None
    ctx.access.flush()
    return ctx.records.list(RecordQuery(user_id, mt, statuses), limit, offset)


def stats(ctx: Context, user_id: str) -> dict[str, Any]:
    user_id = check_user(user_id)
    ctx.access.flush()
    out = ctx.records.stats(user_id)
    lat = ctx.search_stats.latencies_ms
    out.update(
        {
            "user_id": user_id,
            "vectors": ctx.vectors.count(user_id) if _vectors_ok(ctx) else None,
            "outbox_pending": ctx.records.outbox_count(),
            "query_cache_hit_rate": round(ctx.embedder.cache_hit_rate, 4),
            "search_cache_hit_rate": round(ctx.search_stats.cache_hit_rate, 4),
            "recall_p50_ms": lat.percentile(50),
            "recall_p95_ms": lat.percentile(95),
            "graph": ctx.records.graph_counts(user_id),
            "stores": {
                "records": ctx.records.health(),
                "vectors": ctx.vectors.health(),
                "graph": ctx.graph.health(),
                "cache": ctx.cache.health(),
            },
        }
    )
    return out


def _vectors_ok(ctx: Context) -> bool:
    return bool(ctx.vectors.health().get("ok"))


__all__ = ["get", "list_memories", "stats"]
