"""Anomalies per user from audit rows: write bursts, duplicate ratio, suspicious-pattern hits.

A pure function over rows the caller reads from `audit_log`, so the report works the same on
SQLite and MySQL and can be tested without a store. It expects each write row to carry, in its
details, a hash of the content (never the content) and the guard's decision, which is what
`WriteDecision.audit_details()` plus a content hash provide.

What counts as anomalous, and why:
- burst: more writes inside a sliding window than a person types - a script or a looping agent;
- duplicates: a high share of identical content - replayed injection attempts or a stuck loop;
- suspicious: quarantined or rejected writes and risky searches - someone probing the firewall.
"""

from __future__ import annotations

from collections import Counter, defaultdict, deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any


@dataclass(frozen=True)
class Anomaly:
    user_id: str
    kind: str  # "burst" | "duplicates" | "suspicious"
    value: float
    threshold: float
    detail: str


@dataclass
class _UserStats:
    writes: list[datetime] = field(default_factory=list)
    hashes: Counter[str] = field(default_factory=Counter)
    flagged: int = 0
    risky_searches: int = 0
    categories: Counter[str] = field(default_factory=Counter)


def _ts(value: Any) -> datetime:
    return value if isinstance(value, datetime) else datetime.fromisoformat(str(value))


def max_in_window(times: list[datetime], window: timedelta) -> int:
    """The largest number of events inside any window of the given length."""
    best, q = 0, deque[datetime]()
    for t in sorted(times):
        q.append(t)
        while t - q[0] > window:
            q.popleft()
        best = max(best, len(q))
    return best


def anomalies(
    rows: Iterable[Mapping[str, Any]],
    *,
    burst_window: timedelta = timedelta(minutes=1),
    burst_threshold: int = 30,
    duplicate_ratio: float = 0.5,
    min_writes: int = 10,
    suspicious_threshold: int = 3,
    search_risk: float = 0.7,
) -> list[Anomaly]:
    """Anomalies per user, worst first within each kind.

    Each row: `user_id`, `action` ("write", "search", "update", "forget", ...), `created_at`
    (datetime or ISO string) and `details` with optional `content_hash`, `action` (the guard's:
    allow | quarantine | reject), `risk` and `categories`.
    """
    users: dict[str, _UserStats] = defaultdict(_UserStats)
    for row in rows:
        u = users[str(row["user_id"])]
        details = row.get("details") or {}
        if row["action"] in ("write", "update"):
            u.writes.append(_ts(row["created_at"]))
            if details.get("content_hash"):
                u.hashes[str(details["content_hash"])] += 1
            if details.get("action") in ("quarantine", "reject"):
                u.flagged += 1
                u.categories.update(details.get("categories") or [])
        elif row["action"] == "search" and float(details.get("risk") or 0) >= search_risk:
            u.risky_searches += 1
    out: list[Anomaly] = []
    for user_id, u in users.items():
        burst = max_in_window(u.writes, burst_window)
        if burst > burst_threshold:
            out.append(
                Anomaly(
                    user_id,
                    "burst",
                    burst,
                    burst_threshold,
                    f"{burst} writes within {burst_window}",
                )
            )
        hashed = sum(u.hashes.values())
        if hashed >= min_writes:
            dup = 1 - len(u.hashes) / hashed
            if dup >= duplicate_ratio:
                out.append(
                    Anomaly(
                        user_id,
                        "duplicates",
                        round(dup, 3),
                        duplicate_ratio,
                        f"{hashed - len(u.hashes)} of {hashed} writes repeat content",
                    )
                )
        hits = u.flagged + u.risky_searches
        if hits >= suspicious_threshold:
            top = ", ".join(f"{c}={n}" for c, n in u.categories.most_common(3)) or "none"
            out.append(
                Anomaly(
                    user_id,
                    "suspicious",
                    hits,
                    suspicious_threshold,
                    f"{u.flagged} writes quarantined or rejected, {u.risky_searches}"
                    f" risky searches; categories: {top}",
                )
            )
    return sorted(out, key=lambda a: (a.kind, -a.value))


__all__ = ["Anomaly", "anomalies", "max_in_window"]
