"""Search-result cache: the port, and the key searches are cached under. Two adapters:
in-process (`in_process`, embedded) and Redis (`redis`, shared by every server process).

Entries live under their user and that user's cache version. A search reads the version before
it computes (`get` returns it with the entry) and stores its result under that version (`set`);
a user's write, update or forget moves the version on and drops the user's entries
(`invalidate`). A result computed from data older than a write is therefore never served after
that write's invalidation, even when the search ran in another server process and stores its
result after the invalidation: its version is no longer current, so `set` refuses it (and were
it stored, no lookup would ask for it). Deleting entries alone cannot promise that: a search
that started before the delete can put its stale result back after it.

Versions only ever move forward, also across `purge` (erasure), so a search that started before
an erase can never find its version current again. Erasing a user can count and purge their
entries exactly. Values hold memory ids and scores, never content: a hit re-reads its memory from
the records store, so a cached result can never show a stale or deleted memory's text.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple, Protocol


class Lookup(NamedTuple):
    """A cached value (None on a miss) and the user's cache version it was looked up under:
    a result computed after this lookup is stored with `ResultCache.set(..., version)`."""

    value: Any | None
    version: str


class ResultCache(Protocol):
    backend: str

    def get(self, user_id: str, key: str) -> Lookup: ...

    def set(self, user_id: str, key: str, value: Any, version: str) -> bool:
        """Store `value` if `version` is still the user's current one; False if it moved on."""
        ...

    def version(self, user_id: str) -> str:
        """The user's current version, as `get` reads it: what else the service keeps of a
        user's data between writes (the walk's prepared adjacency) is current while it holds."""
        ...

    def invalidate(self, user_id: str) -> int:
        """Move the user's version on and drop their entries; returns how many were dropped."""
        ...

    def purge(self, user_id: str) -> int:
        """Erasure: drop every entry of the user and whatever else names them; returns how many
        entries there were. A search still running stores nothing afterwards."""
        ...

    def count(self, user_id: str) -> int: ...

    def health(self) -> dict[str, object]: ...

    def close(self) -> None: ...


def cache_key(**parts: Any) -> str:
    """A stable key from the search arguments (query normalised for case and spacing)."""
    q = parts.get("query")
    if isinstance(q, str):
        parts["query"] = " ".join(q.split()).lower()
    return json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
