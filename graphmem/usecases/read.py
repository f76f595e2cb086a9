"""Reading memories by id and by listing, and the per-user figures `stats` reports."""

from __future__ import annotations

import base64
import binascii
import json
from datetime import datetime
from typing import Any

from graphmem.domain.model import Memory, Status, check_user, parse_datetime, parse_memory_type
from graphmem.domain.requests import ListRequest, MemoryPage
from graphmem.domain.visibility import HELD_BACK, Viewer, check_visible, readable_statuses
from graphmem.errors import InvalidInputError, NotFoundError
from graphmem.stores.records import RecordQuery
from graphmem.usecases.ports import ReadPorts, RecordsPorts, SearchPorts


def get(
    ctx: RecordsPorts, user_id: str, memory_id: str, *, viewer: Viewer = Viewer.AGENT
) -> Memory:
    """One memory. An agent asking for a quarantined one gets HeldForReviewError (a
    NotFoundError that says it is pending review) instead of its content."""
    user_id = check_user(user_id)
    found = ctx.records.get(user_id, [str(memory_id)])
    if memory_id not in found:
        raise NotFoundError(str(memory_id))
    return check_visible(found[memory_id], viewer)


def list_memories(
    ctx: ReadPorts,
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


def page(
    ctx: ReadPorts, user_id: str, request: ListRequest, *, viewer: Viewer = Viewer.AGENT
) -> MemoryPage:
    """One page of the user's memories (graphmem.domain.requests.ListRequest), and the cursor of the
    next one. An agent asking to list quarantined memories is refused by name rather than
    given an empty page: those are read through the review queue."""
    user_id = check_user(user_id)
    c = request.checked()
    limit, sort = c.limit, c.sort
    held = [s for s in c.statuses if s in HELD_BACK]
    if held and viewer != Viewer.OPERATOR:
        raise InvalidInputError("status", f"{held[0]} memories are listed for an operator only")
    statuses = readable_statuses(c.statuses, viewer)
    q = RecordQuery(
        user_id,
        c.memory_type,
        statuses,
        c.created_after,
        filter=c.filter,
        created_before=c.created_before,
        valid_at=c.valid_at,
    )
    after = _decode_cursor(request.cursor, sort) if request.cursor else None
    ctx.access.flush()  # so most_accessed sees this process's latest reads
    rows = ctx.records.page(q, sort, after, limit + 1)
    more = len(rows) > limit
    rows = rows[:limit]
    last = rows[-1] if more and rows else None
    cursor = _encode_cursor(sort, last[1], last[0].seq or 0) if last else None
    return MemoryPage([m for m, _ in rows], cursor)


def _encode_cursor(sort: str, value: Any, seq: int) -> str:
    """Opaque to callers; a sort value and the row's write order, nothing of its content."""
    v = value.isoformat() if isinstance(value, datetime) else value
    raw = json.dumps([sort, v, seq], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_cursor(cursor: str, sort: str) -> tuple[Any, int]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        got_sort, value, seq = json.loads(raw)
    except (ValueError, TypeError, binascii.Error):
        raise InvalidInputError("cursor", "is not a cursor this service returned") from None
    if got_sort != sort:
        raise InvalidInputError("cursor", f"belongs to sort {got_sort!r}, not {sort!r}")
    if not isinstance(seq, int) or isinstance(value, (list, dict)):
        raise InvalidInputError("cursor", "is not a cursor this service returned")
    if sort in ("newest", "oldest"):
        when = parse_datetime(value, "cursor")
        return when, seq
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidInputError("cursor", "is not a cursor this service returned")
    return value, seq


def stats(ctx: SearchPorts, user_id: str) -> dict[str, Any]:
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


def _vectors_ok(ctx: SearchPorts) -> bool:
    return bool(ctx.vectors.health().get("ok"))


__all__ = ["get", "list_memories", "page", "stats"]
