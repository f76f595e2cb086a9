"""The shared result cache: one Redis hash per user, for several server processes."""

from __future__ import annotations

import json
from typing import Any

from graphmem.extras import require_extra
from graphmem.stores.redis_health import redis_health


class RedisCache:
    """One Redis hash per user (field = cache key), expiring as a whole after `ttl_seconds`."""

    backend = "redis"

    def __init__(self, url: str, ttl_seconds: float = 60.0, prefix: str = "graphmem:sc:") -> None:
        require_extra("redis", "redis", "the Redis search cache")
        import redis

        self._redis = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
        self.ttl = max(1, int(ttl_seconds))
        self.prefix = prefix

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
