"""`graphmem doctor`: is every configured store reachable, which version is it, and do the
projections (vectors, graph) hold exactly the memories the records hold?

Each store is opened on its own so one that is down is reported, not fatal for the others.
Exits 0 when everything is healthy, 1 otherwise, so it can gate a deployment.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from graphmem.cli.common import AddCommand, emit, settings_of
from graphmem.domain.model import utcnow

if TYPE_CHECKING:
    from graphmem.settings import Settings

# A running service projects an outbox row within moments of queuing it
# (graphmem.service.projection); one still queued after this long means projection has stopped or a
# store is failing.
OUTBOX_STALE_SECONDS = 60.0


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
    graph = (
        _probe("graph", lambda: open_graph(settings, records), stores)
        if records is not None
        else None
    )
    cache = _probe("cache", lambda: open_cache(settings), stores)
    if records is not None:
        ids = records.all_ids()
        drift: dict[str, Any] = {"records": len(ids), "outbox_pending": records.outbox_count()}
        if vectors is not None:
            vids = vectors.ids()
            drift["vectors"] = len(vids)
            drift["vectors_missing"] = len(ids - vids)
            drift["vectors_orphaned"] = len(vids - ids)
        if graph is not None and graph.projected:
            if graph.in_process:  # in-process: it is what the records say, by design
                from graphmem.usecases.backfill import rebuild_graph

                rebuild_graph(records, graph)
            gids = graph.node_ids()
            drift["graph_nodes"] = len(gids)
            drift["graph_missing"] = len(ids - gids)
            drift["graph_orphaned"] = len(gids - ids)
        drift["ok"] = not any(v for k, v in drift.items() if k.endswith(("_missing", "_orphaned")))
        report["drift"] = drift
        report["outbox"] = check_outbox(records)
        report["keywords"] = check_keywords(records)
        if vectors is not None:
            report["embeddings"] = check_embeddings(records, vectors, settings)
    for store in (records, vectors, graph, cache):
        if store is not None:
            store.close()
    report["ok"] = (
        all(s.get("ok") for s in stores.values())
        and report.get("drift", {}).get("ok", False)
        and report.get("embeddings", {}).get("ok", True)
        and report.get("keywords", {}).get("ok", True)
        and report.get("outbox", {}).get("ok", True)
    )
    return report


def check_outbox(records: Any, stale_after: float = OUTBOX_STALE_SECONDS) -> dict[str, Any]:
    """Is projection keeping up? Pending rows are normal for a moment; rows older than
    `stale_after` seconds mean the vectors or the graph miss recent changes."""
    pending = records.outbox_count()
    oldest = records.outbox_oldest() if pending else None
    age = max(0.0, (utcnow() - oldest).total_seconds()) if oldest else 0.0
    out: dict[str, Any] = {
        "pending": pending,
        "oldest_seconds": round(age, 1),
        "ok": age <= stale_after,
    }
    if not out["ok"]:
        out["hint"] = (
            f"{pending} outbox rows pending, the oldest for {age:.0f} s (older than"
            f" {stale_after:.0f} s): projection is stuck; check the stores above, then open the"
            " service (any graphmem command, or restart the server) to apply them"
        )
    return out


def check_keywords(records: Any) -> dict[str, Any]:
    """Are the stored keyword tokens today's? A store of another tokenizer version would miss
    what its older rows spell differently; opening the service rewrites them."""
    from graphmem.domain.text import TOKENIZER_VERSION
    from graphmem.usecases.backfill import tokenizer_version

    held = tokenizer_version(records) if records.count() else str(TOKENIZER_VERSION)
    out: dict[str, Any] = {"tokenizer": held, "ok": held == str(TOKENIZER_VERSION)}
    if not out["ok"]:
        out["hint"] = (
            f"keyword tokens are version {held}, this graphmem reads version"
            f" {TOKENIZER_VERSION}: opening the service (any graphmem command) or"
            " `graphmem backfill rebuild` rewrites them"
        )
    return out


def check_embeddings(records: Any, vectors: Any, settings: Settings, sample: int = 16) -> dict:
    """Were the stored vectors made by the model and precision configured now?

    The store records the embedder that built it (graphmem.usecases.backfill); a store that
    predates that record is checked by its vectors alone. The oldest memories are embedded
    again and compared with their stored vectors: the same configuration gives the same vector
    (cosine 1 to within 1e-6); another precision of the same model gives a median near 0.993
    and another model much less. Searches would still run, only worse, so this is the one
    place that says so.
    """
    import numpy as np

    from graphmem.embedding import DEFAULT_MODEL, embedder_for, settings_for_store
    from graphmem.usecases.backfill import EMBEDDING_META

    recorded = records.meta(EMBEDDING_META)
    kept = settings_for_store(settings, recorded)  # as the service opens it
    embedder = embedder_for(kept)
    mems = [m for _, m in records.scan(0, sample)]
    stored = vectors.vectors([m.id for m in mems]) if mems else {}
    mems = [m for m in mems if m.id in stored]
    if not mems:
        return {"checked": 0, "ok": True}
    fresh = embedder.encode([m.content for m in mems])
    cos = [float(np.dot(fresh[i], stored[m.id])) for i, m in enumerate(mems)]
    median = float(np.median(cos))
    out: dict[str, Any] = {
        "checked": len(mems),
        "median_cosine": round(median, 6),
        "ok": median >= 0.999 and recorded in (None, embedder.identity),
    }
    if out["ok"] and kept.embedding.model != settings.embedding.model:
        out["hint"] = (
            f"this store keeps {kept.embedding.model}, the model it was embedded with; the"
            f" default is now {DEFAULT_MODEL} (Chinese and cross-language recall):"
            f" `GRAPHMEM_EMBEDDING_MODEL={DEFAULT_MODEL} graphmem backfill rebuild` re-embeds it"
        )
    if not out["ok"]:
        out["recorded_model"] = recorded
        out["configured_model"] = embedder.identity
        made_by = f" (they were made by {recorded})" if recorded else ""
        out["hint"] = (
            f"the stored vectors were not made by the configured {embedder.identity}{made_by}:"
            " run `graphmem backfill rebuild` to re-embed every memory with it"
        )
    return out


def cmd_doctor(args: argparse.Namespace) -> int:
    report = diagnose(settings_of(args))
    lines = []
    for name, st in report["stores"].items():
        detail = st.get("version") or st.get("error") or ""
        lines.append(
            f"{'ok ' if st.get('ok') else 'DOWN'}  {name:8} {st.get('backend', '')}"
            f"  {detail}".rstrip()
        )
    drift = report.get("drift")
    if drift:
        lines.append("drift: " + ", ".join(f"{k}={v}" for k, v in drift.items() if k != "ok"))
    emb = report.get("embeddings")
    if emb and emb["checked"]:
        lines.append(
            f"embeddings: median cosine {emb['median_cosine']} to the stored vectors of"
            f" {emb['checked']} memories" + (f" - {emb['hint']}" if emb.get("hint") else "")
        )
    keywords = report.get("keywords")
    if keywords and keywords.get("hint"):
        lines.append(f"keywords: {keywords['hint']}")
    outbox = report.get("outbox")
    if outbox and outbox.get("hint"):
        lines.append(f"outbox: {outbox['hint']}")
    lines.append("healthy" if report["ok"] else "NOT healthy")
    emit(args, report, "\n".join(lines))
    return 0 if report["ok"] else 1


def register(add: AddCommand) -> None:
    add(
        "doctor",
        cmd_doctor,
        "check every configured store: reachable, version, and projection drift",
        user=None,
    )
