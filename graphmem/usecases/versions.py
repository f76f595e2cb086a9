"""Update detection on write, and version history: the stateful half of graphmem.domain.temporal.

The rules (slots, recall windows, what a version copy holds) are graphmem.domain.temporal's; this
reads the user's stored memories to apply them: which current memories a write supersedes,
quarantines or contradicts, what an approved quarantined claim ends, and every version of a
memory. One per service, held by its Context.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from graphmem.domain.meaning import compare
from graphmem.domain.model import Kind, Memory, Status, new_id
from graphmem.domain.temporal import (
    CONTRADICTS,
    SUPERSEDED_BY,
    UPDATE_OF,
    VERSION_META_KEYS,
    WritePlan,
    candidate,
    gist_key,
    version_copy,
)
from graphmem.domain.text import search_text
from graphmem.domain.write_order import Predecessors
from graphmem.embedding.base import own
from graphmem.extractors.normalize import Normalizer
from graphmem.extractors.slots import Slot, SlotRule, compile_rules, ends, find_slots, is_correction
from graphmem.extractors.switches import MARGIN, MIN_COVERAGE, coverage, switch_terms
from graphmem.guard.consensus import AUTHORITY, extract_claim
from graphmem.stores.records import GraphRows, Placed, RecordQuery, Relation, Supersession
from graphmem.stores.vectors import VectorFilter

if TYPE_CHECKING:
    import numpy as np

    from graphmem.embedding import Embedder
    from graphmem.guard import Guard
    from graphmem.settings import Settings, TemporalSettings
    from graphmem.stores.records import OutboxItem, RecordsStore
    from graphmem.stores.vectors import VectorStore

log = logging.getLogger("graphmem.temporal")


class Projection(Protocol):
    """The service's projector (graphmem.service.projection) as the use-cases call it: apply
    the outbox rows a commit queued to the vector index and the graph, with the vectors the
    caller already has. Declared here, below the service, so a use-case is typed by what it
    calls rather than by the service's class (graphmem.usecases.ports names it for the rest)."""

    @property
    def embedder(self) -> Embedder: ...

    def apply(
        self, items: list[OutboxItem], known: dict[str, np.ndarray] | None = None
    ) -> tuple[int, int]: ...


class Temporal:
    """Update detection on write, and version history; one per service (its Context's)."""

    def __init__(
        self,
        records: RecordsStore,
        vectors: VectorStore,
        guard: Guard,
        projector: Projection,
        service_settings: Settings,
        settings: TemporalSettings | None = None,
    ) -> None:
        self.records = records
        self.vectors = vectors
        self.guard = guard
        self.projector = projector
        self.service_settings = service_settings
        self.settings = settings or service_settings.temporal
        self._rules: list[SlotRule] | None = None
        if self.settings.slot_rules:  # a bad rule of the user's fails at start-up, by name
            self._rules = compile_rules(self.settings.slot_rules)
        self.norm = Normalizer(service_settings.linking.entity_aliases)

    @property
    def rules(self) -> list[SlotRule]:
        """The slot table, compiled on the first write that needs it: its ~110 patterns take
        about 0.2 s to compile, a third of what a read-only command (search, get, stats) spends
        opening the service."""
        if self._rules is None:
            self._rules = compile_rules(self.settings.slot_rules)
        return self._rules

    def slots(self, text: str) -> list[Slot]:
        return find_slots(text, self.rules, self.norm)

    def _value(self, m: Memory, key: str) -> str | None:
        return next((s.value for s in self.slots(m.content) if s.key == key), None)

    # ------------------------------------------------------------------ writes
    def plan(self, user_id: str, memories: list[Memory], vecs: np.ndarray) -> WritePlan:
        """Set slot and validity on new memories (in place) and decide what they supersede,
        quarantine or contradict. Stored memories are only read here; the caller commits the
        plan in the same transaction as the rows."""
        plan = WritePlan()
        for m in memories:
            m.valid_from = m.valid_from or m.created_at
        if not self.settings.enabled:
            return plan
        slot_of: dict[str, Slot | None] = {}
        for m in memories:
            found = self.slots(m.content)
            slot_of[m.id] = found[0] if found else None
            if found and m.slot is None:
                m.slot = found[0].key
        keys = sorted({s.key for s in slot_of.values() if s})
        stored = self.records.slot_holders(user_id, keys) if keys else {}
        current: dict[str, list[Memory]] = {k: list(v) for k, v in stored.items()}
        known: dict[str, Memory] = {m.id: m for v in stored.values() for m in v}
        in_batch = {m.id: m for m in memories}
        index = {m.id: i for i, m in enumerate(memories)}
        previous = Predecessors(self.records, user_id, memories)
        vec_of = dict(zip([m.id for m in memories], vecs, strict=True))
        order = sorted(range(len(memories)), key=lambda i: (memories[i].valid_since, i))
        batch_like: dict[tuple[str, frozenset[str]], list[Memory]] = {}  # earlier in the batch
        for m in (memories[i] for i in order):
            if m.status != Status.ACTIVE:
                continue  # held back by the screen already: no evidence, no update
            slot = slot_of[m.id]
            updates: list[Memory] = []
            if slot is not None:
                updates = [
                    h
                    for h in current.get(slot.key, [])
                    if h.id != m.id and ends(slot.value, self._value(h, slot.key))
                ]
            correction = is_correction(m.content)
            neighbours, near = self._nearest(user_id, vec_of[m.id], exclude=in_batch)
            known.update({n.id: n for n in neighbours})
            like = batch_like.setdefault(gist_key(m), [])
            near += [b for b in like if float(vec_of[b.id] @ vec_of[m.id]) >= self._near_similarity]
            like.append(m)
            for n in self._value_updates(m, near):
                if n.id not in {u.id for u in updates}:
                    known[n.id] = n
                    updates.append(n)
            if correction and not updates:
                before = previous.of(index[m.id])
                target = self._corrected(user_id, m, neighbours, before, in_batch)
                if target is not None:
                    known[target.id] = target
                    updates = [target]
            elif not updates and (slot is None or slot.weak) and self.settings.switch_updates:
                switched = self._switched(user_id, m, in_batch)
                if switched is not None:
                    known[switched.id] = switched
                    updates = [switched]
            decision = self.guard.consensus(
                user_id,
                m.content,
                [candidate(n) for n in neighbours if n.id not in {u.id for u in updates}],
                m.source.value,
                updates=[candidate(u) for u in updates],
                correction=correction,
            )
            if decision.action != "allow" or decision.contradicted_ids:
                plan.outcomes[m.id] = {
                    "consensus": decision.action,
                    "superseded": list(decision.superseded_ids),
                    "contradicted": list(decision.contradicted_ids),
                    "slot": slot.key if slot else None,
                    "correction": correction,
                }
            by_rule = {u.id for u in updates}
            for old_id in decision.superseded_ids:
                old = in_batch.get(old_id) or known.get(old_id)
                if old is None or not self._may_end(old, m, by_rule):
                    continue
                if self._supersede(plan, user_id, old, m, in_batch):
                    for lst in current.values():
                        if old in lst:
                            lst.remove(old)
            if decision.action == "quarantine":
                m.status = Status.QUARANTINED
            elif decision.action == "low_confidence" and decision.confidence is not None:
                m.confidence = min(m.confidence, decision.confidence)
            for cid in decision.contradicted_ids:
                plan.relations.append(Relation(user_id, m.id, cid, CONTRADICTS, 1.0))
            if slot is not None and m.status == Status.ACTIVE and m.valid_to is None:
                current.setdefault(slot.key, []).append(m)
        return plan

    @staticmethod
    def _may_end(old: Memory, new: Memory, by_rule: set[str]) -> bool:
        """A memory that states a slot ends only through that slot: "My sister doesn't live in
        Dallas anymore" negates "I live in Dallas" word for word (the consensus check sees an
        explicit update) but says nothing of where I live."""
        return old.id in by_rule or old.slot is None or old.slot == new.slot

    def _supersede(
        self, plan: WritePlan, user_id: str, old: Memory, new: Memory, in_batch: dict[str, Memory]
    ) -> bool:
        """`new` replaces `old` (True) - unless `old` is the later one (a back-dated import):
        then the new memory is the older version, stored closed, and `old` stays (False)."""
        if old.valid_since > new.valid_since:
            new.valid_to = min(new.valid_to or old.valid_since, old.valid_since)
            new.status = Status.SUPERSEDED
            plan.relations.append(
                Relation(user_id, new.id, old.id, SUPERSEDED_BY, 1.0, old.valid_since)
            )
            return False
        at = new.valid_since
        if old.id in in_batch:
            old.valid_to, old.status = at, Status.SUPERSEDED
            plan.relations.append(Relation(user_id, old.id, new.id, SUPERSEDED_BY, 1.0, at))
        else:
            plan.supersede.append(Supersession(old.id, new.id, at))
        return True

    @property
    def _near_similarity(self) -> float:
        return own(
            self.service_settings.lifecycle.merge_similarity,
            self.projector.embedder.merge_similarity,
        )

    def _nearest(
        self, user_id: str, vec: np.ndarray, exclude: dict[str, Memory]
    ) -> tuple[list[Memory], list[Memory]]:
        """The user's nearest current memories - the evidence the consensus check weighs - and
        those of them at least `merge_similarity` similar (near-duplicates), from one query."""
        gs = self.guard.settings
        consensus = gs.enabled and gs.consensus_enabled
        k = self.service_settings.lifecycle.merge_neighbours
        if consensus:
            k = max(k, gs.consensus_candidates)
        try:
            # Memories only: a document chunk is no version of a memory, nor evidence against one.
            flt = VectorFilter(user_id, None, (Status.ACTIVE.value,), kind=Kind.MEMORY.value)
            hits = self.vectors.search(vec, flt, k)
        except Exception as e:  # noqa: BLE001 - no evidence when the index is down, no refusal
            log.warning("update check without neighbours (vector store: %s)", e)
            return [], []
        rows = self.records.get(user_id, [h.memory_id for h in hits if h.memory_id not in exclude])
        current = [
            (rank, rows[h.memory_id], h.score)
            for rank, h in enumerate(hits)
            if h.memory_id in rows
            and rows[h.memory_id].status == Status.ACTIVE
            and rows[h.memory_id].valid_to is None
        ]
        neighbours = [m for rank, m, _ in current if consensus and rank < gs.consensus_candidates]
        near = [m for _, m, score in current if score >= self._near_similarity]
        return neighbours, near

    @staticmethod
    def _value_updates(m: Memory, near: Sequence[Memory]) -> list[Memory]:
        """The near-duplicates `m` changes a value of (a number, date, time, weekday, name or
        the negation): it is their next version, never their duplicate. A memory that states a
        slot changes only through that slot: "My sister doesn't live in Dallas anymore" is near
        "I live in Dallas" and negates it, but is no statement of where I live."""
        return [
            n
            for n in near
            if n.id != m.id
            and (n.slot is None or n.slot == m.slot)
            and n.memory_type == m.memory_type
            and n.status == Status.ACTIVE
            and n.valid_to is None
            and compare(n.content, m.content) == "update"
        ]

    def _corrected(
        self,
        user_id: str,
        m: Memory,
        neighbours: list[Memory],
        before: Placed | None,
        in_batch: dict[str, Memory],
    ) -> Memory | None:
        """The memory a correction corrects: the earlier candidate (the nearest memories and the
        previous one, `before`, which may be earlier in the same batch) whose claim shares most
        with it - content words, then the kind of value (a date, a weekday, a number); None
        when nothing is shared."""
        prev_id = before.id if before else None
        pool = {n.id: n for n in neighbours if n.valid_since <= m.valid_since}
        if prev_id and prev_id not in pool:
            prev = in_batch.get(prev_id) or self.records.get(user_id, [prev_id]).get(prev_id)
            if prev is not None and prev.status == Status.ACTIVE and prev.valid_to is None:
                pool[prev.id] = prev
        if not pool:
            return None
        claim = extract_claim(m.content)
        kinds = {v.split(":", 1)[0] for v in claim.values}

        def overlap(o: Memory) -> float:
            other = extract_claim(o.content)
            union = claim.frame | other.frame
            jac = len(claim.frame & other.frame) / len(union) if union else 0.0
            same_kind = bool(kinds & {v.split(":", 1)[0] for v in other.values})
            return jac + (0.5 if same_kind else 0.0) + (0.01 if o.id == prev_id else 0.0)

        # A question is not a claim to correct ("Did you go?" - "No, I didn't"), and a correction
        # sharing nothing with any candidate corrects nothing.
        pool = {i: o for i, o in pool.items() if not o.content.rstrip().endswith(("?", "？"))}
        if not pool:
            return None
        best = max(pool.values(), key=lambda o: (overlap(o), o.valid_since))
        return best if overlap(best) > 0.01 else None

    def _switched(self, user_id: str, m: Memory, in_batch: dict[str, Memory]) -> Memory | None:
        """The earlier memory a switch ("不再用Jira了，改用飞书", "switched from the Kindle")
        replaces: the clear best keyword match of the clause holding the cue, on the user's own
        statistics (graphmem.extractors.switches), if it is current and covers enough of what
        that memory says; None when no memory leads clearly. A memory that states a slot is
        left to the slot rules ("I don't live in Boston anymore" ends no home in Dallas), and
        one stating a slot only ends through it (`_may_end`). A writer other than the user
        never ends a user's memory this way: the consensus check would hold the write, and a
        cue is weaker evidence than a slot."""
        terms = switch_terms(m.content)
        if not terms:
            return None
        hits = self.records.keyword_search(RecordQuery(user_id), terms, 2)
        if not hits or (len(hits) > 1 and hits[0][1] < MARGIN * hits[1][1]):
            return None
        old = self.records.get(user_id, [hits[0][0]]).get(hits[0][0])
        if (
            old is None
            or old.id in in_batch
            or old.kind != Kind.MEMORY
            or old.status != Status.ACTIVE
            or old.valid_to is not None
            or old.valid_since > m.valid_since
            or old.content.rstrip().endswith(("?", "？"))
            or (old.slot is not None and old.slot != m.slot)
            or (m.source.value != AUTHORITY and old.source.value == AUTHORITY)
        ):
            return None
        return old if coverage(m.content, old.content) >= MIN_COVERAGE else None

    def on_approved(self, user_id: str, memories: Sequence[Memory]) -> list[Supersession]:
        """A reviewed, approved claim now does what the quarantine held back: it ends the
        values it conflicted with in its slot, the near-duplicates it changes a value of, and,
        for an update held for review, the memory the update was meant to change."""
        out: list[Supersession] = []
        keys = sorted({m.slot for m in memories if m.slot})
        holders = self.records.slot_holders(user_id, keys) if keys else {}
        targets = [str(m.metadata[UPDATE_OF]) for m in memories if m.metadata.get(UPDATE_OF)]
        updated = self.records.get(user_id, targets) if targets else {}
        approved = {m.id for m in memories}
        try:
            vecs = self.vectors.vectors(sorted(approved)) if self.settings.enabled else {}
        except Exception as e:  # noqa: BLE001 - slots and update_of still apply
            log.warning("approval without the near-duplicate check (vector store: %s)", e)
            vecs = {}
        for m in memories:
            ended: dict[str, Memory] = {}
            if m.slot:
                value = self._value(m, m.slot)
                ended |= {
                    h.id: h
                    for h in holders.get(m.slot, [])
                    if (value is None and self._value(h, m.slot) is not None)
                    or (value is not None and ends(value, self._value(h, m.slot)))
                }
            if m.id in vecs:
                _, near = self._nearest(user_id, vecs[m.id], exclude={})
                ended |= {n.id: n for n in self._value_updates(m, near)}
            old = updated.get(str(m.metadata.get(UPDATE_OF)))
            if old is not None:
                ended[old.id] = old
            out += [
                Supersession(h.id, m.id, m.valid_since)
                for h in ended.values()
                if h.id not in approved
                and h.status == Status.ACTIVE
                and h.valid_to is None
                and h.valid_since <= m.valid_since
            ]
        if out:
            self.records.supersede(user_id, out)
        return out

    def held_update(self, before: Memory, proposed: Memory) -> Memory:
        """An update whose new content the firewall quarantined, as a separate pending version:
        `before` stays current, untouched, until a review approves the pending one (which then
        supersedes it, `on_approved`); a rejection deletes only the pending one."""
        at = proposed.updated_at
        found = self.slots(proposed.content) if self.settings.enabled else []
        keep = {k: v for k, v in proposed.metadata.items() if k not in VERSION_META_KEYS}
        return Memory(
            id=new_id(),
            user_id=before.user_id,
            content=proposed.content,
            memory_type=proposed.memory_type,
            summary=proposed.summary,
            session_id=before.session_id,
            source=before.source,
            confidence=proposed.confidence,
            metadata={**keep, UPDATE_OF: before.id},
            status=Status.QUARANTINED,
            created_at=at,
            updated_at=at,
            valid_from=at,
            slot=found[0].key if found else None,
            agent_id=before.agent_id,
            run_id=before.run_id,
        )

    def keep_version(self, before: Memory, after: Memory) -> Memory:
        """`update` changed a memory's content: store the previous content as a closed version
        linked by `superseded_by` (committed before the new content, so a failure in between
        leaves an extra version, never a lost one) and start the new content's validity."""
        old = version_copy(before, new_id(), after.updated_at)
        link = Relation(after.user_id, old.id, after.id, SUPERSEDED_BY, 1.0, old.valid_to)
        self.records.insert([old], [search_text(old.content)], GraphRows(after.user_id, {}, [link]))
        self.projector.apply(self.records.outbox_for([old.id]))
        after.valid_from = after.updated_at
        found = self.slots(after.content) if self.settings.enabled else []
        after.slot = found[0].key if found else None
        return old

    # ------------------------------------------------------------------ history
    def versions(self, user_id: str, memory_id: str) -> list[Memory]:
        """Every version linked to this memory by `superseded_by`, oldest first."""
        seen = {memory_id}
        frontier = [memory_id]
        while frontier:
            rels = self.records.relations_for(user_id, frontier)
            frontier = []
            for r in rels:
                if r.relation_type != SUPERSEDED_BY:
                    continue
                for mid in (r.source_id, r.target_id):
                    if mid not in seen:
                        seen.add(mid)
                        frontier.append(mid)
        rows = self.records.get(user_id, sorted(seen))
        # equal times: the version written first is the older one (write order, then id for
        # rows that have no place in it)
        return sorted(rows.values(), key=lambda m: (m.valid_since, m.created_at, m.seq or 0, m.id))

    def version_copies(self, user_id: str, memory_ids: list[str]) -> list[str]:
        """Earlier contents of these memories kept by `update` (their `version_of` is one of
        them): forgetting a memory forgets them too."""
        out: list[str] = []
        targets = set(memory_ids)
        while targets:
            rels = [
                r
                for r in self.records.relations_for(user_id, sorted(targets))
                if r.relation_type == SUPERSEDED_BY and r.target_id in targets
            ]
            rows = self.records.get(user_id, [r.source_id for r in rels])
            found = [
                i
                for i, m in rows.items()
                if m.metadata.get("version_of") in targets and i not in out
            ]
            out.extend(found)
            targets = set(found)
        return out


__all__ = ["Temporal"]
