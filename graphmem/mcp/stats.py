"""Per-user tool statistics, kept per user as well as in total because `memory_health` shows a
caller only their own figures: the calls, errors and latency of other tenants say what they are
doing."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from graphmem.infra.metrics import LatencyRecorder
from graphmem.infra.metrics import percentile as nearest_rank


def percentile(values: list[float], p: float) -> float | None:
    """The shared nearest-rank percentile, rounded as tool figures are shown."""
    value = nearest_rank(values, p)
    return None if value is None else round(value, 3)


def mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


class _Figures:
    __slots__ = ("calls", "charged", "errors", "latency_ms", "rate_limited")

    def __init__(self, keep: int) -> None:
        self.calls = 0
        self.errors = 0
        self.rate_limited = 0
        self.charged = 0.0
        self.latency_ms = LatencyRecorder(keep)

    def to_dict(self) -> dict[str, Any]:
        lat = self.latency_ms.values()
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
            f.latency_ms.add(ms)

    def latencies(self, user: str, tool: str) -> list[float]:
        f = self._users.get(user, {}).get(tool)
        return f.latency_ms.values() if f else []

    def snapshot(self, user: str | None = None) -> dict[str, Any]:
        """One user's figures per tool, or everyone's together when `user` is None."""
        table = self._total if user is None else self._users.get(user, {})
        return {t: f.to_dict() for t, f in sorted(table.items())}


__all__ = ["ToolStats", "mean", "percentile"]
