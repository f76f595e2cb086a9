"""`graphmem export --format graphmem-v1 DIR`: everything graphmem keeps about a user, in an
open format that `graphmem import --from graphmem-v1` restores exactly.

What is written is what the records store holds, not what recall shows: every memory in every
status (versions, held, archived), every document chunk with its history, every image memory
with its bytes (graphmem.usecases.images_v1), the entity links and every relation, so nothing
is lost by leaving or by moving between stores. Vectors and the graph
projection are not written: they are derived, and the importing store rebuilds them with its
own embedder. Secrets stay vault references (`[secret:password#1]`): their values are
encrypted under the source store's key and never leave it. Every line is sorted and encoded
one way (graphmem.importers.graphmem_v1.line), so exporting the same store twice, or a store
restored from an export, gives the same bytes; the manifest has no export time for that
reason.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from graphmem.domain.filters import MemoryFilter
from graphmem.domain.model import Kind, Memory, Status, check_user
from graphmem.domain.temporal import SUPERSEDED_BY, UPDATE_OF
from graphmem.guard.policy import REF_RE
from graphmem.guard.policy import redact as redact_text
from graphmem.importers import graphmem_v1 as v1
from graphmem.stores.records import EntityRef, RecordQuery, Relation
from graphmem.usecases.images_v1 import MEASURED, export_images
from graphmem.usecases.ports import ImagePorts, RecordsPorts
from graphmem.usecases.review import hold_reasons
from graphmem.version import __version__

PAGE = 1000


def redacted(row: dict[str, Any]) -> dict[str, Any]:
    """An exported memory with contact details and personal data masked in its content, summary
    and string metadata values (graphmem.guard.policy.redact). What graphmem measured from an
    image (its sha256, format, size) is no one's words and is kept: a digest whose digits read
    like a phone number must still name the image's file."""
    out = dict(row)
    for key in ("content", "summary"):
        if isinstance(out.get(key), str):
            out[key] = redact_text(out[key])
    if isinstance(out.get("metadata"), dict):
        out["metadata"] = {
            k: redact_text(v) if isinstance(v, str) and k not in MEASURED else v
            for k, v in out["metadata"].items()
        }
    return out


def _rows(ctx: RecordsPorts, user_id: str, kind: Kind) -> list[Memory]:
    """Every record of one kind in any status, in write order (created_at, then the order
    they were stored in): the order an import stores them back in."""
    statuses = tuple(s.value for s in Status)
    rows = ctx.records.list(
        RecordQuery(user_id, None, statuses, None, filter=MemoryFilter(kinds=(kind.value,)))
    )
    rows.sort(key=lambda m: (m.created_at, m.seq or 0, m.id))
    return rows


def _relations(ctx: RecordsPorts, user_id: str) -> list[Relation]:
    out: list[Relation] = []
    cursor = 0
    while True:
        cursor, page = ctx.records.relations_page(cursor, PAGE, user_id)
        if not page:
            break
        out.extend(page)
    return sorted(out, key=lambda r: (r.source_id, r.target_id, r.relation_type))


def _record(m: Memory, newer: dict[str, str], redact: bool) -> dict[str, Any]:
    row = m.to_dict()
    row.pop("merged_into", None)  # not stored: only ever set on what a write returns
    row["superseded_by"] = newer.get(m.id)
    return redacted(row) if redact else row


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def _documents(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One line per document source: its current chunks in order and its earlier ones. Built
    from the exported chunk rows, so --redact masks the source and title here too."""
    docs: dict[str, dict[str, Any]] = {}
    for row in chunks:
        meta = row["metadata"]
        uri = str(meta.get("doc_uri", ""))
        d = docs.setdefault(uri, {"source": uri, "chunk_ids": [], "history_ids": []})
        if row["status"] in (Status.ACTIVE.value, Status.QUARANTINED.value):
            d["title"] = meta.get("doc_title", "")
            d["format"] = meta.get("doc_format")
            d["content_hash"] = meta.get("doc_hash")
            d["ingested_at"] = row["created_at"]
            index = meta.get("chunk_index")
            d["chunk_ids"].append((index if isinstance(index, int) else 0, row["id"]))
        else:
            d["history_ids"].append(row["id"])
    out = []
    for d in docs.values():
        d["chunk_ids"] = [i for _, i in sorted(d["chunk_ids"])]
        for key in ("title", "format", "content_hash", "ingested_at"):
            d.setdefault(key, None)
        out.append(d)
    return sorted(out, key=lambda d: d["source"])


def _entities(links: dict[str, list[EntityRef]]) -> list[dict[str, Any]]:
    grouped: dict[tuple[str, str, str], list[str]] = {}
    for mid, refs in links.items():
        for r in refs:
            grouped.setdefault((r.key, r.entity_type, r.name), []).append(mid)
    return [
        {"key": k, "entity_type": t, "name": n, "memory_ids": sorted(set(ids))}
        for (k, t, n), ids in sorted(grouped.items())
    ]


def _write(root: Path, name: str, lines: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """One data file, written beside its final name and renamed into place; its manifest
    entry (records, bytes, sha256)."""
    path = root / name
    tmp = root / f".{name}.tmp"
    n = 0
    with tmp.open("w", encoding="utf-8", newline="\n") as f:
        for obj in lines:
            f.write(v1.line(obj) + "\n")
            n += 1
    os.replace(tmp, path)
    return {"records": n, "bytes": path.stat().st_size, "sha256": v1.sha256_file(path)}


def export_v1(ctx: ImagePorts, user_id: str, out_dir: str | Path, *, redact: bool = False) -> dict:
    """Write the user's export into `out_dir` (created if missing; graphmem-v1 files in it are
    replaced, nothing else is touched) and return the manifest. The manifest is written last,
    so a folder with one is a finished export."""
    user_id = check_user(user_id)
    root = Path(out_dir)
    root.mkdir(parents=True, exist_ok=True)
    memories = _rows(ctx, user_id, Kind.MEMORY)
    chunks = _rows(ctx, user_id, Kind.DOCUMENT)
    images = _rows(ctx, user_id, Kind.IMAGE)
    records = memories + chunks + images
    relations = _relations(ctx, user_id)
    newer = {r.source_id: r.target_id for r in relations if r.relation_type == SUPERSEDED_BY}
    ids = [m.id for m in records]
    links: dict[str, list[EntityRef]] = {}
    for i in range(0, len(ids), PAGE):
        links.update(ctx.records.entities_for(user_id, ids[i : i + PAGE]))
    chunk_rows = [_record(m, newer, redact) for m in chunks]
    held = [m for m in records if m.status == Status.QUARANTINED]
    held.sort(key=lambda m: (m.created_at, m.seq or 0, m.id))
    reasons = hold_reasons(ctx, user_id, [m.id for m in held]) if held else {}
    files = {
        v1.MEMORIES: _write(root, v1.MEMORIES, (_record(m, newer, redact) for m in memories)),
        v1.CHUNKS: _write(root, v1.CHUNKS, chunk_rows),
        v1.IMAGES: _write(root, v1.IMAGES, (_record(m, newer, redact) for m in images)),
        v1.DOCUMENTS: _write(root, v1.DOCUMENTS, _documents(chunk_rows)),
        v1.ENTITIES: _write(root, v1.ENTITIES, _entities(links)),
        v1.RELATIONS: _write(
            root,
            v1.RELATIONS,
            (
                {
                    "source_id": r.source_id,
                    "target_id": r.target_id,
                    "relation_type": r.relation_type,
                    "strength": r.strength,
                    "valid_from": _iso(r.valid_from),
                    "valid_to": _iso(r.valid_to),
                }
                for r in relations
            ),
        ),
        v1.QUARANTINE: _write(
            root,
            v1.QUARANTINE,
            (
                {
                    "id": m.id,
                    "kind": m.kind.value,
                    "created_at": m.created_at.isoformat(),
                    "update_of": m.metadata.get(UPDATE_OF),
                    "reason": redact_text(reasons[m.id]) if redact else reasons[m.id],
                }
                for m in held
            ),
        ),
    }
    image_files, withheld = export_images(ctx, user_id, images, root, redact=redact)
    refs = sum(len(REF_RE.findall(m.content)) for m in records)
    manifest = {
        "format": v1.NAME,
        "format_version": v1.VERSION,
        "graphmem_version": __version__,
        "user_id": user_id,
        "redacted": redact,
        "counts": {
            "memories": len(memories),
            "current": sum(m.status != Status.SUPERSEDED for m in memories),
            "versions": sum(m.status == Status.SUPERSEDED for m in memories),
            "chunks": len(chunks),
            "documents": files[v1.DOCUMENTS]["records"],
            "entities": files[v1.ENTITIES]["records"],
            "relations": len(relations),
            "quarantined": len(held),
            "vault_references": refs,
            "images": len(images),
            "image_files": len(image_files),
            "images_withheld": withheld,
        },
        "files": files,
        "image_files": image_files,
    }
    tmp = root / f".{v1.MANIFEST}.tmp"
    tmp.write_text(v1.manifest_text(manifest), encoding="utf-8", newline="\n")
    os.replace(tmp, root / v1.MANIFEST)
    return manifest


__all__ = ["export_v1", "redacted"]
