"""Batch jobs over the records: re-run extraction (`backfill relations`) and rebuild the vector
and graph projections (`backfill rebuild`; graphmem.projection.rebuild_graph rebuilds the
graph alone).

`backfill_relations` walks memories in storage order (doc_id), `batch` at a time, extracts
entities and relations exactly as a write does, stores them (insert-or-keep: re-running adds no
duplicate) and queues their graph projection. After each batch it writes a checkpoint file under
the data directory, so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphmem.context import Context
from graphmem.projection import rebuild_graph, vector_point
from graphmem.settings import Settings

CHECKPOINT = "backfill-relations.json"


@dataclass
class BackfillReport:
    memories: int = 0
    relations: int = 0
    entities: int = 0
    batches: int = 0
    resumed_from: int = 0
    last_doc_id: int = 0
    dry_run: bool = False
    complete: bool = True

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _bar(total: int, desc: str, quiet: bool) -> Any:
    from tqdm import tqdm

    return tqdm(
        total=total,
        unit="mem",
        desc=desc,
        file=sys.stderr,
        disable=quiet or not sys.stderr.isatty(),
    )


def checkpoint_path(settings: Settings, user_id: str | None) -> Path:
    suffix = "" if user_id is None else "." + hashlib.sha1(user_id.encode()).hexdigest()[:12]
    return Path(settings.data_dir) / CHECKPOINT.replace(".json", f"{suffix}.json")


def backfill_relations(
    ctx: Context,
    *,
    user_id: str | None = None,
    batch: int = 200,
    dry_run: bool = False,
    restart: bool = False,
    max_batches: int | None = None,
    quiet: bool = True,
    checkpoint: Path | None = None,
) -> BackfillReport:
    ckpt = checkpoint or checkpoint_path(ctx.settings, user_id)
    start = 0
    if ckpt.exists() and not restart:
        state = json.loads(ckpt.read_text("utf-8"))
        if state.get("user_id") == user_id:
            start = int(state.get("last_doc_id", 0))
    rep = BackfillReport(resumed_from=start, last_doc_id=start, dry_run=dry_run)
    total = ctx.records.count(user_id)
    bar = _bar(total, "backfill relations", quiet)
    cursor = start
    while True:
        if max_batches is not None and rep.batches >= max_batches:
            rep.complete = False
            break
        page = ctx.records.scan(cursor, batch, user_id)
        if not page:
            break
        cursor = page[-1][0]
        memories = [m for _, m in page]
        extractions = ctx.extractor.extract_many([m.content for m in memories])
        by_user: dict[str, list[int]] = {}
        for i, m in enumerate(memories):
            by_user.setdefault(m.user_id, []).append(i)
        with ctx.write_lock:
            for uid, idx in by_user.items():
                ms = [memories[i] for i in idx]
                rows = ctx.linker.link(uid, ms, [extractions[i] for i in idx])
                rep.relations += len(rows.relations)
                rep.entities += sum(len(v) for v in rows.entities.values())
                if not dry_run:
                    ctx.records.save_graph(rows)
            if not dry_run:
                ctx.drain_outbox()
                ckpt.parent.mkdir(parents=True, exist_ok=True)
                ckpt.write_text(json.dumps({"user_id": user_id, "last_doc_id": cursor}), "utf-8")
        rep.memories += len(page)
        rep.batches += 1
        rep.last_doc_id = cursor
        bar.update(len(page))
    bar.close()
    return rep


def rebuild(
    ctx: Context, *, user_id: str | None = None, batch: int = 256, quiet: bool = True
) -> dict[str, int]:
    """Rebuild the vector index and the graph from the records: re-embed, re-project."""
    records, vectors = ctx.records, ctx.vectors
    total = records.count(user_id)
    with ctx.write_lock:
        if user_id is not None:
            vectors.delete_user(user_id)
        else:
            stale = vectors.ids() - records.all_ids()
            if stale:
                vectors.delete(sorted(stale))
        bar = _bar(total, "rebuild vectors", quiet)
        n, cursor = 0, 0
        while True:
            page = records.scan(cursor, batch, user_id)
            if not page:
                break
            cursor = page[-1][0]
            ms = [m for _, m in page]
            vecs = ctx.embedder.encode([m.content for m in ms])
            vectors.upsert([vector_point(m, v) for m, v in zip(ms, vecs, strict=True)])
            n += len(ms)
            bar.update(len(ms))
        bar.close()
        bar = _bar(total, "rebuild graph", quiet)
        g = rebuild_graph(records, ctx.graph, user_id, progress=bar.update)
        bar.close()
    return {"vectors": n, "graph_nodes": g}
