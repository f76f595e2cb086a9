"""Merging near-duplicates: at write time (merge-on-write) and in compaction.

The rules (which memories may merge, what the survivor keeps) are graphmem.domain.lifecycle's; this
module finds the candidates in the vector index and commits a merge.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np

from graphmem.domain.lifecycle import mergeable, united
from graphmem.domain.model import Kind, Memory, Status, utcnow
from graphmem.stores.vectors import VectorFilter
from graphmem.usecases.ports import ChangePorts, MergePorts

log = logging.getLogger("graphmem.lifecycle")


def merge(ctx: ChangePorts, user_id: str, members: Sequence[Memory]) -> Memory:
    """Merge a group of one user's memories; returns the survivor as stored."""
    survivor, losers = united(list(members), utcnow(), ctx.settings)
    ids = [m.id for m in losers]
    with ctx.serialised(user_id):
        done = ctx.records.merge(user_id, survivor, ids)
        if done:
            touched = [survivor.id, *done]
            known = ctx.stored_vectors(touched)
            ctx.projector.apply(ctx.records.outbox_for(touched), known)
            ctx.invalidate(user_id)  # last: a search cached before it was made is unreachable
            ctx.records.audit(
                user_id, "merge", touched, {"survivor": survivor.id, "merged": len(done)}
            )
    return ctx.records.get(user_id, [survivor.id]).get(survivor.id, survivor)


def duplicates_of(
    ctx: MergePorts, user_id: str, memory_id: str, vec: np.ndarray
) -> list[tuple[str, float]]:
    """Active memories of the user at least `merge_similarity` similar: an index query."""
    s = ctx.settings
    # Memories only: a memory never folds into a document chunk (chunks dedupe by hash).
    flt = VectorFilter(user_id, None, (Status.ACTIVE.value,), kind=Kind.MEMORY.value)
    hits = ctx.vectors.search(vec, flt, s.lifecycle.merge_neighbours + 1)
    return [
        (h.memory_id, h.score)
        for h in hits
        if h.memory_id != memory_id and h.score >= ctx.merge_similarity
    ]


def merge_on_write(
    ctx: MergePorts, user_id: str, memories: list[Memory], vecs: np.ndarray
) -> list[Memory]:
    """Merge each just-written memory into its nearest active near-duplicate, at once.

    Returns the written list with merged entries replaced by their survivor, so a caller gets
    the id that now holds the memory; such a survivor has `merged_into` set to its own id, so the
    caller also learns that nothing new was stored.
    """
    if not ctx.settings.lifecycle.merge_on_write:
        return memories
    out = list(memories)
    folded: dict[str, Memory] = {}
    for i, (m, v) in enumerate(zip(memories, vecs, strict=True)):
        if m.status != Status.ACTIVE or m.id in folded:
            out[i] = folded.get(m.id, m)
            continue
        try:
            dups = duplicates_of(ctx, user_id, m.id, v)
        except Exception as e:  # noqa: BLE001 - merging is an optimisation; the write stands
            log.warning("merge-on-write skipped, vector index unavailable: %s", e)
            return out
        rows = ctx.records.get(user_id, [d for d, _ in dups])
        now = utcnow()
        best = next((rows[d] for d, _ in dups if d in rows and mergeable(m, rows[d], now)), None)
        if best is None:
            continue
        survivor = merge(ctx, user_id, [m, best])
        if survivor.id != m.id:
            survivor.merged_into = survivor.id
        for gone in (m, best):
            if gone.id != survivor.id:
                folded[gone.id] = survivor
        out[i] = survivor
    return out


__all__ = ["duplicates_of", "merge", "merge_on_write"]
