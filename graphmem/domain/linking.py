"""From extracted entities and cues to memory-to-memory relations, each with a strength.

- related: a new memory and an earlier one mention the same entity (0.6, +0.2 per further
  shared entity, at most 1). A shared entity links to its `per_entity` most recent mentions.
  Shared topics (common nouns, `topic:` keys) are weaker evidence: 0.3, +0.1 per further
  shared topic, added to the entity strength, and a topic links to its `per_topic` most recent
  mentions only.
  An entity that a large share of the user's memories mention (a hub: the user's own name, the
  other speaker in a chat) links nothing, for related edges and cues alike: like a stop word
  it says nothing about which memories belong together. Measured on LoCoMo, where the two
  speakers' names were in most turns, those links drowned the informative ones and expansion
  lowered multi-hop recall (docs/benchmarks.md).
- temporal: consecutive memories of one session (0.5, earlier -> later); "after X", "X之后",
  "then", "before X", "X之前" link to earlier memories mentioning X (0.6-0.8).
- causal: "because X", "due to X", "因为X" link memories mentioning X (the cause) to this one;
  "X so Y", "X led to Y", "X导致Y", "所以Y" link this one to memories mentioning Y (0.7-0.9);
  a memory opening with "So" / "Therefore" / "所以" is caused by the previous one.
- explicit: whatever a caller states with `relate` (graphmem.service).

Edges point from cause to effect and from earlier to later; `related` is symmetric and stored
once, from the larger memory id to the smaller, so re-running extraction never adds its mirror.
Expansion follows edges both ways.

"Earlier", "most recent" and "previous" are in the user's write order (graphmem.domain.write_order):
by created_at, ties broken by the order of the writes. Each memory of a batch is linked as if
written on its own after those before it, hub counts included, so one write per turn and one
batch per conversation build the same graph, with distinct timestamps or with one per session.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Sequence
from typing import Protocol

from graphmem.domain.model import Memory
from graphmem.domain.write_order import Predecessors, order, positions
from graphmem.extractors import Extraction
from graphmem.extractors.english import TOPIC_PREFIX
from graphmem.stores.records import (
    EntityRef,
    GraphRows,
    GraphTables,
    MemoryRecords,
    Placed,
    Relation,
)

SESSION_ORDER_STRENGTH = 0.5


class LinkRecords(GraphTables, MemoryRecords, Protocol):
    """What linking reads: mentions and session order from the graph tables, and the memory
    count that decides when an entity is a hub."""


class Linker:
    def __init__(
        self,
        records: LinkRecords,
        per_entity: int,
        hub_share: float,
        hub_min: int,
        per_topic: int,
    ) -> None:
        # No defaults of its own: Settings (link_*) is where these are chosen and documented;
        # a second set here had already drifted from it (hub_min 25 vs 10, per_topic 3 vs 0).
        self.records = records
        self.per_entity = per_entity
        self.per_topic = per_topic
        self.hub_share = hub_share
        self.hub_min = hub_min

    def _hubs(
        self,
        user_id: str,
        keys: list[str],
        extractions: Sequence[Extraction],
        visit: list[int],
    ) -> list[frozenset[str]]:
        """For each memory, the keys mentioned by more than max(hub_min, hub_share x the user's
        memories) once it is written: counted as if the batch were written one at a time, so a
        key that turns into a hub late in a batch still links the memories before."""
        out: list[frozenset[str]] = [frozenset()] * len(extractions)
        if not keys or self.hub_share <= 0:
            return out
        counts = Counter(self.records.mention_counts(user_id, keys))
        total = self.records.count(user_id)
        for i in visit:
            counts.update(extractions[i].keys)
            total += 1
            limit = max(self.hub_min, self.hub_share * total)
            out[i] = frozenset(k for k in extractions[i].keys if counts[k] > limit)
        return out

    def link(
        self, user_id: str, memories: Sequence[Memory], extractions: Sequence[Extraction]
    ) -> GraphRows:
        """Entities and relations for memories of one user, as if written one at a time in the
        order given (graphmem.domain.write_order): what each links to is what was written before it.
        Memories already stored (re-linking) are linked against what was written before them."""
        keys = sorted({k for ex in extractions for k in ex.keys})
        places = positions(memories)
        visit = sorted(range(len(memories)), key=lambda j: places[j].seq)
        hubs_at = self._hubs(user_id, keys, extractions, visit)
        new_keys = sorted(
            {
                k
                for m, ex in zip(memories, extractions, strict=True)
                if m.seq is None
                for k in ex.keys
            }
        )
        known_new = self.records.mentions(user_id, new_keys, self.per_entity) if new_keys else {}
        previous = Predecessors(self.records, user_id, memories)
        # entity key -> the batch's memories visited so far that mention it, in (created_at, seq)
        batch: dict[str, list[Placed]] = {}
        edges: dict[tuple[str, str, str], float] = {}

        def add(source: str, target: str, kind: str, strength: float) -> None:
            if source != target:
                k = (source, target, kind)
                edges[k] = max(edges.get(k, 0.0), round(strength, 3))

        for i in visit:
            m, ex, me, hubs = memories[i], extractions[i], places[i], hubs_at[i]
            known = (
                known_new
                if m.seq is None
                else self.records.mentions(
                    user_id, sorted(ex.keys - hubs), self.per_entity, written_before=m.seq
                )
            )

            def earlier(
                k: str, me: Placed = me, known: dict[str, list[Placed]] = known
            ) -> list[str]:
                """The latest memories written before this one that mention `k`: those stored
                and those of the batch visited so far (the latest last in `batch[k]`)."""
                limit = self.per_topic if k.startswith(TOPIC_PREFIX) else self.per_entity
                found = {p.id: p for p in known.get(k, [])}
                found.update({p.id: p for p in batch.get(k, [])[-limit:]})
                found.pop(me.id, None)
                ranked = sorted(found.values(), key=order, reverse=True)
                return [p.id for p in ranked[:limit]]

            def mentioning(key_set: frozenset[str], hubs: frozenset[str] = hubs) -> list[str]:
                out: dict[str, None] = {}
                for k in sorted(key_set - hubs):
                    for mid in earlier(k):
                        out.setdefault(mid, None)
                return list(out)

            shared: Counter[str] = Counter()
            topics: Counter[str] = Counter()
            for k in ex.keys - hubs:
                for mid in earlier(k):
                    (topics if k.startswith(TOPIC_PREFIX) else shared)[mid] += 1
            for mid in shared.keys() | topics.keys():  # symmetric: stored once, larger id first
                n, t = shared[mid], topics[mid]
                strength = (0.6 + 0.2 * (n - 1) if n else 0.0) + (0.3 + 0.1 * (t - 1) if t else 0.0)
                a, b = max(m.id, mid), min(m.id, mid)
                add(a, b, "related", min(1.0, strength))

            prev = None
            if m.session_id or any(c.to_previous for c in ex.cues):
                before = previous.of(i)
                prev = before.id if before else None
            if prev and m.session_id:
                add(prev, m.id, "temporal", SESSION_ORDER_STRENGTH)

            for cue in ex.cues:
                for mid in mentioning(cue.earlier - cue.later):
                    add(mid, m.id, cue.kind, cue.strength)
                for mid in mentioning(cue.later - cue.earlier):
                    add(m.id, mid, cue.kind, cue.strength)
                if cue.to_previous and prev:
                    add(prev, m.id, cue.kind, cue.strength)

            for k in ex.keys:
                bisect.insort(batch.setdefault(k, []), me, key=order)

        return GraphRows(
            user_id=user_id,
            entities={
                m.id: [EntityRef(e.key, e.name, e.entity_type) for e in ex.entities]
                for m, ex in zip(memories, extractions, strict=True)
                if ex.mentions
            },
            relations=[Relation(user_id, s, t, kind, w) for (s, t, kind), w in edges.items()],
        )
