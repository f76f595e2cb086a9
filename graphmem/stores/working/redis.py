"""The shared working memory: one expiring Redis key per session, for several processes, on one
Redis server or a Redis Cluster. A session's key is ``<prefix>{<tag>}:<user>:<session>``
(graphmem.stores.redis_client): all of a user's sessions share the user's slot."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, cast
from urllib.parse import quote

from graphmem.errors import StoreUnavailableError
from graphmem.stores.redis_client import (
    check_prefix,
    open_redis,
    scan_keys,
    user_key,
    user_pattern,
)
from graphmem.stores.redis_health import redis_health
from graphmem.stores.working.port import WorkingMemory


class RedisWorkingMemory:
    """The shared adapter: one JSON string per session under an expiring key.

    Updates use WATCH/MULTI (optimistic locking, retried by redis-py on conflict), so concurrent
    patches from several server processes compose instead of overwriting each other.
    """

    backend = "redis"

    def __init__(self, url: str, ttl_seconds: float = 86_400, prefix: str = "graphmem:wm:") -> None:
        if ttl_seconds <= 0:
            raise ValueError("ttl_seconds must be positive")
        self.ttl_seconds = ttl_seconds
        self.prefix = check_prefix(prefix)
        self._redis = open_redis(
            url, timeout_s=5, decode_responses=True, what="Redis working memory"
        )
        import redis
        from redis.exceptions import ClusterError

        # a cluster that lost a master and declared itself down is as unavailable as a dead server
        self._errors: tuple[type[Exception], ...] = (
            redis.ConnectionError,
            redis.TimeoutError,
            ClusterError,
        )

    def key(self, user_id: str, session_id: str) -> str:
        # Percent-encoding keeps ':' inside an id from colliding with the separator.
        return user_key(self.prefix, user_id, quote(session_id, safe=""))

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
            # value_from_callable: the transaction returns what txn returned
            out = self._redis.transaction(txn, key, value_from_callable=True)
            return cast(WorkingMemory, out)
        except self._errors as e:
            raise StoreUnavailableError(f"working memory (redis): {e}") from e

    def delete(self, user_id: str, session_id: str) -> bool:
        try:
            return bool(self._redis.delete(self.key(user_id, session_id)))
        except self._errors as e:
            raise StoreUnavailableError(f"working memory (redis): {e}") from e

    def _user_keys(self, user_id: str) -> list[str]:
        return scan_keys(self._redis, user_pattern(self.prefix, user_id))

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
