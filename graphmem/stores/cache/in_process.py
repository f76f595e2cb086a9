"""The embedded result cache: per-user ordered dicts, bounded, expiring lazily on access."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Any


class InProcessCache:
    backend = "in-process"

    def __init__(
        self, ttl_seconds: float = 60.0, max_users: int = 10_000, max_per_user: int = 256
    ) -> None:
        self.ttl = ttl_seconds
        self.max_users = max_users
        self.max_per_user = max_per_user
        self._data: OrderedDict[str, OrderedDict[str, tuple[float, Any]]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, user_id: str, key: str) -> Any | None:
        with self._lock:
            entries = self._data.get(user_id)
            item = entries.get(key) if entries else None
            if item is None:
                return None
            if item[0] < time.monotonic():
                del entries[key]  # type: ignore[union-attr]
                return None
            return item[1]

    def set(self, user_id: str, key: str, value: Any) -> None:
        with self._lock:
            entries = self._data.setdefault(user_id, OrderedDict())
            self._data.move_to_end(user_id)
            entries[key] = (time.monotonic() + self.ttl, value)
            while len(entries) > self.max_per_user:
                entries.popitem(last=False)
            while len(self._data) > self.max_users:
                self._data.popitem(last=False)

    def invalidate(self, user_id: str) -> int:
        with self._lock:
            return len(self._data.pop(user_id, {}))

    def count(self, user_id: str) -> int:
        with self._lock:
            return len(self._data.get(user_id, {}))

    def health(self) -> dict[str, object]:
        return {"backend": self.backend, "ok": True, "users": len(self._data)}

    def close(self) -> None:
        with self._lock:
            self._data.clear()
