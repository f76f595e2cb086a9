"""The embedded working memory: sessions in a dict, gone when the process stops."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from graphmem.stores.working.port import WorkingMemory


class InProcessWorkingMemory:
    """The embedded adapter: a dict guarded by a lock, expiring lazily on access.

    Bounded by `max_sessions`: past it, expired sessions go first, then the ones that would
    expire soonest, so a flood of new sessions cannot exhaust memory.
    """

    backend = "memory"

    def __init__(
        self,
        ttl_seconds: float = 86_400,
        max_sessions: int = 10_000,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if ttl_seconds <= 0:
            raise ValueError("ttl_seconds must be positive")
        self.ttl_seconds = ttl_seconds
        self.max_sessions = max_sessions
        self._clock = clock
        self._data: dict[tuple[str, str], WorkingMemory] = {}
        self._lock = threading.Lock()

    def get(self, user_id: str, session_id: str) -> WorkingMemory | None:
        with self._lock:
            wm = self._data.get((user_id, session_id))
            if wm is not None and wm.expires_at <= self._clock():
                del self._data[(user_id, session_id)]
                return None
            return WorkingMemory.from_json(wm.to_json()) if wm else None

    def update(
        self,
        user_id: str,
        session_id: str,
        change: Callable[[WorkingMemory | None], WorkingMemory],
    ) -> WorkingMemory:
        with self._lock:
            key = (user_id, session_id)
            cur = self._data.get(key)
            if cur is not None and cur.expires_at <= self._clock():
                cur = None
            new = change(WorkingMemory.from_json(cur.to_json()) if cur else None)
            self._data[key] = new
            if len(self._data) > self.max_sessions:
                self._evict()
            return WorkingMemory.from_json(new.to_json())

    def _evict(self) -> None:
        now = self._clock()
        for k in [k for k, v in self._data.items() if v.expires_at <= now]:
            del self._data[k]
        while len(self._data) > self.max_sessions:
            del self._data[min(self._data, key=lambda k: self._data[k].expires_at)]

    def delete(self, user_id: str, session_id: str) -> bool:
        with self._lock:
            return self._data.pop((user_id, session_id), None) is not None

    def delete_user(self, user_id: str) -> int:
        """Every session of a user (erasure); returns how many there were."""
        with self._lock:
            keys = [k for k in self._data if k[0] == user_id]
            for k in keys:
                del self._data[k]
            return len(keys)

    def count_user(self, user_id: str) -> int:
        with self._lock:
            return sum(1 for k in self._data if k[0] == user_id)

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)

    def health(self) -> dict[str, Any]:
        return {"backend": self.backend, "ok": True, "sessions": len(self)}

    def close(self) -> None:
        with self._lock:
            self._data.clear()
