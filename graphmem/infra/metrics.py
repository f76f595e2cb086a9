"""Prometheus metrics: what an operator watches, and what `memory_health` reports.

One registry per process. Event counters and latency histograms are fed where the events
happen (the MCP middleware for tool calls, the search pipeline for recall channels, the
use-cases and projector where a store error is caught, the write use-case where the firewall
decides a write); levels that live in the stores (memory counts, outbox backlog and lag, cache
hit counters, store reachability) are read from the bound service's Context at scrape time
(graphmem.service.levels), so they can never drift from the stores. `render()` is what
`GET /metrics` serves and `snapshot()` is the same collection as a dict, so a scrape and
`memory_health` read identical numbers.

Labels are small closed sets (tool names, channel names, store names, firewall actions):
never a user id or content, so neither cardinality nor privacy grows with the data.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
)

log = logging.getLogger("graphmem.metrics")

PREFIX = "graphmem_"
CHANNELS = ("query_embedding", "vector", "keyword", "graph")
STORES = ("records", "vectors", "graph", "cache")
ACTIONS = ("allow", "quarantine", "reject")
STATUSES = ("active", "archived", "quarantined")
# Seconds: from a cached keyword lookup (~1 ms) to a cold 1M-memory hybrid search (seconds).
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

REGISTRY = CollectorRegistry()
ProcessCollector(registry=REGISTRY)  # process_resident_memory_bytes, cpu seconds, open fds
PlatformCollector(registry=REGISTRY)

TOOL_CALLS = Counter(
    "graphmem_tool_calls",
    "MCP tool calls, by tool and outcome (ok or error)",
    ["tool", "outcome"],
    registry=REGISTRY,
)
TOOL_LATENCY = Histogram(
    "graphmem_tool_latency_seconds",
    "MCP tool call latency inside the server",
    ["tool"],
    buckets=LATENCY_BUCKETS,
    registry=REGISTRY,
)
CHANNEL_CALLS = Counter(
    "graphmem_recall_channel_calls",
    "Recall channel runs (query_embedding, vector, keyword, graph), by outcome",
    ["channel", "outcome"],
    registry=REGISTRY,
)
CHANNEL_LATENCY = Histogram(
    "graphmem_recall_channel_latency_seconds",
    "Latency of one recall channel within a search",
    ["channel"],
    buckets=LATENCY_BUCKETS,
    registry=REGISTRY,
)
STORE_ERRORS = Counter(
    "graphmem_store_errors",
    "Store failures that were caught and degraded (recall without a channel, projection"
    " retried later, cache skipped), by store and operation",
    ["store", "operation"],
    registry=REGISTRY,
)
WRITE_DECISIONS = Counter(
    "graphmem_firewall_write_decisions",
    "Memory firewall decisions on writes and content updates: allow, quarantine, reject",
    ["action"],
    registry=REGISTRY,
)
QUARANTINE_REVIEWS = Counter(
    "graphmem_quarantine_reviews",
    "Quarantined memories reviewed: approved (back into recall) or rejected (deleted)",
    ["decision"],
    registry=REGISTRY,
)

_KNOWN_OPERATIONS = {
    "records": ("access_stats",),
    "vectors": ("search", "fetch", "project"),
    "graph": ("expand", "project"),
    "cache": ("get", "set", "invalidate"),
}


def _initialise_series(tools: frozenset[str] | set[str] = frozenset()) -> None:
    """Create every known label set at zero, so dashboards and rate() see a series before the
    first event (a counter that appears only on its first error hides the first error)."""
    for tool in tools:
        for outcome in ("ok", "error"):
            TOOL_CALLS.labels(tool, outcome)
        TOOL_LATENCY.labels(tool)
    for ch in CHANNELS:
        for outcome in ("ok", "error"):
            CHANNEL_CALLS.labels(ch, outcome)
        CHANNEL_LATENCY.labels(ch)
    for store, ops in _KNOWN_OPERATIONS.items():
        for op in ops:
            STORE_ERRORS.labels(store, op)
    for action in ACTIONS:
        WRITE_DECISIONS.labels(action)
    for decision in ("approved", "rejected"):
        QUARANTINE_REVIEWS.labels(decision)


_initialise_series()


# ----------------------------------------------------------------------------- event hooks
def observe_tool(tool: str, seconds: float, ok: bool) -> None:
    TOOL_CALLS.labels(tool, "ok" if ok else "error").inc()
    TOOL_LATENCY.labels(tool).observe(max(0.0, seconds))


def register_tools(tools: frozenset[str] | set[str]) -> None:
    _initialise_series(tools)


@contextmanager
def channel(name: str) -> Iterator[None]:
    """Time one recall channel; an exception counts as an error and propagates unchanged."""
    start = time.perf_counter()
    outcome = "error"
    try:
        yield
        outcome = "ok"
    finally:
        CHANNEL_CALLS.labels(name, outcome).inc()
        CHANNEL_LATENCY.labels(name).observe(time.perf_counter() - start)


def store_error(store: str, operation: str) -> None:
    STORE_ERRORS.labels(store, operation).inc()


def write_decision(action: str) -> None:
    WRITE_DECISIONS.labels(action if action in ACTIONS else "other").inc()


def quarantine_review(approved: bool, count: int) -> None:
    QUARANTINE_REVIEWS.labels("approved" if approved else "rejected").inc(count)


# ----------------------------------------------------------------------------- latencies
def percentile(values: Iterable[float], p: float) -> float | None:
    """Nearest-rank percentile (p in [0, 100]); None when there is nothing to rank."""
    s = sorted(values)
    if not s:
        return None
    return s[max(0, min(len(s) - 1, round(p / 100.0 * (len(s) - 1))))]


class LatencyRecorder:
    """The last `keep` latencies (ms), thread-safe: bounded, so a long-running server's
    figures describe its recent calls and its memory stays flat."""

    def __init__(self, keep: int = 2048) -> None:
        self._values: deque[float] = deque(maxlen=keep)
        self._lock = threading.Lock()

    def add(self, ms: float) -> None:
        with self._lock:
            self._values.append(ms)

    def values(self) -> list[float]:
        with self._lock:
            return list(self._values)

    def __iter__(self) -> Iterator[float]:
        return iter(self.values())

    def __len__(self) -> int:
        return len(self._values)

    def percentile(self, p: float, digits: int = 3) -> float | None:
        value = percentile(self.values(), p)
        return None if value is None else round(value, digits)


# ----------------------------------------------------------------------------- reading
def render() -> tuple[bytes, str]:
    """The exposition text for GET /metrics and its content type."""
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST


def snapshot() -> dict[str, Any]:
    """graphmem's own metrics as a dict, from the same collection a scrape renders.

    Counters and gauges give their value per label set; histograms give count and sum
    (seconds). Label values nest in label order: {"memory_search": {"ok": 3.0}}.
    """
    out: dict[str, Any] = {}
    for family in REGISTRY.collect():
        if not family.name.startswith(PREFIX):
            continue
        name = family.name + ("_total" if family.type == "counter" else "")
        entry: dict[str, Any] = {}
        for s in family.samples:
            labels = [v for k, v in s.labels.items() if k != "le"]
            if family.type == "histogram":
                field = {"_count": "count", "_sum": "sum"}.get(s.name[len(family.name) :])
                if field is None:
                    continue
                node = _nest(entry, labels)
                node[field] = s.value
            elif family.type == "counter" and not s.name.endswith("_total"):
                continue  # *_created timestamps
            elif labels:
                _nest(entry, labels[:-1])[labels[-1]] = s.value
            else:
                out[name] = s.value
                break
        else:
            out[name] = entry
    return out


def _nest(root: dict[str, Any], keys: list[str]) -> dict[str, Any]:
    node = root
    for k in keys:
        node = node.setdefault(k, {})
    return node


__all__ = [
    "REGISTRY",
    "LatencyRecorder",
    "channel",
    "observe_tool",
    "percentile",
    "quarantine_review",
    "register_tools",
    "render",
    "snapshot",
    "store_error",
    "write_decision",
]
