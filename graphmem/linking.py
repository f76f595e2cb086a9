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
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Protocol

from extractors import Extraction
from extractors.english import TOPIC_PREFIX
from graphmem.model import Memory
from graphmem.stores.records import EntityRef, GraphRows, GraphTables, MemoryRecords, Relation

SESSION_ORDER_STRENGTH = 0.5


class LinkRecords(GraphTables, MemoryRecords, Protocol):
    """What linking reads: mentions and session order from the graph tables, and the memory
    count that decides when an entity is a hub."""


class Linker:
    def __init__(
        self,
        records: LinkRecords,
        per_entity: int = 10,
        hub_share: float = 0.05,
        hub_min: int = 25,
        per_topic: int = 3,
    ) -> None:
        self.records = records
        self.per_entity = per_entity
        self.per_topic = per_topic
        self.hub_share = hub_share
        self.hub_min = hub_min

    def _hubs(
        self,
        user_id: str,
        memories: Sequence[Memory],
        keys: list[str],
        extractions: Sequence[Extraction],
    ) -> frozenset[str]:
        """Keys mentioned by more than max(hub_min, hub_share x the user's memories)."""
        if not keys or self.hub_share <= 0:
            return frozenset()
        counts = Counter(self.records.mention_counts(user_id, keys))
        for ex in extractions:
            counts.update(ex.keys)
        total = self.records.count(user_id) + len(memories)
        limit = max(self.hub_min, self.hub_share * total)
        return frozenset(k for k, n in counts.items() if n > limit)

    def link(
        self, user_id: str, memories: Sequence[Memory], extractions: Sequence[Extraction]
    ) -> GraphRows:
        """Entities and relations for new memories of one user, in the order given."""
        keys = sorted({k for ex in extractions for k in ex.keys})
        hubs = self._hubs(user_id, memories, keys, extractions)
        keys = [k for k in keys if k not in hubs]
        known = self.records.mentions_of(user_id, keys, self.per_entity) if keys else {}
        batch: dict[str, list[str]] = {}  # entity key -> memory ids of this batch, newest first
        last_in_session: dict[str | None, str] = {}
        edges: dict[tuple[str, str, str], float] = {}

        def add(source: str, target: str, kind: str, strength: float) -> None:
            if source != target:
                k = (source, target, kind)
                edges[k] = max(edges.get(k, 0.0), round(strength, 3))

        def earlier(k: str) -> list[str]:
            limit = self.per_topic if k.startswith(TOPIC_PREFIX) else self.per_entity
            return [*batch.get(k, []), *known.get(k, [])][:limit]

        def mentioning(key_set: frozenset[str], me: str) -> list[str]:
            out: dict[str, None] = {}
            for k in sorted(key_set - hubs):
                for mid in earlier(k):
                    if mid != me:
                        out.setdefault(mid, None)
            return list(out)

        for m, ex in zip(memories, extractions, strict=True):
            shared: Counter[str] = Counter()
            topics: Counter[str] = Counter()
            for k in ex.keys - hubs:
                for mid in earlier(k):
                    if mid != m.id:
                        (topics if k.startswith(TOPIC_PREFIX) else shared)[mid] += 1
            for mid in shared.keys() | topics.keys():  # symmetric: stored once, larger id first
                n, t = shared[mid], topics[mid]
                strength = (0.6 + 0.2 * (n - 1) if n else 0.0) + (0.3 + 0.1 * (t - 1) if t else 0.0)
                a, b = max(m.id, mid), min(m.id, mid)
                add(a, b, "related", min(1.0, strength))

            prev = last_in_session.get(m.session_id) if m.session_id in last_in_session else None
            if prev is None and (m.session_id or any(c.to_previous for c in ex.cues)):
                prev = self.records.session_previous(user_id, m.session_id, m.created_at)
            if prev and m.session_id:
                add(prev, m.id, "temporal", SESSION_ORDER_STRENGTH)

            for cue in ex.cues:
                for mid in mentioning(cue.earlier - cue.later, m.id):
                    add(mid, m.id, cue.kind, cue.strength)
                for mid in mentioning(cue.later - cue.earlier, m.id):
                    add(m.id, mid, cue.kind, cue.strength)
                if cue.to_previous and prev:
                    add(prev, m.id, cue.kind, cue.strength)

            for k in ex.keys:
                batch.setdefault(k, []).insert(0, m.id)
            last_in_session[m.session_id] = m.id

        return GraphRows(
            user_id=user_id,
            entities={
                m.id: [EntityRef(e.key, e.name, e.entity_type) for e in ex.entities]
                for m, ex in zip(memories, extractions, strict=True)
                if ex.mentions
            },
            relations=[Relation(user_id, s, t, kind, w) for (s, t, kind), w in edges.items()],
        )
