"""Search-result cache: the port, and the key searches are cached under. Two adapters:
in-process (`in_process`, embedded) and Redis (`redis`, shared by every server process).

Entries live under their user: a user's write, update or forget drops all of that user's
entries at once (`invalidate`), and erasing a user can count and purge them exactly. Values hold
memory ids and scores, never content: a hit re-reads its memory from the records store, so a
cached result can never show a stale or deleted memory's text.
"""

from __future__ import annotations

import json
from typing import Any, Protocol


class ResultCache(Protocol):
    backend: str

    def get(self, user_id: str, key: str) -> Any | None: ...

    def set(self, user_id: str, key: str, value: Any) -> None: ...

    def invalidate(self, user_id: str) -> int: ...

    def count(self, user_id: str) -> int: ...

    def health(self) -> dict[str, object]: ...

    def close(self) -> None: ...


def cache_key(**parts: Any) -> str:
    """A stable key from the search arguments (query normalised for case and spacing)."""
    q = parts.get("query")
    if isinstance(q, str):
        parts["query"] = " ".join(q.split()).lower()
    return json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
