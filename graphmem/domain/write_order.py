"""A user's memories in write order: what each memory of a write comes after.

The order is (created_at, seq), seq being the records store's insertion sequence: a memory
written later with the same timestamp comes after. "The memory before m" is, of those written
before m and not dated after it, the latest in that order; exactly what m would find in the store
had it been written on its own, after everything before it in its batch. So one write per turn,
one batch per conversation, or any split in between link the same turns, whether their
timestamps are distinct or all equal (a transcript imported with per-session dates). A memory
already stored (seq set: re-linking by `backfill relations`) sees only what was written before
it, never itself nor what came later.

Within a batch nothing is stored yet, so a new memory's position is after every stored one and
in batch order; the store answers for what was there before the batch.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from datetime import datetime

from graphmem.domain.model import Memory
from graphmem.stores.records import GraphTables, Placed

NEW = 1 << 62  # positions of a batch's new memories: after every stored sequence number


def positions(memories: Sequence[Memory]) -> list[Placed]:
    """Each memory's place in the order: its stored sequence, or after everything stored in
    batch order."""
    return [
        Placed(m.id, m.created_at, m.seq if m.seq is not None else NEW + i)
        for i, m in enumerate(memories)
    ]


def order(p: Placed) -> tuple[datetime, int]:
    """The sort key of the user's order."""
    return p.created_at, p.seq


def later(a: Placed | None, b: Placed | None) -> Placed | None:
    """The later of two places (None is before everything)."""
    if a is None or b is None:
        return a or b
    return a if order(a) >= order(b) else b


def is_version_copy(m: Memory) -> bool:
    """A past content of a memory kept by `update`: not a turn of its own."""
    return "version_of" in m.metadata


class Predecessors:
    """The memory each memory of one user's write comes after: in its session, or among all of
    the user's memories for a memory without a session."""

    def __init__(self, records: GraphTables, user_id: str, memories: Sequence[Memory]) -> None:
        self.records = records
        self.user_id = user_id
        self.memories = list(memories)
        places = positions(self.memories)
        self._latest: dict[str | None, Placed | None] = {}  # per session, stored before the batch
        # The latest earlier batch memory not dated after each one: batch memories are visited
        # in write order, each session's (and the whole batch's) places kept sorted by
        # (created_at, seq) so the answer is one bisection.
        self._in_batch: list[Placed | None] = [None] * len(places)
        seen: dict[str | None, list[tuple[datetime, int, Placed]]] = {}
        everyone: list[tuple[datetime, int, Placed]] = []
        for i in sorted(range(len(places)), key=lambda j: places[j].seq):
            m, p = self.memories[i], places[i]
            pool = everyone if m.session_id is None else seen.setdefault(m.session_id, [])
            at = bisect.bisect_right(pool, (m.created_at, NEW << 1), key=lambda e: e[:2])
            self._in_batch[i] = pool[at - 1][2] if at else None
            if not is_version_copy(m):
                entry = (m.created_at, p.seq, p)
                bisect.insort(everyone, entry, key=lambda e: e[:2])
                if m.session_id is not None:
                    bisect.insort(seen.setdefault(m.session_id, []), entry, key=lambda e: e[:2])

    def _stored(self, m: Memory) -> Placed | None:
        if m.seq is not None:
            return self.records.session_previous(
                self.user_id, m.session_id, m.created_at, written_before=m.seq
            )
        # The latest stored memory of the session, asked once per batch: it is the answer for
        # every new memory not dated before it, which is all of them unless back-dated.
        if m.session_id not in self._latest:
            self._latest[m.session_id] = self.records.session_previous(
                self.user_id, m.session_id, None
            )
        latest = self._latest[m.session_id]
        if latest is None or latest.created_at <= m.created_at:
            return latest
        return self.records.session_previous(self.user_id, m.session_id, m.created_at)

    def of(self, i: int) -> Placed | None:
        """What the i-th memory comes after (None: it opens its session)."""
        return later(self._in_batch[i], self._stored(self.memories[i]))


__all__ = ["NEW", "Predecessors", "is_version_copy", "later", "order", "positions"]
