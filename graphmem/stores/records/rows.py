"""The rows the records store reads and writes besides memories: outbox items, entities,
relations, supersessions, the graph rows of one write, and the filters of a query.

Plain values, shared by the ports, the SQL adapters and the core that builds them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from graphmem.domain.filters import MemoryFilter

ERASE_MARK = "*"  # outbox memory_id of an erase-a-user tombstone


@dataclass(frozen=True)
class OutboxItem:
    id: int
    user_id: str
    memory_id: str
    op: str  # upsert | delete | status | relations (re-project a memory's edges)
    attempts: int
    target: str = "vectors,graph"  # the projections this row still has to reach


@dataclass(frozen=True)
class SecretRow:
    """One vaulted value as stored: encrypted, bound to its user, memory and reference."""

    user_id: str
    memory_id: str
    ref: str
    type: str
    nonce: str  # base64
    ciphertext: str  # base64, AES-GCM with the tag


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
    # when the row is written (graph_rows), closed when either memory is superseded.
    valid_from: datetime | None = None
    valid_to: datetime | None = None


@dataclass(frozen=True)
class Placed:
    """A memory's place in its user's order: by `created_at`, ties broken by `seq`, the
    records store's insertion sequence (a turn written later with the same timestamp comes
    after the one written before it)."""

    id: str
    created_at: datetime
    seq: int


@dataclass(frozen=True)
class Supersession:
    """`old_id` stopped being true at `at` because `new_id` replaced it
    (graphmem.domain.temporal)."""

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
    # The caller's filters (session, source, confidence, scopes, metadata): graphmem.domain.filters.
    filter: MemoryFilter = field(default_factory=MemoryFilter)
    created_before: datetime | None = None
    valid_at: datetime | None = None
