"""The shared result cache, for several server processes on one Redis server or Redis Cluster.

Per user, two keys in the user's slot (graphmem.stores.redis_client):
``<prefix>{<tag>}:<user>:v`` holds the user's cache version and ``<prefix>{<tag>}:<user>:e`` a
hash of their entries, field ``<version>:<cache key>``. Each operation is one Lua script over
both keys, so it is atomic on a single server and allowed on a cluster (same slot).

Versions are the server's clock in microseconds when a version key is first made, and one more
than the last (or the clock, if later) when a write invalidates. They never repeat: not when the
version key expires or is evicted (an LRU-capped Redis), not after an erase deleted it, so a
search that read a version before an invalidation can never find it current again. `set` stores
only under the current version. (Repeating would take the master's clock to step back to the
very microsecond of an earlier version, e.g. after a failover to a replica whose clock lags.)
"""

from __future__ import annotations

import json
from typing import Any

from graphmem.stores.cache.port import Lookup
from graphmem.stores.redis_client import check_prefix, open_redis, user_key
from graphmem.stores.redis_health import redis_health

# The server's clock in microseconds, as a decimal string (Lua numbers are doubles: concatenating
# keeps every digit without relying on how a large double is printed).
_NOW = """
local t = redis.call('TIME')
local now = t[1] .. string.format('%06d', tonumber(t[2]))
"""

# KEYS = version, entries; ARGV = cache key, ttl. Returns {version, value or nil}.
_GET = (
    _NOW
    + """
local v = redis.call('GET', KEYS[1])
if not v then
  v = now
  redis.call('SET', KEYS[1], v, 'EX', ARGV[2])
end
return {v, redis.call('HGET', KEYS[2], v .. ':' .. ARGV[1])}
"""
)

# KEYS = version, entries; ARGV = version read before computing, cache key, value, ttl.
_SET = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[2], ARGV[1] .. ':' .. ARGV[2], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[4])
return 1
"""

# KEYS = version, entries; ARGV = ttl. Moves the version on, drops the entries, returns their count.
_INVALIDATE = (
    _NOW
    + """
local n = redis.call('HLEN', KEYS[2])
redis.call('DEL', KEYS[2])
local v = redis.call('GET', KEYS[1])
if v and tonumber(v) >= tonumber(now) then
  redis.call('INCR', KEYS[1])
  redis.call('EXPIRE', KEYS[1], ARGV[1])
else
  redis.call('SET', KEYS[1], now, 'EX', ARGV[1])
end
return n
"""
)

# KEYS = version, entries. Erasure: nothing of the user stays; returns how many entries there were.
_PURGE = """
local n = redis.call('HLEN', KEYS[2])
redis.call('DEL', KEYS[1], KEYS[2])
return n
"""


class RedisCache:
    """Entries expire `ttl_seconds` after the user's last cached search or invalidation."""

    backend = "redis"

    def __init__(self, url: str, ttl_seconds: float = 60.0, prefix: str = "graphmem:sc:") -> None:
        self._redis = open_redis(url, timeout_s=2, what="the Redis search cache")
        self.ttl = max(1, int(ttl_seconds))
        self.prefix = check_prefix(prefix)
        self._get = self._redis.register_script(_GET)
        self._set = self._redis.register_script(_SET)
        self._invalidate = self._redis.register_script(_INVALIDATE)
        self._purge = self._redis.register_script(_PURGE)

    def keys(self, user_id: str) -> list[str]:
        """The user's version key and entries key (both in the user's slot)."""
        return [user_key(self.prefix, user_id, "v"), user_key(self.prefix, user_id, "e")]

    def get(self, user_id: str, key: str) -> Lookup:
        version, raw = self._get(keys=self.keys(user_id), args=[key, self.ttl])
        return Lookup(json.loads(raw) if raw is not None else None, version.decode())

    def version(self, user_id: str) -> str:
        """The get script with an empty key, which no search is cached under (keys are JSON)."""
        version, _ = self._get(keys=self.keys(user_id), args=["", self.ttl])
        return str(version.decode())

    def set(self, user_id: str, key: str, value: Any, version: str) -> bool:
        args = [version, key, json.dumps(value), self.ttl]
        return bool(self._set(keys=self.keys(user_id), args=args))

    def invalidate(self, user_id: str) -> int:
        return int(self._invalidate(keys=self.keys(user_id), args=[self.ttl]))

    def purge(self, user_id: str) -> int:
        return int(self._purge(keys=self.keys(user_id)))

    def count(self, user_id: str) -> int:
        return int(self._redis.hlen(self.keys(user_id)[1]))

    def health(self) -> dict[str, object]:
        return redis_health(self._redis, self.backend)

    def close(self) -> None:
        self._redis.close()
