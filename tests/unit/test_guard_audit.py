"""Audit anomalies: bursts, duplicate content and firewall probing, per user."""

from __future__ import annotations

from datetime import datetime, timedelta

from graphmem.guard.audit_report import anomalies, max_in_window

T0 = datetime(2024, 5, 1, 12, 0, 0)


def write(user: str, seconds: float, h: str, action: str = "allow") -> dict[str, object]:
    return {
        "user_id": user,
        "action": "write",
        "created_at": T0 + timedelta(seconds=seconds),
        "details": {
            "content_hash": h,
            "action": action,
            "categories": ["override"] if action != "allow" else [],
        },
    }


def test_sliding_window_count() -> None:
    times = [T0 + timedelta(seconds=s) for s in (0, 10, 59, 61, 200)]
    assert max_in_window(times, timedelta(minutes=1)) == 3


def test_burst_duplicates_and_probing_are_reported_per_user() -> None:
    rows = [write("bot", i, f"h{i % 3}") for i in range(40)]  # 40 writes in 40 s, 3 distinct
    rows += [write("alice", i * 120, f"a{i}") for i in range(12)]  # calm and varied
    rows += [write("mallory", i * 90, f"m{i}", "quarantine") for i in range(4)]
    rows += [
        {
            "user_id": "mallory",
            "action": "search",
            "created_at": T0.isoformat(),
            "details": {"risk": 0.9},
        }
    ]
    found = {(a.user_id, a.kind) for a in anomalies(rows)}
    assert found == {("bot", "burst"), ("bot", "duplicates"), ("mallory", "suspicious")}
    sus = next(a for a in anomalies(rows) if a.kind == "suspicious")
    assert sus.value == 5 and "override=4" in sus.detail


def test_forget_rows_without_content_are_fine() -> None:
    rows = [{"user_id": "u", "action": "forget", "created_at": T0, "details": {"count": 3}}]
    assert anomalies(rows) == []
