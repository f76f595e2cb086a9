"""The shared working memory: one expiring Redis key per session, for several processes."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, cast
from urllib.parse import quote

from graphmem.errors import StoreUnavailableError
from graphmem.extras import require_extra
from graphmem.stores.redis_health import redis_health
from graphmem.stores.working.port import WorkingMemory


class RedisWorkingMemory:
    """The shared adapter: one JSON string per session under an expiring key.

    Updates use WATCH/MULTI (optimistic locking, retried by redis-py on conflict), so concurrent
    patches from several server processes compose instead of overwriting each other.
    """

    backend = "redis"

    def __init__(self, url: str, ttl_seconds: float = 86_400, prefix: str = "graphmem:wm:") -> None:
        require_extra("redis", "redis", "Redis working memory")
        import redis

        if ttl_seconds <= 0:
            raise ValueError("ttl_seconds must be positive")
        self.ttl_seconds = ttl_seconds
        self.prefix = prefix
        self._redis = redis.Redis.from_url(
            url, decode_responses=True, socket_timeout=5, socket_connect_timeout=5
        )
        self._errors: tuple[type[Exception], ...] = (redis.ConnectionError, redis.TimeoutError)

    def key(self, user_id: str, session_id: str) -> str:
        # Percent-encoding keeps ':' inside an id from colliding with the separator.
        return f"{self.prefix}{quote(user_id, safe='')}:{quote(session_id, safe='')}"

    def get(self, user_id: str, session_id: str) -> WorkingMemory | None:
        try:
            raw = self._redis.get(self.key(user_id, session_id))
        except self._errors as e:
            raise StoreUnavailableError(f"working memory (redis): {e}") from e
        return WorkingMemory.from_json(raw) if raw else None

    def update(
        self,
        user_id: str,
        session_id: str,
        change: Callable[[WorkingMemory | None], WorkingMemory],
    ) -> WorkingMemory:
        key = self.key(user_id, session_id)
        ttl_ms = max(1, math.ceil(self.ttl_seconds * 1000))

        def txn(pipe: Any) -> WorkingMemory:
            raw = pipe.get(key)
            new = change(WorkingMemory.from_json(raw) if raw else None)
            pipe.multi()
            pipe.set(key, new.to_json(), px=ttl_ms)
            return new

        try:
            # redis-py types the callable as returning None; with value_from_callable it is ours
            out = self._redis.transaction(txn, key, value_from_callable=True)  # type: ignore[arg-type]
            return cast(WorkingMemory, out)
        except self._errors as e:
            raise StoreUnavailableError(f"working memory (redis): {e}") from e

    def delete(self, user_id: str, session_id: str) -> bool:
        try:
            return bool(self._redis.delete(self.key(user_id, session_id)))
        except self._errors as e:
            raise StoreUnavailableError(f"working memory (redis): {e}") from e

    def _user_keys(self, user_id: str) -> list[str]:
        pattern = f"{self.prefix}{quote(user_id, safe='')}:*"
        return list(self._redis.scan_iter(match=pattern, count=500))

    def delete_user(self, user_id: str) -> int:
        """Every session of a user (erasure); returns how many there were."""
        try:
            keys = self._user_keys(user_id)
            return int(self._redis.delete(*keys)) if keys else 0
        except self._errors as e:
            raise StoreUnavailableError(f"working memory (redis): {e}") from e

    def count_user(self, user_id: str) -> int:
        try:
            return len(self._user_keys(user_id))
        except self._errors as e:
            raise StoreUnavailableError(f"working memory (redis): {e}") from e

    def health(self) -> dict[str, Any]:
        return redis_health(self._redis, self.backend)

    def close(self) -> None:
        self._redis.close()
