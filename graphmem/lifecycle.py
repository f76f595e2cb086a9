"""The memory lifecycle rules: how a memory decays, when it is archived, when it expires, and
how near-duplicates are merged.

More memories are not better memories: stale and redundant ones bury the right answer. These
rules are pure functions of a memory, the clock and the settings, so the write path, recall and
the compaction job (graphmem.compaction) apply exactly the same ones.

decay_score (in [0, 1]):

    decay = confidence * (DECAY_RECENCY * R + DECAY_FREQUENCY * F)     (0.6 and 0.4)
    R = recency(last_seen)  = 0.5 ** (days since last_seen / recency_half_life_days)
    F = frequency(accesses) = min(1, log(1 + access_count) / log(1 + frequency_saturation))

where last_seen is the later of the last access and the last write of the memory (a memory
that was never recalled counts from when it was stored, not from the date it talks about).
R and F are `graphmem.ranking.recency` and `graphmem.ranking.frequency`, the functions behind
the ranking's recency and frequency channels, with the same half-life and saturation. A fresh
memory starts at 0.6 (times its confidence); use keeps an old one alive. With the defaults
(30-day half-life, saturation 50) a memory never recalled falls below the 0.3 archive threshold
after 30 days, one recalled 5 times after about 70 days, 10 times after about 103 days, and
one recalled 50 times or more never does (0.4 * F alone is 0.4).

Archive: active, not seen for more than `archive_after_days`, and decay below
`archive_below_decay` -> status archived (out of default recall, `include_archived` finds it,
`restore` brings it back).

TTL: a memory of a type with a TTL (`ttl_hours`; task 24 h, event 90 days by default) gets
`expires_at` = written + TTL; an expired memory is no longer recalled and compaction purges
it from every store through the same path as forget.

Merge: two active memories of one user, of the same type and source, with cosine >=
`merge_similarity`, that say the same thing (`graphmem.meaning.same_meaning`: no number, date,
time, weekday, month, name or negation differs) become one. A near-duplicate that changes such
a value is an update, not a duplicate: graphmem.temporal lets the newer supersede the older, with
the history kept. The oldest survives (its id, content and created_at), access
counts are summed, the last access, confidence and metadata are united, the others' relations
and entities move to it, and each merged memory stays as an archived row joined by a
`merged_from` edge.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import numpy as np

from graphmem import ranking
from graphmem.meaning import same_meaning
from graphmem.model import Memory, Status, utcnow
from graphmem.settings import Settings
from graphmem.stores.vectors import VectorFilter

if TYPE_CHECKING:
    from graphmem.service import MemoryService

log = logging.getLogger("graphmem.lifecycle")

MERGE_META_KEYS = ("merged_from", "merged_into")
DECAY_RECENCY = 0.6
DECAY_FREQUENCY = 0.4


# ---------------------------------------------------------------- rules (pure)
def last_seen(m: Memory) -> datetime:
    """When the memory was last used or written, whichever is later."""
    if m.last_access_at is not None and m.last_access_at > m.updated_at:
        return m.last_access_at
    return m.updated_at


def decay_score(m: Memory, now: datetime, s: Settings) -> float:
    r = ranking.recency(last_seen(m), now, s.recency_half_life_days)
    f = ranking.frequency(m.access_count, s.frequency_saturation)
    return round(m.confidence * (DECAY_RECENCY * r + DECAY_FREQUENCY * f), 6)


def expiry(memory_type: str, written_at: datetime, s: Settings) -> datetime | None:
    hours = s.ttl_hours.get(memory_type)
    return None if hours is None else written_at + timedelta(hours=float(hours))


def is_expired(m: Memory, now: datetime) -> bool:
    return m.expires_at is not None and m.expires_at <= now


def should_archive(m: Memory, decay: float, now: datetime, s: Settings) -> bool:
    return (
        m.status == Status.ACTIVE
        and now - last_seen(m) > timedelta(days=s.archive_after_days)
        and decay < s.archive_below_decay
    )


def mergeable(a: Memory, b: Memory, now: datetime) -> bool:
    """Two memories a merge may fold together (similarity aside): the same user, type and
    source, both active and unexpired, saying the same thing. Type and source are kept apart on
    purpose: a task must not inherit a fact's permanence, and a user's statement must not lose
    its provenance to an agent's inference of the same words. Meaning is checked last, as it is
    the costliest test; an embedding alone cannot tell Tuesday from Thursday."""
    return (
        a.user_id == b.user_id
        and a.memory_type == b.memory_type
        and a.source == b.source
        and a.status == Status.ACTIVE == b.status
        and not is_expired(a, now)
        and not is_expired(b, now)
        and same_meaning(a.content, b.content)
    )


def merge_order(members: Sequence[Memory]) -> list[Memory]:
    """The survivor first (the oldest: its id is the one the user has known longest)."""
    return sorted(members, key=lambda m: (m.created_at, m.id))


def united(members: Sequence[Memory], now: datetime, s: Settings) -> tuple[Memory, list[Memory]]:
    """The survivor of a merge group with its united fields, and the memories folded into it.
    Updates the survivor object in place."""
    survivor, *losers = merge_order(members)
    meta: dict = {}
    for m in reversed(losers):  # on a conflicting key the survivor, then the oldest, wins
        meta.update({k: v for k, v in m.metadata.items() if k not in MERGE_META_KEYS})
    meta.update({k: v for k, v in survivor.metadata.items() if k not in MERGE_META_KEYS})
    merged_from = list(survivor.metadata.get("merged_from") or [])
    for m in losers:
        merged_from += [*(m.metadata.get("merged_from") or []), m.id]
    meta["merged_from"] = list(dict.fromkeys(merged_from))
    seen = [m.last_access_at for m in members if m.last_access_at is not None]
    survivor.metadata = meta
    survivor.access_count = sum(m.access_count for m in members)
    survivor.last_access_at = max(seen) if seen else None
    survivor.confidence = max(m.confidence for m in members)
    survivor.created_at = min(m.created_at for m in members)
    survivor.updated_at = now
    survivor.decay_score = decay_score(survivor, now, s)
    return survivor, losers


# ---------------------------------------------------------------- actions on a service
def merge(svc: MemoryService, user_id: str, members: Sequence[Memory]) -> Memory:
    """Merge a group of one user's memories; returns the survivor as stored."""
    survivor, losers = united(list(members), utcnow(), svc.settings)
    ids = [m.id for m in losers]
    with svc._write_lock:
        done = svc.records.merge(user_id, survivor, ids)
        if done:
            svc._invalidate(user_id)
            touched = [survivor.id, *done]
            known = _stored_vectors(svc, touched)
            svc.projector.apply(svc.records.outbox_for(touched), known)
            svc.records.audit(
                user_id, "merge", touched, {"survivor": survivor.id, "merged": len(done)}
            )
    return svc.records.get(user_id, [survivor.id]).get(survivor.id, survivor)


def _stored_vectors(svc: MemoryService, ids: list[str]) -> dict[str, np.ndarray]:
    """Vectors already in the index: a status change need not re-embed the content."""
    try:
        return svc.vectors.vectors(ids)
    except Exception as e:  # noqa: BLE001 - the projector re-embeds what is missing
        log.warning("could not read stored vectors for a merge: %s", e)
        return {}


def duplicates_of(
    svc: MemoryService, user_id: str, memory_id: str, vec: np.ndarray
) -> list[tuple[str, float]]:
    """Active memories of the user at least `merge_similarity` similar: an index query."""
    s = svc.settings
    flt = VectorFilter(user_id, None, (Status.ACTIVE.value,))
    hits = svc.vectors.search(vec, flt, s.merge_neighbours + 1)
    return [
        (h.memory_id, h.score)
        for h in hits
        if h.memory_id != memory_id and h.score >= s.merge_similarity
    ]


def merge_on_write(
    svc: MemoryService, user_id: str, memories: list[Memory], vecs: np.ndarray
) -> list[Memory]:
    """Merge each just-written memory into its nearest active near-duplicate, at once.

    Returns the written list with merged entries replaced by their survivor, so a caller gets
    the id that now holds the memory; such a survivor has `merged_into` set to its own id, so the
    caller also learns that nothing new was stored.
    """
    if not svc.settings.merge_on_write:
        return memories
    out = list(memories)
    folded: dict[str, Memory] = {}
    for i, (m, v) in enumerate(zip(memories, vecs, strict=True)):
        if m.status != Status.ACTIVE or m.id in folded:
            out[i] = folded.get(m.id, m)
            continue
        try:
            dups = duplicates_of(svc, user_id, m.id, v)
        except Exception as e:  # noqa: BLE001 - merging is an optimisation; the write stands
            log.warning("merge-on-write skipped, vector index unavailable: %s", e)
            return out
        rows = svc.records.get(user_id, [d for d, _ in dups])
        now = utcnow()
        best = next((rows[d] for d, _ in dups if d in rows and mergeable(m, rows[d], now)), None)
        if best is None:
            continue
        survivor = merge(svc, user_id, [m, best])
        if survivor.id != m.id:
            survivor.merged_into = survivor.id
        for gone in (m, best):
            if gone.id != survivor.id:
                folded[gone.id] = survivor
        out[i] = survivor
    return out


def set_status(
    svc: MemoryService, user_id: str, ids: list[str], status: Status, only_from: Status
) -> list[str]:
    """Archive or restore: one records transaction, then the projections follow."""
    with svc._write_lock:
        done = svc.records.set_status(user_id, ids, status.value, only_from=only_from.value)
        if done:
            svc._invalidate(user_id)
            svc.projector.apply(svc.records.outbox_for(done), _stored_vectors(svc, done))
            svc.records.audit(
                user_id,
                "archive" if status == Status.ARCHIVED else "restore",
                done,
                {"count": len(done)},
            )
    return done


__all__ = [
    "decay_score",
    "duplicates_of",
    "expiry",
    "is_expired",
    "last_seen",
    "merge",
    "merge_on_write",
    "merge_order",
    "mergeable",
    "set_status",
    "should_archive",
    "united",
]
