"""The records ports: the source of truth. Vectors and graph are projections of what is here.

Every method takes the user id and every statement filters on it: a memory id alone never
reaches another user's row.

One store, several narrow ports, so each caller names only what it uses: the memory rows
(`MemoryRecords`), the graph tables (`GraphTables`), the projection queue (`Outbox`), the batch
jobs of the lifecycle (`LifecycleRecords`), the audit trail (`AuditLog`) and erasure
(`ErasableRecords`). `RecordsStore` is all of them: what an adapter implements and what the
service holds.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterator
from datetime import datetime
from typing import Any, Protocol

from graphmem.domain.model import Memory
from graphmem.stores.records.locks import NamedLocks
from graphmem.stores.records.rows import (
    EntityRef,
    GraphRows,
    OutboxItem,
    Placed,
    RecordQuery,
    Relation,
    SecretRow,
    Supersession,
)


class StoreHandle(Protocol):
    """What every port shares: which backend, whether it answers, and letting go of it."""

    backend: str

    def close(self) -> None: ...

    def health(self) -> dict[str, object]: ...


class MemoryRecords(StoreHandle, Protocol):
    """Memory rows: written, read, listed, searched by keyword and counted."""

    def insert(
        self,
        memories: list[Memory],
        search_texts: list[str],
        graph: GraphRows | None = None,
        supersede: list[Supersession] | None = None,
        secrets: list[SecretRow] | None = None,
    ) -> None:
        """Memory rows, their entities and relations, the supersessions they cause, their
        vaulted secrets and their outbox rows: one transaction."""

    def get(self, user_id: str, memory_ids: list[str]) -> dict[str, Memory]: ...

    def update_content(
        self,
        memory: Memory,
        search_text: str,
        *,
        op: str = "upsert",
        secrets: list[SecretRow] | None = None,
    ) -> None:
        """Rewrite one memory's content fields, add the secrets vaulted from the new text, and
        queue its re-projection, in one transaction."""

    def delete(self, user_id: str, memory_ids: list[str]) -> list[str]:
        """Rows, relations, entity links and a 'delete' tombstone each, in one transaction."""

    def set_status(
        self, user_id: str, memory_ids: list[str], status: str, *, only_from: str | None = None
    ) -> list[str]: ...

    def supersede(self, user_id: str, items: list[Supersession]) -> None:
        """Record supersessions on their own (after a review approval, a version update)."""

    def slot_holders(self, user_id: str, slots: list[str]) -> dict[str, list[Memory]]:
        """Current (active, not superseded) memories of the user in each slot, oldest first."""

    def keyword_search(
        self, q: RecordQuery, terms: list[str], limit: int
    ) -> list[tuple[str, float]]:
        """(memory_id, score >= 0) best first; the score grows with relevance."""

    def keyword_search_reach(
        self, q: RecordQuery, terms: list[str], limit: int
    ) -> tuple[builtins.list[tuple[str, float]], float]:
        """`keyword_search`'s hits and what the query could score on one of the user's
        memories (graphmem.stores.records.keyword.reach), to calibrate the channel by."""

    def list(self, q: RecordQuery, limit: int | None = None, offset: int = 0) -> list[Memory]: ...

    def page(
        self, q: RecordQuery, sort: str, after: tuple[Any, int] | None, limit: int
    ) -> builtins.list[tuple[Memory, Any]]:
        """Up to `limit` memories in `sort` order (records.listing.SORTS) strictly after
        `after`, (sort value, seq) of the last row seen; each with its sort value."""

    def count(self, user_id: str | None = None, status: str | None = None) -> int: ...

    def stats(self, user_id: str) -> dict[str, Any]: ...

    def all_ids(self, user_id: str | None = None) -> set[str]: ...

    def record_access(self, counts: dict[tuple[str, str], int], at: datetime) -> None:
        """Add access counts keyed by (user_id, memory_id) in one batched statement."""


class GraphTables(StoreHandle, Protocol):
    """Entities, memory-entity links and relations: what the graph projection is built from."""

    def save_graph(
        self, graph: GraphRows, *, project: bool = True, set_strength: bool = False
    ) -> int:
        """Entities, links and relations (insert-or-keep; `set_strength` overwrites the
        strength of an existing relation) plus 'relations' outbox rows."""

    def mentions_of(self, user_id: str, keys: list[str], per_key: int) -> dict[str, list[str]]:
        """Memory ids mentioning each entity key, newest first, at most `per_key` each."""

    def mentions(
        self, user_id: str, keys: list[str], per_key: int, *, written_before: int | None = None
    ) -> dict[str, list[Placed]]:
        """Memories mentioning each entity key, latest first by (created_at, write order), at
        most `per_key` each; with `written_before`, only those written before that sequence."""

    def mention_counts(self, user_id: str, keys: list[str]) -> dict[str, int]:
        """How many of the user's memories mention each entity key (absent: none)."""

    def session_previous(
        self,
        user_id: str,
        session_id: str | None,
        at: datetime | None,
        *,
        written_before: int | None = None,
    ) -> Placed | None:
        """The memory a write at `at` follows: the latest by (created_at, write order) of those
        written before it and not dated after it; in the session, or of the user if None."""

    def relations_for(self, user_id: str, memory_ids: list[str]) -> list[Relation]: ...

    def relation_rows(
        self,
        user_id: str,
        memory_ids: list[str],
        relation_types: tuple[str, ...] | None,
        per_node: int,
        at: datetime | None = None,
    ) -> list[tuple[Any, ...]]:
        """The strongest `per_node` relations on each side of each memory (edge_order; type and
        validity filters applied before the cut) as raw (source, target, type, strength,
        valid_from, valid_to) rows, validity as the database returns it: graph expansion."""

    def relation_table(self, user_id: str, page: int = 20_000) -> Iterator[tuple[Any, ...]]:
        """Every relation of the user as raw `relation_rows` rows, read `page` at a time: the
        walk's prepared adjacency is built from them."""
        ...

    def relations_page(
        self, after_id: int, limit: int, user_id: str | None = None
    ) -> tuple[int, list[Relation]]:
        """Relations in storage order after a cursor, and the new cursor: for bulk rebuilds."""

    def entities_for(self, user_id: str, memory_ids: list[str]) -> dict[str, list[EntityRef]]: ...

    def graph_counts(self, user_id: str | None = None) -> dict[str, int]: ...


class Outbox(StoreHandle, Protocol):
    """The projection queue: rows written with the records, drained into vectors and graph."""

    def outbox_due(self, limit: int, now: datetime) -> list[OutboxItem]: ...

    def outbox_claim(self, limit: int, due_by: datetime, lease_seconds: float) -> list[OutboxItem]:
        """Take due rows for this drain only, until the lease runs out."""
        ...

    def outbox_pending(self, ids: list[int]) -> set[int]: ...

    def outbox_release(self, ids: list[int]) -> None:
        """Give claimed rows back, due now."""

    def outbox_for(self, memory_ids: list[str]) -> list[OutboxItem]: ...

    def outbox_done(self, ids: list[int]) -> None: ...

    def outbox_retry_later(
        self, item_id: int, error: str, next_attempt_at: datetime, target: str | None = None
    ) -> None:
        """Retry later; `target` narrows the row to the projections that still failed."""

    def outbox_count(self) -> int: ...

    def outbox_oldest(self) -> datetime | None: ...


class LifecycleRecords(StoreHandle, Protocol):
    """Batch jobs over the whole store: decay, merges, preloads, rebuilds."""

    def scan(
        self, after_doc_id: int, limit: int, user_id: str | None = None
    ) -> list[tuple[int, Memory]]:
        """Memories in storage order after a cursor: for resumable batch jobs."""

    def set_lifecycle(self, rows: list[tuple[str, str, float, datetime | None, str]]) -> None:
        """(user_id, id, decay_score, expires_at, summary) values; no re-projection queued."""

    def merge(self, user_id: str, survivor: Memory, loser_ids: list[str]) -> list[str]:
        """Fold memories into a survivor in one transaction; returns those merged."""

    def preload_candidates(self, user_id: str, limit: int) -> dict[str, list[Memory]]:
        """{"recent": [...], "frequent": [...]}: active memories to preload a session with."""

    def set_search_texts(self, rows: list[tuple[str, str, str]]) -> int:
        """(user_id, memory_id, search_text): rewrite keyword columns and statistics (after a
        tokenizer change) in one transaction; returns how many changed."""


class StoreMetadata(StoreHandle, Protocol):
    """Facts about the whole store: what its derived columns and projections were made with."""

    def meta(self, name: str) -> str | None: ...

    def set_meta(self, name: str, value: str) -> None: ...


class AuditLog(StoreHandle, Protocol):
    def audit(self, user_id: str, action: str, memory_ids: list[str], details: dict) -> None: ...

    def audit_rows(self, user_id: str, limit: int = 100) -> list[dict[str, Any]]: ...


class ErasableRecords(StoreHandle, Protocol):
    """Erasing a user, and proving it: what is left in the tables and in the files."""

    def erase_user(self, user_id: str, requested_by: str) -> dict[str, int]:
        """Every row about the user, gone in one transaction; an erase tombstone queued."""

    def scrub(self) -> None:
        """After an erasure: make deleted rows unrecoverable from the store's own files."""

    def user_markers(self, user_id: str, sessions: int, contents: int, chars: int) -> set[str]:
        """The user id, session ids and memory openings an erasure looks for on disk."""

    def shared_markers(self, markers: set[str]) -> set[str]:
        """The markers a remaining memory still holds as its session id or opening."""

    def user_residue(self, user_id: str) -> dict[str, int]: ...


class VaultRecords(StoreHandle, Protocol):
    """The vault's rows: wrapped data keys and encrypted secrets (graphmem.guard.vault)."""

    def vault_key(self, user_id: str) -> tuple[str, str] | None: ...

    def vault_add_key(self, user_id: str, key_id: str, wrapped: str) -> tuple[str, str]: ...

    def vault_keys(self) -> builtins.list[tuple[str, str, str]]: ...

    def vault_rewrap(self, rows: builtins.list[tuple[str, str, str]]) -> None: ...

    def vault_secrets(self, user_id: str, memory_id: str) -> builtins.list[SecretRow]: ...

    def vault_count(self, user_id: str) -> int: ...


class LibraryGrants(Protocol):
    """Read grants of shared document libraries (graphmem.stores.records.libraries)."""

    def grant_library(self, library: str, user_id: str) -> bool: ...

    def revoke_library(self, library: str, user_id: str) -> bool: ...

    def libraries_of(self, user_id: str) -> list[str]: ...

    def library_readers(self, library: str) -> list[str]: ...


class RecordsStore(
    MemoryRecords,
    VaultRecords,
    LibraryGrants,
    GraphTables,
    Outbox,
    LifecycleRecords,
    AuditLog,
    ErasableRecords,
    StoreMetadata,
    Protocol,
):
    """The whole records store: what the SQLite and MySQL adapters implement."""

    locks: NamedLocks  # serialise a user's writes: in the process, or on the server for replicas
