"""`graphmem doctor`: is every configured store reachable, which version is it, and do the
projections (vectors, graph) hold exactly the memories the records hold?

Each store is opened on its own so one that is down is reported, not fatal for the others.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphmem.settings import Settings


def _probe(name: str, opener: Callable[[], Any], report: dict[str, Any]) -> Any:
    try:
        store = opener()
    except Exception as e:  # noqa: BLE001 - a store that is down is a finding, not a crash
        report[name] = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        return None
    report[name] = store.health()
    return store if report[name].get("ok") else None


def diagnose(settings: Settings, dim: int = 384) -> dict[str, Any]:
    from graphmem.stores import open_cache, open_graph, open_records, open_vectors

    report: dict[str, Any] = {"stores": {}}
    stores = report["stores"]
    records = _probe("records", lambda: open_records(settings), stores)
    vectors = _probe("vectors", lambda: open_vectors(settings, dim), stores)
    graph = _probe("graph", lambda: open_graph(settings), stores)
    cache = _probe("cache", lambda: open_cache(settings), stores)
    if records is not None:
        ids = records.all_ids()
        drift: dict[str, Any] = {"records": len(ids), "outbox_pending": records.outbox_count()}
        if vectors is not None:
            vids = vectors.ids()
            drift["vectors"] = len(vids)
            drift["vectors_missing"] = len(ids - vids)
            drift["vectors_orphaned"] = len(vids - ids)
        if graph is not None:
            if graph.backend == "networkx":  # in-process: it is what the records say, by design
                from graphmem.backfill import rebuild_graph

                rebuild_graph(records, graph)
            gids = graph.node_ids()
            drift["graph_nodes"] = len(gids)
            drift["graph_missing"] = len(ids - gids)
            drift["graph_orphaned"] = len(gids - ids)
        drift["ok"] = not any(v for k, v in drift.items() if k.endswith(("_missing", "_orphaned")))
        report["drift"] = drift
    for store in (records, vectors, graph, cache):
        if store is not None:
            store.close()
    report["ok"] = all(s.get("ok") for s in stores.values()) and report.get("drift", {}).get(
        "ok", False)
    return report
