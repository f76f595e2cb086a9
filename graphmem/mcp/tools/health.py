"""The health report: what a caller may know about the service it talks to, in one tool.

It is charged to no budget (see middleware): it returns counts and status, never content, and
it is where a caller reads its budgets, so it must answer when they are used up."""

import logging
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from graphmem import __version__
from graphmem.domain.actor import Actor
from graphmem.domain.model import Status
from graphmem.infra import metrics
from graphmem.mcp.context import ToolContext, ToolRegistry
from graphmem.mcp.results_ops import HealthResult
from graphmem.mcp.stats import mean, percentile
from graphmem.mcp.tools.common import tool_annotations

if TYPE_CHECKING:
    from graphmem.service.facade import MemoryService

log = logging.getLogger("graphmem.mcp")
NEW_TODAY_CAP = 100_000


def register(mcp: ToolRegistry, ctx: ToolContext) -> None:
    """Register memory_health; `mcp` records its name."""

    @mcp.tool(
        description="Health report: the caller's memory totals and new today, their recall"
        " latency, per-tool call counts and latency, rate-limit budgets, and whether each store"
        " is up. An operator token also gets the figures of all users together. Not needed"
        " for normal conversations.",
        annotations=tool_annotations("Memory health", read_only=True, idempotent=True),
    )
    async def memory_health() -> HealthResult:
        user, actor = ctx.identify()
        return HealthResult.model_validate(await ctx.run(_health, ctx, user, actor))


def _health(ctx: ToolContext, user: str, actor: Actor) -> dict[str, Any]:
    """A tenant sees its own figures only: what other users store, how often they call
    which tool and how fast the service answers them say what they are doing. Store status
    is kept (up or not, and which backend); its counts are not. An operator runs the
    service for everyone and sees the totals as before."""
    svc, wm, stats = ctx.service, ctx.working, ctx.stats
    everything = actor.is_operator
    out: dict[str, Any] = {"user_id": user, "role": actor.role, "version": __version__}
    st: dict[str, Any] = {}
    try:
        st = svc.stats(user)
        midnight = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        out["memories"] = {
            "total": st.get("total"),
            "new_today": _count_new_since(svc, user, midnight),
            "by_type": st.get("by_type"),
            "by_status": st.get("by_status"),
        }
        if everything:
            out["memories"]["all_users_total"] = svc.records.count()
            out["outbox_pending"] = st.get("outbox_pending")
        stores = dict(st.get("stores", {}))
    except Exception as e:  # noqa: BLE001 - a health report must report, not fail
        log.warning("health: records unavailable: %s", e)
        out["memories"] = None
        stores = {
            "records": {"ok": False, "error": str(e)},
            "vectors": svc.vectors.health(),
        }
    lat = list(svc.latencies_ms) if everything else stats.latencies(user, "memory_search")
    out["recall"] = {
        "searches": len(lat),
        "avg_ms": mean(lat),
        "p50_ms": percentile(lat, 50),
        "p95_ms": percentile(lat, 95),
    }
    out["tools"] = stats.snapshot(user)
    out["rate_limits"] = (
        {
            budget: {"limit_per_minute": svc.guard.settings.rate_limits.get(budget, 0.0)}
            for budget in ("write", "search")
        }
        if svc.guard.limiter is not None
        else None
    )
    stores["working_memory"] = wm.health()
    out["status"] = "ok" if all(s.get("ok") for s in stores.values()) else "degraded"
    if not everything:
        stores = {k: {"backend": v.get("backend"), "ok": v.get("ok")} for k, v in stores.items()}
    out["stores"] = stores
    out["uptime_s"] = round(time.time() - ctx.started, 1)
    if everything:
        # Every cache the service reports (query embeddings, search results, ...), by name.
        rates = {
            k[: -len("_cache_hit_rate")]: v for k, v in st.items() if k.endswith("_cache_hit_rate")
        }
        rates.setdefault("query", round(svc.embedder.cache_hit_rate, 4))
        out["cache_hit_rate"] = rates
        out["all_users_tools"] = stats.snapshot()
        # The numbers GET /metrics serves, from the same collection (all users together).
        out["metrics"] = metrics.snapshot()
    return out


def _count_new_since(svc: "MemoryService", user_id: str, since: datetime) -> int:
    """Memories created since `since`, capped. The records port has no count-by-time yet."""
    from graphmem.stores.records import RecordQuery

    q = RecordQuery(user_id, None, tuple(s.value for s in Status), created_after=since)
    return len(svc.records.list(q, NEW_TODAY_CAP))


__all__ = ["register"]
