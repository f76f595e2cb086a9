"""What an MCP call costs and what its caller may see: the tool budgets and per-user tool stats.

Every tool that writes or reads memory content is charged to one of the caller's two rate-limit
budgets (graphmem.guard.ratelimit) before it runs, in one place (the server's middleware), so a
new tool cannot forget to pay and no tool is a way around another's limit. `TOOL_BUDGETS` is the
table; `charges` turns one call's arguments into what it costs.

Tool statistics are kept per user as well as in total, because `memory_health` shows a caller
only their own figures: the calls, errors and latency of other tenants say what they are doing.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Mapping
from typing import Any

from graphmem.guard.ratelimit import Budget

# The budget each tool draws on, one unit per call unless `charges` says otherwise.
# - write: anything that stores, changes or deletes memory content (working memory included);
#   reviewing quarantine approves or deletes memories, erasing a user deletes everything.
# - search: anything that returns memory content.
# - none: `memory_health` returns counts and status, no content, and it is where a caller reads
#   its budgets, so it must answer when they are used up.
TOOL_BUDGETS: dict[str, Budget | None] = {
    "memory_write": "write",
    "memory_update": "write",
    "memory_observe": "write",
    "memory_relate": "write",
    "memory_forget": "write",
    "memory_forget_user": "write",
    "memory_quarantine_review": "write",
    "working_memory_set": "write",
    "memory_search": "search",
    "memory_history": "search",
    "memory_graph": "search",
    "memory_summarize": "search",
    "memory_quarantine_list": "search",
    "working_memory_get": "search",
    "memory_health": None,
}
# Reading a resource (memory://{id}, working://{session}) returns content like a search.
RESOURCE_BUDGET: Budget = "search"


def charges(tool: str, args: Mapping[str, Any]) -> list[tuple[Budget, float]]:
    """What one call costs, as (budget, units) pairs, from its raw arguments.

    - `memory_observe` pays one write per turn it screens, dry run or not: screening (entity
      extraction, the firewall, a similarity search per "forget ...") is the work, and
      the result says which turns would be kept, so a dry run is no cheaper to serve.
    - `memory_forget` by `query` searches, and returns what matched, so it pays a search, and a
      write as well unless it is a dry run; by `memory_id` it pays a write.
    Unknown tools cost nothing here; the server refuses them anyway.
    """
    if tool == "memory_forget" and args.get("query") is not None:
        return [("search", 1.0)] + ([] if args.get("dry_run") is True else [("write", 1.0)])
    budget = TOOL_BUDGETS.get(tool)
    if budget is None:
        return []
    if tool == "memory_observe":
        turns = args.get("turns")
        return [(budget, float(max(1, len(turns)) if isinstance(turns, list) else 1))]
    return [(budget, 1.0)]


def percentile(values: list[float], p: float) -> float | None:
    if not values:
        return None
    s = sorted(values)
    return round(s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))], 3)


def mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


class _Figures:
    __slots__ = ("calls", "charged", "errors", "latency_ms", "rate_limited")

    def __init__(self, keep: int) -> None:
        self.calls = 0
        self.errors = 0
        self.rate_limited = 0
        self.charged = 0.0
        self.latency_ms: deque[float] = deque(maxlen=keep)

    def to_dict(self) -> dict[str, Any]:
        lat = list(self.latency_ms)
        return {
            "calls": self.calls,
            "errors": self.errors,
            "rate_limited": self.rate_limited,
            "charged": round(self.charged, 3),
            "avg_ms": mean(lat),
            "p95_ms": percentile(lat, 95),
        }


class ToolStats:
    """Tool calls, errors, refusals for rate, budget units charged and latency, in total and per
    user. Bounded: `keep` latencies per tool, the `max_users` most recently active users."""

    def __init__(self, keep: int = 2048, *, keep_per_user: int = 256, max_users: int = 10_000):
        self.keep = keep
        self.keep_per_user = keep_per_user
        self.max_users = max_users
        self._total: dict[str, _Figures] = {}
        self._users: OrderedDict[str, dict[str, _Figures]] = OrderedDict()

    def record(
        self,
        user: str | None,
        tool: str,
        ms: float,
        ok: bool,
        *,
        rate_limited: bool = False,
        charged: float = 0.0,
    ) -> None:
        tables = [(self._total, self.keep)]
        if user is not None:
            mine = self._users.pop(user, None) or {}
            self._users[user] = mine  # most recently active last
            if len(self._users) > self.max_users:
                self._users.popitem(last=False)
            tables.append((mine, self.keep_per_user))
        for table, keep in tables:
            f = table.get(tool) or table.setdefault(tool, _Figures(keep))
            f.calls += 1
            f.errors += not ok
            f.rate_limited += rate_limited
            f.charged += charged
            f.latency_ms.append(ms)

    def latencies(self, user: str, tool: str) -> list[float]:
        f = self._users.get(user, {}).get(tool)
        return list(f.latency_ms) if f else []

    def snapshot(self, user: str | None = None) -> dict[str, Any]:
        """One user's figures per tool, or everyone's together when `user` is None."""
        table = self._total if user is None else self._users.get(user, {})
        return {t: f.to_dict() for t, f in sorted(table.items())}


__all__ = ["RESOURCE_BUDGET", "TOOL_BUDGETS", "ToolStats", "charges", "mean", "percentile"]
