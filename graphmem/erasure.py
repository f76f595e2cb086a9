"""Erase a user: every store, a receipt with counts, and a verification scan that proves it.

Order matters for resumability. The records transaction deletes every row about the user and
queues an `erase_user` tombstone in the outbox; that commit is the point of no return. The
tombstone then drives deletion from the vector index and the graph, retried like any other
projection if a store is down or the process dies, so re-running (or just restarting) finishes
the job. Caches and working memory are purged last, and a scan counts what is left everywhere.

Rows gone from query results can still sit in the stores' files (free pages, full-text
segments, write-ahead logs), so the stores scrub their files, and the receipt reads every file
under the data directory for what identifies the user: their id, their session ids and a sample
of their content, captured before the delete and held only in memory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphmem.model import utcnow
from graphmem.stores.records import RecordQuery
from graphmem.stores.records_sql import ERASE_MARK

if TYPE_CHECKING:
    from graphmem.service import MemoryService

# Extra stores (working memory, result caches) register a purge and a residue count here.
Purger = tuple[Callable[[str], int], Callable[[str], int]]


@dataclass
class ErasureReceipt:
    user_id: str
    requested_by: str
    deleted: dict[str, Any]
    residue: dict[str, int]
    pending: list[str] = field(default_factory=list)
    finished_at: str = ""
    files_holding: list[str] = field(default_factory=list)

    @property
    def files_clean(self) -> bool:
        return not self.files_holding

    @property
    def verified(self) -> bool:
        return not self.pending and not any(self.residue.values()) and self.files_clean

    def to_dict(self) -> dict[str, Any]:
        return {
            "user_id": self.user_id,
            "requested_by": self.requested_by,
            "deleted": self.deleted,
            "residue": self.residue,
            "pending": self.pending,
            "files_clean": self.files_clean,
            "files_holding": self.files_holding,
            "verified": self.verified,
            "finished_at": self.finished_at,
        }


def residue(svc: MemoryService, user_id: str, purgers: dict[str, Purger]) -> dict[str, int]:
    """What every store still holds about the user. All zeros is the proof of erasure."""
    out = {f"records.{t}": n for t, n in svc.records.user_residue(user_id).items()}
    out["vectors"] = svc.vectors.count(user_id)
    out["graph.nodes"] = len(svc.graph_store.node_ids(user_id))
    out["graph.edges"] = svc.graph_store.edge_count(user_id)
    out["query_cache"] = svc.embedder.cached_queries(user_id)
    for name, (_, count) in purgers.items():
        out[name] = count(user_id)
    return out


def erase_user(
    svc: MemoryService, user_id: str, requested_by: str, purgers: dict[str, Purger]
) -> ErasureReceipt:
    before_vectors = _safe(lambda: svc.vectors.count(user_id))
    before_nodes = _safe(lambda: len(svc.graph_store.node_ids(user_id)))
    svc.access.flush()
    markers = _markers(svc, user_id)
    with svc._write_lock:
        deleted: dict[str, Any] = {
            f"records.{t}": n for t, n in svc.records.erase_user(user_id, requested_by).items()
        }
        tombstones = [it for it in svc.records.outbox_for([ERASE_MARK]) if it.user_id == user_id]
        svc.projector.apply(tombstones)
    pending = [
        t
        for it in svc.records.outbox_for([ERASE_MARK])
        if it.user_id == user_id
        for t in it.target.split(",")
        if t
    ]
    deleted["vectors"] = before_vectors
    deleted["graph.nodes"] = before_nodes
    deleted["query_cache"] = svc.embedder.forget_user(user_id)
    for name, (purge, _) in purgers.items():
        deleted[name] = purge(user_id)
    _forget_checkpoint(svc, user_id)
    left = {k: v for k, v in _safe_residue(svc, user_id, purgers).items()}
    svc.records.scrub()
    holding = files_holding(Path(svc.settings.data_dir), _still_unique(svc, markers))
    return ErasureReceipt(
        user_id, requested_by, deleted, left, sorted(set(pending)), utcnow().isoformat(), holding
    )


# Shorter strings turn up in binary files by chance, so they prove nothing either way.
MIN_MARKER = 8
CONTENT_SAMPLE = 20  # memories whose opening words the file check looks for
SAMPLE_CHARS = 40  # short enough to sit whole in a database page


def _markers(svc: MemoryService, user_id: str) -> set[str]:
    """What would identify the user in a file: the id, session ids, openings of memories."""
    found = {user_id}
    mems = svc.records.list(RecordQuery(user_id=user_id, statuses=()))
    found.update(m.session_id for m in mems if m.session_id)
    longest = sorted(mems, key=lambda m: len(m.content), reverse=True)[:CONTENT_SAMPLE]
    found.update(m.content[:SAMPLE_CHARS].strip() for m in longest)
    return {m for m in found if len(m.encode()) >= MIN_MARKER}


def _still_unique(svc: MemoryService, markers: set[str]) -> set[str]:
    """Drop markers another user's memories still hold (the same words, a shared session
    name): finding those on disk says nothing about this user."""
    shared = set()
    for m in markers:
        rows = svc.records._fetch(  # type: ignore[attr-defined]
            "SELECT 1 FROM memories WHERE session_id = ? OR content LIKE ? LIMIT 1",
            (m, m.replace("%", "").replace("_", "") + "%"),
        )
        if rows:
            shared.add(m)
    return markers - shared


def files_holding(root: Path, markers: set[str], chunk: int = 1 << 22) -> list[str]:
    """Files under `root` holding any marker (UTF-8, case-insensitive), as relative paths."""
    needles = sorted({m.lower().encode() for m in markers})
    if not needles or not root.exists():
        return []
    overlap = max(len(n) for n in needles) - 1
    out = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        try:
            with path.open("rb") as f:
                tail = b""
                while block := f.read(chunk):
                    window = tail + block.lower()
                    if any(n in window for n in needles):
                        out.append(str(path.relative_to(root)))
                        break
                    tail = window[-overlap:] if overlap else b""
        except OSError:
            continue  # a file replaced meanwhile (a shard segment) is scanned in its new place
    return out


def _forget_checkpoint(svc: MemoryService, user_id: str) -> None:
    """A relations backfill of this user keeps a checkpoint file: it goes with them."""
    from graphmem.backfill import checkpoint_path

    checkpoint_path(svc, user_id).unlink(missing_ok=True)


def _safe(fn: Callable[[], int]) -> int | None:
    try:
        return fn()
    except Exception:  # noqa: BLE001 - a store that is down reports no count, not a failure
        return None


def _safe_residue(svc: MemoryService, user_id: str, purgers: dict[str, Purger]) -> dict[str, int]:
    try:
        return residue(svc, user_id, purgers)
    except Exception:  # noqa: BLE001 - unknown residue is reported as pending, never as zero
        return {"unverifiable": 1}
