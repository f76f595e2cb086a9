"""Temporal validity: newer facts supersede older ones without forgetting them.

A memory is true in the world from `valid_from` (default: when it was recorded) until
`valid_to` (open while it is current). On write, without an LLM:

1. the memory's slot - (subject, attribute), e.g. `self|home_city` - comes from the rule table in
   `extractors.slot_rules` (English and Chinese, the way people announce a change: "moved from
   Austin to Denver", "我不再吃辣了"; extensible by GRAPHMEM_TEMPORAL_SLOT_RULES), read by
   `extractors.slots`;
2. current memories of the same user in the same slot with another value are the ones it would
   replace; so is a near-duplicate (cosine >= `merge_similarity`, same type) that changes one of
   its values - a number, date, time, weekday, name or the negation (graphmem.domain.meaning.compare
   says `update`: "the dentist is on Tuesday at 10:15", then "... Thursday at 10:45"); a
   correction ("actually, it's ...", "不对，是 ...") without a slot replaces the memory it
   corrects (the earlier memory, among the nearest ones and the previous one, whose claim
   shares the most with it);
3. the firewall's consensus check (graphmem.guard.consensus) applies the one rule: the user
   changing their own world supersedes; an agent, document or system claim against a value the
   user stated is quarantined (or kept with low confidence) with `contradicts` links.

A write the firewall holds back (quarantined) replaces nothing until a review approves it: then
`on_approved` applies the same rules (slot, near-duplicate update, or the memory an `update`
call meant to change, kept in the pending version's metadata as `update_of`). Rejecting it
leaves the old version exactly as it was.

A superseded memory keeps its row, gets `valid_to` and status `superseded`, its edges close at
the same instant, and a `superseded_by` relation points to its successor. Recall then answers
from current memories unless the query asks about the past, or `as_of` / `include_history` is
given (`recall_window`).

These are the rules; graphmem.usecases.versions (`Temporal`) applies them to the stored
memories on write, on approval and when reading a memory's history.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graphmem.domain.meaning import gist
from graphmem.domain.model import Memory, Status
from graphmem.guard.consensus import Candidate
from graphmem.settings import TemporalSettings
from graphmem.stores.records import Relation, Supersession

# A query about the past: superseded memories join the candidates, and rank a little higher.
PAST_QUERY = re.compile(
    r"\b(?:before|used\s+to|previously|formerly|in\s+the\s+past|originally|at\s+first|"
    r"back\s+then|former|earlier\s+(?:job|home|address|manager|employer)|prior\s+to)\b"
    r"|以前|之前|原来|过去|曾经|从前|以往|当初|前任",
    re.IGNORECASE,
)
# A question about one of the speaker's own slots ("Where do I work?"), and the memory that is
# its current value: "I joined Globex" shares no word with that question and little meaning for
# a small embedder, so a filler ("My sister is a nurse") outranked it. The slot, found on write,
# says what the memory answers; this lifts it by as much as the history boost lifts the past.
SLOT_QUESTIONS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (f"self|{attribute}", re.compile(pattern, re.IGNORECASE))
    for attribute, pattern in (
        (
            "employer",
            r"\b(?:where|(?:which|what)\s+company|who)\s+do\s+I\s+(?:currently\s+)?work\b"
            r"|\bwho\s+(?:is|'s)\s+my\s+(?:current\s+)?employer\b"
            r"|\bwhere\s+am\s+I\s+(?:working|employed)\b"
            r"|我(?:现在|目前)?在(?:哪里|哪儿|哪|哪家公司|什么公司)(?:工作|上班)?",
        ),
        (
            "home_city",
            r"\bwhere\s+do\s+(?:I|we)\s+(?:currently\s+)?live\b"
            r"|\b(?:which|what)\s+(?:city|town|country)\s+do\s+(?:I|we)\s+live\b"
            r"|\bwhere\s+(?:is|'s)\s+my\s+home\b|\bwhere\s+am\s+I\s+(?:living|based)\b"
            r"|我(?:们|家)?(?:现在|目前)?住(?:在)?(?:哪|什么地方|哪个城市)|我家(?:现在)?在哪",
        ),
        (
            "manager",
            r"\bwho\s+(?:is|'s)\s+my\s+(?:current\s+)?(?:manager|boss|supervisor)\b"
            r"|\bwho\s+do\s+I\s+report\s+to\b"
            r"|我的?(?:经理|老板|上司|领导|主管)是谁",
        ),
    )
)
SUPERSEDED_BY = "superseded_by"
CONTRADICTS = "contradicts"
UPDATE_OF = "update_of"  # metadata of an update held for review: the memory it would replace


@dataclass(frozen=True)
class RecallWindow:
    """Which memories a search may return, in time.

    mode current: valid now, superseded excluded (the default); past: the query asks about the
    past, superseded included and boosted; as_of: what was valid at `at`; history: everything.
    `graph_at` is the instant whose edges expansion follows (None: every edge).
    """

    mode: str
    at: datetime | None
    include_superseded: bool
    boost: float = 0.0
    slot: str | None = None  # the speaker's slot the query asks the value of
    slot_boost: float = 0.0

    @property
    def graph_at(self) -> float | None:
        return self.at.timestamp() if self.at is not None else None

    def admits(self, m: Memory) -> bool:
        if m.status == Status.SUPERSEDED and not self.include_superseded:
            return False
        return self.at is None or m.valid_at(self.at)

    def rescore(self, m: Memory, score: float, channels: dict[str, float]) -> float:
        if self.boost > 0 and m.status == Status.SUPERSEDED:
            channels["history"] = self.boost
            return 1.0 - (1.0 - score) * (1.0 - self.boost)
        if self.slot_boost > 0 and m.slot is not None and m.slot == self.slot:
            channels["slot"] = self.slot_boost
            return 1.0 - (1.0 - score) * (1.0 - self.slot_boost)
        return score


def asks_for_slot(query: str) -> str | None:
    """The speaker's slot (`self|employer`) a question asks the value of, if any."""
    return next((key for key, rx in SLOT_QUESTIONS if rx.search(query)), None)


def asks_about_past(query: str) -> bool:
    return bool(PAST_QUERY.search(query))


def recall_window(
    query: str,
    now: datetime,
    as_of: datetime | None,
    include_history: bool,
    settings: TemporalSettings,
) -> RecallWindow:
    slot = asks_for_slot(query)
    lift = settings.history_boost if slot else 0.0
    if as_of is not None:
        return RecallWindow("as_of", as_of, True, slot=slot, slot_boost=lift)
    if include_history:
        return RecallWindow("history", None, True)
    if asks_about_past(query):
        return RecallWindow("past", None, True, settings.history_boost)
    return RecallWindow("current", now, False, slot=slot, slot_boost=lift)


@dataclass
class WritePlan:
    """What a batch of writes does to time: supersessions of stored memories and new edges."""

    supersede: list[Supersession] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    outcomes: dict[str, dict[str, Any]] = field(default_factory=dict)  # memory id -> audit note


# Bookkeeping of merges and versions that belongs to a row, never to a new version of it.
VERSION_META_KEYS = ("merged_from", "merged_into", "version_of", UPDATE_OF)


def gist_key(m: Memory) -> tuple[str, frozenset[str]]:
    """Memories that can only be versions of each other share this (speaker and words)."""
    g = gist(m.content)
    return g.speaker, g.words


def candidate(m: Memory) -> Candidate:
    return Candidate(m.id, m.content, m.user_id, m.status.value, m.source.value)


def version_copy(old: Memory, version_id: str, at: datetime) -> Memory:
    """The previous content of a memory that `update` changes, as a closed version of it."""
    return Memory(
        id=version_id,
        user_id=old.user_id,
        content=old.content,
        memory_type=old.memory_type,
        summary=old.summary,
        session_id=old.session_id,
        source=old.source,
        confidence=old.confidence,
        metadata={**old.metadata, "version_of": old.id},
        status=Status.SUPERSEDED,
        created_at=old.created_at,
        updated_at=at,
        valid_from=old.valid_since,
        valid_to=at,
        slot=old.slot,
        agent_id=old.agent_id,
        run_id=old.run_id,
    )


def validity(m: Memory) -> dict[str, Any]:
    """What a hit shows about its time: when it held, and whether it still does."""
    return {
        "valid_from": m.valid_since.isoformat(),
        "valid_to": m.valid_to.isoformat() if m.valid_to else None,
        "current": m.status != Status.SUPERSEDED and m.valid_to is None,
    }


__all__ = [
    "PAST_QUERY",
    "CONTRADICTS",
    "SUPERSEDED_BY",
    "UPDATE_OF",
    "VERSION_META_KEYS",
    "RecallWindow",
    "WritePlan",
    "asks_about_past",
    "candidate",
    "gist_key",
    "recall_window",
    "validity",
    "version_copy",
]
