"""The memory lifecycle rules: how a memory decays, when it is archived, when it expires, and
how near-duplicates are merged.

More memories are not better memories: stale and redundant ones bury the right answer. These
rules are pure functions of a memory, the clock and the settings, so the write path, recall and
the compaction job (graphmem.usecases.compact) apply exactly the same ones; merging itself
is graphmem.usecases.merge.

decay_score (in [0, 1]):

    decay = confidence * (DECAY_RECENCY * R + DECAY_FREQUENCY * F)     (0.6 and 0.4)
    R = recency(last_seen)  = 0.5 ** (days since last_seen / recency_half_life_days)
    F = frequency(accesses) = min(1, log(1 + access_count) / log(1 + frequency_saturation))

where last_seen is the later of the last access and the last write of the memory (a memory
that was never recalled counts from when it was stored, not from the date it talks about).
R and F are `graphmem.domain.ranking.recency` and `graphmem.domain.ranking.frequency`, the functions
behind the ranking's recency and frequency channels, with the same half-life and saturation. A fresh
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
`merge_similarity`, that say the same thing (`graphmem.domain.meaning.same_meaning`: no number,
date, time, weekday, month, name or negation differs) become one. A near-duplicate that changes such
a value is an update, not a duplicate: graphmem.domain.temporal lets the newer supersede the older,
with the history kept. The oldest survives (its id, content and created_at), access
counts are summed, the last access, confidence and metadata are united, the others' relations
and entities move to it, and each merged memory stays as an archived row joined by a
`merged_from` edge.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from graphmem.domain import ranking
from graphmem.domain.meaning import same_meaning
from graphmem.domain.model import Kind, Memory, Status
from graphmem.guard.policy import REF_RE
from graphmem.settings import Settings

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
    r = ranking.recency(last_seen(m), now, s.ranking.recency_half_life_days)
    f = ranking.frequency(m.access_count, s.ranking.frequency_saturation)
    return round(m.confidence * (DECAY_RECENCY * r + DECAY_FREQUENCY * f), 6)


def expiry(memory_type: str, written_at: datetime, s: Settings) -> datetime | None:
    hours = s.lifecycle.ttl_hours.get(memory_type)
    return None if hours is None else written_at + timedelta(hours=float(hours))


def is_expired(m: Memory, now: datetime) -> bool:
    return m.expires_at is not None and m.expires_at <= now


def should_archive(m: Memory, decay: float, now: datetime, s: Settings) -> bool:
    return (
        m.status == Status.ACTIVE
        and m.kind == Kind.MEMORY  # a document stays until it is deleted or replaced
        and now - last_seen(m) > timedelta(days=s.lifecycle.archive_after_days)
        and decay < s.lifecycle.archive_below_decay
    )


def mergeable(a: Memory, b: Memory, now: datetime) -> bool:
    """Two memories a merge may fold together (similarity aside): the same user, type and
    source, both active and unexpired, saying the same thing. Type and source are kept apart on
    purpose: a task must not inherit a fact's permanence, and a user's statement must not lose
    its provenance to an agent's inference of the same words. Scopes too: folding one agent's
    memory into another's would hide it from the first agent's filtered reads. Meaning is
    checked last, as it is the costliest test; an embedding alone cannot tell Tuesday from
    Thursday. A memory holding vaulted secrets never merges: each secret is sealed to its
    memory's id, and the survivor's text would point at the other's."""
    return (
        a.user_id == b.user_id
        and not REF_RE.search(a.content)
        and not REF_RE.search(b.content)
        and a.kind == b.kind == Kind.MEMORY  # chunks are deduplicated by hash, never merged
        and a.memory_type == b.memory_type
        and a.source == b.source
        and a.agent_id == b.agent_id
        and a.run_id == b.run_id
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


__all__ = [
    "decay_score",
    "expiry",
    "is_expired",
    "last_seen",
    "merge_order",
    "mergeable",
    "should_archive",
    "united",
]
