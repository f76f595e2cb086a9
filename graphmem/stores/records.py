"""The records port: the source of truth. Vectors and graph are projections of what is here.

Every method takes the user id and every statement filters on it: a memory id alone never
reaches another user's row.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from graphmem.model import Memory


@dataclass(frozen=True)
class OutboxItem:
    id: int
    user_id: str
    memory_id: str
    op: str  # upsert | delete | status | relations (re-project a memory's edges)
    attempts: int
    target: str = "vectors,graph"  # the projections this row still has to reach


@dataclass(frozen=True)
class EntityRef:
    """An entity as the records store keeps it: `key` is its normalised, resolving name."""

    key: str
    name: str
    entity_type: str = "thing"


@dataclass(frozen=True)
class Relation:
    """A typed, weighted edge between two memories of one user (`memory_relations`)."""

    user_id: str
    source_id: str
    target_id: str
    relation_type: str
    strength: float = 1.0
    # When the relation held in the world; None: open. Filled from the two memories' validity
    # when the row is written (records_graph), closed when either memory is superseded.
    valid_from: datetime | None = None
    valid_to: datetime | None = None


@dataclass(frozen=True)
class Supersession:
    """`old_id` stopped being true at `at` because `new_id` replaced it (graphmem.temporal)."""

    old_id: str
    new_id: str
    at: datetime


@dataclass
class GraphRows:
    """What a write adds to the graph tables, committed in the same transaction as the rows."""

    user_id: str
    entities: dict[str, list[EntityRef]]  # memory id -> entities it mentions
    relations: list[Relation]


@dataclass(frozen=True)
class RecordQuery:
    """Filters shared by the keyword channel, listing and export."""

    user_id: str
    memory_type: str | None = None
    statuses: tuple[str, ...] = ("active",)
    created_after: datetime | None = None
    session_id: str | None = None


class RecordsStore(Protocol):
    backend: str

    def insert(
        self,
        memories: list[Memory],
        search_texts: list[str],
        graph: GraphRows | None = None,
        supersede: list[Supersession] | None = None,
    ) -> None:
        """Memory rows, their entities and relations, the supersessions they cause, and their
        outbox rows: one transaction."""

    def slot_holders(self, user_id: str, slots: list[str]) -> dict[str, list[Memory]]:
        """Current (active, not superseded) memories of the user in each slot, oldest first."""

    def get(self, user_id: str, memory_ids: list[str]) -> dict[str, Memory]: ...

    def update_content(self, memory: Memory, search_text: str, *, op: str = "upsert") -> None:
        """Rewrite one memory's content fields and queue its re-projection, in one transaction."""

    def delete(self, user_id: str, memory_ids: list[str]) -> list[str]:
        """Rows, relations, entity links and a 'delete' tombstone each, in one transaction."""

    def keyword_search(
        self, q: RecordQuery, terms: list[str], limit: int
    ) -> list[tuple[str, float]]:
        """(memory_id, score >= 0) best first; the score grows with relevance."""

    def list(self, q: RecordQuery, limit: int | None = None, offset: int = 0) -> list[Memory]: ...

    def count(self, user_id: str | None = None, status: str | None = None) -> int: ...

    def stats(self, user_id: str) -> dict[str, Any]: ...

    def set_status(
        self, user_id: str, memory_ids: list[str], status: str, *, only_from: str | None = None
    ) -> list[str]: ...

    def erase_user(self, user_id: str, requested_by: str) -> dict[str, int]:
        """Every row about the user, gone in one transaction; an erase tombstone queued."""

    def scrub(self) -> None:
        """After an erasure: make deleted rows unrecoverable from the store's own files."""

    def user_markers(self, user_id: str, sessions: int, contents: int, chars: int) -> set[str]:
        """The user id, session ids and memory openings an erasure looks for on disk."""

    def shared_markers(self, markers: set[str]) -> set[str]:
        """The markers a remaining memory still holds as its session id or opening."""

    def user_residue(self, user_id: str) -> dict[str, int]: ...

    def record_access(self, counts: dict[tuple[str, str], int], at: datetime) -> None:
        """Add access counts keyed by (user_id, memory_id) in one batched statement."""

    def outbox_due(self, limit: int, now: datetime) -> list[OutboxItem]: ...

    def outbox_for(self, memory_ids: list[str]) -> list[OutboxItem]: ...

    def outbox_done(self, ids: list[int]) -> None: ...

    def outbox_retry_later(
        self, item_id: int, error: str, next_attempt_at: datetime, target: str | None = None
    ) -> None:
        """Retry later; `target` narrows the row to the projections that still failed."""

    def outbox_count(self) -> int: ...

    def outbox_oldest(self) -> datetime | None: ...

    def audit(self, user_id: str, action: str, memory_ids: list[str], details: dict) -> None: ...

    def audit_rows(self, user_id: str, limit: int = 100) -> list[dict[str, Any]]: ...

    def all_ids(self, user_id: str | None = None) -> set[str]: ...

    # graph tables (graphmem/stores/records_graph.py)
    def save_graph(self, graph: GraphRows, *, project: bool = True) -> int:
        """Entities, links and relations (insert-or-keep) plus 'relations' outbox rows."""

    def mentions_of(self, user_id: str, keys: list[str], per_key: int) -> dict[str, list[str]]:
        """Memory ids mentioning each entity key, newest first, at most `per_key` each."""

    def mention_counts(self, user_id: str, keys: list[str]) -> dict[str, int]:
        """How many of the user's memories mention each entity key (absent: none)."""

    def session_previous(self, user_id: str, session_id: str, before: datetime) -> str | None:
        """The latest memory of a session created before `before`."""

    def relations_for(self, user_id: str, memory_ids: list[str]) -> list[Relation]: ...

    def relations_page(
        self, after_id: int, limit: int, user_id: str | None = None
    ) -> tuple[int, list[Relation]]:
        """Relations in storage order after a cursor, and the new cursor: for bulk rebuilds."""

    def entities_for(self, user_id: str, memory_ids: list[str]) -> dict[str, list[EntityRef]]: ...

    def graph_counts(self, user_id: str | None = None) -> dict[str, int]: ...

    def scan(
        self, after_doc_id: int, limit: int, user_id: str | None = None
    ) -> list[tuple[int, Memory]]:
        """Memories in storage order after a cursor: for resumable batch jobs."""

    # lifecycle (graphmem/stores/records_lifecycle.py)
    def set_lifecycle(self, rows: list[tuple[str, str, float, datetime | None, str]]) -> None:
        """(user_id, id, decay_score, expires_at, summary) values; no re-projection queued."""

    def merge(self, user_id: str, survivor: Memory, loser_ids: list[str]) -> list[str]:
        """Fold memories into a survivor in one transaction; returns those merged."""

    def preload_candidates(self, user_id: str, limit: int) -> dict[str, list[Memory]]:
        """{"recent": [...], "frequent": [...]}: active memories to preload a session with."""

    def close(self) -> None: ...

    def health(self) -> dict[str, object]: ...
