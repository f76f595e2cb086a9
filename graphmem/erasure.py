"""Erase a user: every store, a receipt with counts, and a verification scan that proves it.

Order matters for resumability. The records transaction deletes every row about the user and
queues an `erase_user` tombstone in the outbox; that commit is the point of no return. The
tombstone then drives deletion from the vector index and the graph, retried like any other
projection if a store is down or the process dies, so re-running (or just restarting) finishes
the job. Caches and working memory are purged last, and a scan counts what is left everywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from graphmem.model import utcnow
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

    @property
    def verified(self) -> bool:
        return not self.pending and not any(self.residue.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "user_id": self.user_id,
            "requested_by": self.requested_by,
            "deleted": self.deleted,
            "residue": self.residue,
            "pending": self.pending,
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
    with svc._write_lock:
        deleted: dict[str, Any] = {
            f"records.{t}": n for t, n in svc.records.erase_user(user_id, requested_by).items()
        }
        tombstones = [
            it for it in svc.records.outbox_for([ERASE_MARK]) if it.user_id == user_id
        ]
        svc.projector.apply(tombstones)
    pending = [
        t for it in svc.records.outbox_for([ERASE_MARK]) if it.user_id == user_id
        for t in it.target.split(",") if t
    ]
    deleted["vectors"] = before_vectors
    deleted["graph.nodes"] = before_nodes
    deleted["query_cache"] = svc.embedder.forget_user(user_id)
    for name, (purge, _) in purgers.items():
        deleted[name] = purge(user_id)
    left = {k: v for k, v in _safe_residue(svc, user_id, purgers).items()}
    return ErasureReceipt(user_id, requested_by, deleted, left, sorted(set(pending)),
                          utcnow().isoformat())


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
