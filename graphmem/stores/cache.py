"""Search-result cache, one port and two adapters: in-process (embedded) and Redis (shared by
every server process).

Entries live under their user: a user's write, update or forget drops all of that user's
entries at once (`invalidate`), and erasing a user can count and purge them exactly. Values hold
memory ids and scores, never content: a hit re-reads its memory from the records store, so a
cached result can never show a stale or deleted memory's text.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from typing import Any, Protocol

from graphmem.stores.redis_health import redis_health


class ResultCache(Protocol):
    backend: str

    def get(self, user_id: str, key: str) -> Any | None: ...

    def set(self, user_id: str, key: str, value: Any) -> None: ...

    def invalidate(self, user_id: str) -> int: ...

    def count(self, user_id: str) -> int: ...

    def health(self) -> dict[str, object]: ...

    def close(self) -> None: ...


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


class RedisCache:
    """One Redis hash per user (field = cache key), expiring as a whole after `ttl_seconds`."""

    backend = "redis"

    def __init__(self, url: str, ttl_seconds: float = 60.0, prefix: str = "graphmem:sc:") -> None:
        import redis

        self._redis = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
        self.ttl = max(1, int(ttl_seconds))
        self.prefix = prefix
        self.url = url

    def _key(self, user_id: str) -> str:
        return f"{self.prefix}{user_id}"

    def get(self, user_id: str, key: str) -> Any | None:
        raw = self._redis.hget(self._key(user_id), key)
        return json.loads(raw) if raw is not None else None

    def set(self, user_id: str, key: str, value: Any) -> None:
        name = self._key(user_id)
        pipe = self._redis.pipeline()
        pipe.hset(name, key, json.dumps(value))
        pipe.expire(name, self.ttl)
        pipe.execute()

    def invalidate(self, user_id: str) -> int:
        name = self._key(user_id)
        pipe = self._redis.pipeline()
        pipe.hlen(name)
        pipe.delete(name)
        n, _ = pipe.execute()
        return int(n)

    def count(self, user_id: str) -> int:
        return int(self._redis.hlen(self._key(user_id)))

    def health(self) -> dict[str, object]:
        return redis_health(self._redis, self.backend)

    def close(self) -> None:
        self._redis.close()


def cache_key(**parts: Any) -> str:
    """A stable key from the search arguments (query normalised for case and spacing)."""
    q = parts.get("query")
    if isinstance(q, str):
        parts["query"] = " ".join(q.split()).lower()
    return json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
