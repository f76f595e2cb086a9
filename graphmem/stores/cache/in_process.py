"""The embedded result cache: per-user ordered dicts, bounded, expiring lazily on access."""

from __future__ import annotations

import itertools
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from graphmem.stores.cache.port import Lookup


@dataclass
class _UserEntries:
    version: str
    entries: OrderedDict[str, tuple[float, Any]] = field(default_factory=OrderedDict)


class InProcessCache:
    """Versions come from one counter for the whole cache, so a user dropped by invalidation,
    erasure or the `max_users` bound comes back with a version no search has seen."""

    backend = "in-process"

    def __init__(
        self, ttl_seconds: float = 60.0, max_users: int = 10_000, max_per_user: int = 256
    ) -> None:
        self.ttl = ttl_seconds
        self.max_users = max_users
        self.max_per_user = max_per_user
        self._data: OrderedDict[str, _UserEntries] = OrderedDict()
        self._versions = itertools.count(1)
        self._lock = threading.Lock()

    def _user(self, user_id: str) -> _UserEntries:
        user = self._data.get(user_id)
        if user is None:
            user = self._data[user_id] = _UserEntries(str(next(self._versions)))
            while len(self._data) > self.max_users:
                self._data.popitem(last=False)
        self._data.move_to_end(user_id)
        return user

    def get(self, user_id: str, key: str) -> Lookup:
        with self._lock:
            user = self._user(user_id)
            item = user.entries.get(key)
            if item is None:
                return Lookup(None, user.version)
            if item[0] < time.monotonic():
                del user.entries[key]
                return Lookup(None, user.version)
            return Lookup(item[1], user.version)

    def version(self, user_id: str) -> str:
        with self._lock:
            return self._user(user_id).version

    def set(self, user_id: str, key: str, value: Any, version: str) -> bool:
        with self._lock:
            user = self._data.get(user_id)
            if user is None or user.version != version:
                return False
            self._data.move_to_end(user_id)
            user.entries[key] = (time.monotonic() + self.ttl, value)
            while len(user.entries) > self.max_per_user:
                user.entries.popitem(last=False)
            return True

    def invalidate(self, user_id: str) -> int:
        with self._lock:
            user = self._data.pop(user_id, None)
            return len(user.entries) if user else 0

    def purge(self, user_id: str) -> int:
        return self.invalidate(user_id)

    def count(self, user_id: str) -> int:
        with self._lock:
            user = self._data.get(user_id)
            return len(user.entries) if user else 0

    def health(self) -> dict[str, object]:
        return {"backend": self.backend, "ok": True, "users": len(self._data)}

    def close(self) -> None:
        with self._lock:
            self._data.clear()
