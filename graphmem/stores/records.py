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
    op: str  # upsert | delete | status
    attempts: int


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

    def insert(self, memories: list[Memory], search_texts: list[str]) -> None:
        """Memory rows and their 'upsert' outbox rows, in one transaction."""

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

    def record_access(self, counts: dict[tuple[str, str], int], at: datetime) -> None:
        """Add access counts keyed by (user_id, memory_id) in one batched statement."""

    def outbox_due(self, limit: int, now: datetime) -> list[OutboxItem]: ...

    def outbox_for(self, memory_ids: list[str]) -> list[OutboxItem]: ...

    def outbox_done(self, ids: list[int]) -> None: ...

    def outbox_retry_later(self, item_id: int, error: str, next_attempt_at: datetime) -> None: ...

    def outbox_count(self) -> int: ...

    def audit(self, user_id: str, action: str, memory_ids: list[str], details: dict) -> None: ...

    def audit_rows(self, user_id: str, limit: int = 100) -> list[dict[str, Any]]: ...

    def all_ids(self, user_id: str | None = None) -> set[str]: ...

    def close(self) -> None: ...

    def health(self) -> dict[str, object]: ...
