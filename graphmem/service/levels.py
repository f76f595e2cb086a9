"""The levels a service's stores hold, read for Prometheus at scrape time: memory counts,
outbox backlog and lag, cache hit counters, store reachability (graphmem.infra.metrics holds
the registry and the event counters; these are read from the bound service's Context, so they
can never drift from the stores)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from graphmem.infra.metrics import REGISTRY, STATUSES
from graphmem.service.context import Context

log = logging.getLogger("graphmem.metrics")


def store_health(ctx: Context) -> dict[str, bool]:
    """Whether each store a request may need answers its health check right now (records,
    vectors, graph, cache: what /healthz and `graphmem_store_up` report). A closed service
    fails here too: closing drops the SQLite connection and the Qdrant Edge shard and marks
    the graph closed, so each of those answers "not ok" afterwards."""
    health = {}
    for name, store in (
        ("records", ctx.records),
        ("vectors", ctx.vectors),
        ("graph", ctx.graph),
        ("cache", ctx.cache),
    ):
        try:
            health[name] = bool(store.health().get("ok"))
        except Exception:  # noqa: BLE001 - a health check that raises means down
            health[name] = False
    return health


class ServiceCollector:
    """Reads levels from one service's Context at scrape time (memory counts, outbox, caches,
    store reachability): a handful of COUNT queries and health checks per scrape."""

    def __init__(self, context: Context) -> None:
        self.ctx = context

    def describe(self) -> list[Metric]:
        return []  # levels are read lazily; nothing to check for name clashes up front

    def collect(self) -> Iterator[Metric]:
        yield from self._read()

    def _read(self) -> list[Metric]:
        ctx = self.ctx
        out: list[Metric] = []
        up = GaugeMetricFamily(
            "graphmem_store_up", "1 when the store answers its health check", labels=["store"]
        )
        for name, ok in store_health(ctx).items():
            up.add_metric([name], 1.0 if ok else 0.0)
        out.append(up)

        memories = GaugeMetricFamily(
            "graphmem_memories", "Memories stored, all users together, by status", labels=["status"]
        )
        outbox = GaugeMetricFamily(
            "graphmem_outbox_pending", "Outbox rows not yet projected to vectors and graph"
        )
        lag = GaugeMetricFamily(
            "graphmem_outbox_lag_seconds",
            "Age of the oldest unprojected outbox row (0 when the outbox is empty)",
        )
        try:
            for status in STATUSES:
                memories.add_metric([status], float(ctx.records.count(status=status)))
            outbox.add_metric([], float(ctx.records.outbox_count()))
            oldest = ctx.records.outbox_oldest()
            lag.add_metric([], max(0.0, time.time() - oldest.timestamp()) if oldest else 0.0)
            out += [memories, outbox, lag]
        except Exception as e:  # noqa: BLE001 - records down: graphmem_store_up says so
            log.warning("metrics: records store unavailable: %s", e)

        cache = CounterMetricFamily(
            "graphmem_cache_requests",
            "Cache lookups by cache (query_embedding, search) and result (hit, miss)",
            labels=["cache", "result"],
        )
        cache.add_metric(["query_embedding", "hit"], float(ctx.embedder.cache_hits))
        cache.add_metric(["query_embedding", "miss"], float(ctx.embedder.cache_misses))
        cache.add_metric(["search", "hit"], float(ctx.search_stats.cache_hits))
        cache.add_metric(["search", "miss"], float(ctx.search_stats.cache_misses))
        out.append(cache)
        return out


_bound: ServiceCollector | None = None
_bind_lock = threading.Lock()


def bind(context: Context) -> None:
    """Report this service's levels (one service per server process; a new one replaces it)."""
    global _bound
    with _bind_lock:
        if _bound is not None and _bound.ctx is context:
            return
        if _bound is not None:
            REGISTRY.unregister(_bound)
        _bound = ServiceCollector(context)
        REGISTRY.register(_bound)
