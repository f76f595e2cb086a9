"""Token buckets in Redis (one server or a Redis Cluster), shared by every process that talks
to it.

A bucket key is ``<budget>:<user id>`` (graphmem.guard.ratelimit.bucket_key); its Redis key is
``<prefix>{<tag>}:<user>:<budget>`` (graphmem.stores.redis_client), in the slot of the user's
other keys, so a user's buckets are found and erased with them. A key without a user part (no
':') is stored as ``<prefix><key>``: one key, hashed whole by a cluster, needs no tag.
"""

from __future__ import annotations

import logging
import math
from typing import Any

from graphmem.stores.ratelimit.port import RateDecision, refuse_oversized
from graphmem.stores.redis_client import (
    check_prefix,
    open_redis,
    scan_keys,
    user_key,
    user_pattern,
)

# the guard's logger: a refused or unprotected call is a guard event, wherever the bucket lives
log = logging.getLogger("graphmem.guard.ratelimit")


# KEYS[1] = bucket; ARGV = capacity, refill per second, cost. Returns {allowed, tokens, retry}
# as strings because Redis truncates Lua numbers to integers on the way out.
_LUA = """
local cap = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local b = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(b[1])
local ts = tonumber(b[2])
if tokens == nil or ts == nil then
  tokens = cap
  ts = now
end
local elapsed = now - ts
if elapsed < 0 then elapsed = 0 end
tokens = math.min(cap, tokens + elapsed * rate)
local allowed = 0
local retry = 0
if tokens >= cost then
  tokens = tokens - cost
  allowed = 1
else
  retry = (cost - tokens) / rate
end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.6f', tokens),
           'ts', string.format('%.6f', now))
redis.call('PEXPIRE', KEYS[1], math.ceil(cap / rate * 1000) + 1000)
return {allowed, string.format('%.6f', tokens), string.format('%.6f', retry)}
"""


class RedisRateLimiter:
    """Buckets shared by every process that talks to the same Redis.

    `fail_open` decides what an unreachable Redis means: allow the call and log (default - a
    rate limiter should not take the memory service down with it) or refuse it.
    """

    def __init__(self, client: Any, prefix: str = "graphmem:rl:", *, fail_open: bool = True):
        self.client = client
        self.prefix = check_prefix(prefix)
        self.fail_open = fail_open
        self._script = client.register_script(_LUA)

    @classmethod
    def from_url(
        cls,
        url: str,
        prefix: str = "graphmem:rl:",
        *,
        fail_open: bool = True,
        timeout_s: float = 0.5,
    ) -> RedisRateLimiter:
        client = open_redis(url, timeout_s=timeout_s, what="the Redis rate limiter")
        return cls(client, prefix, fail_open=fail_open)

    def redis_key(self, key: str) -> str:
        budget, sep, user_id = key.partition(":")
        return user_key(self.prefix, user_id, budget) if sep else self.prefix + key

    def acquire(self, key: str, limit_per_minute: float, cost: float = 1) -> RateDecision:
        if limit_per_minute <= 0:
            return RateDecision(True, math.inf, 0.0, limit_per_minute)
        oversized = refuse_oversized(limit_per_minute, cost)
        if oversized:
            return oversized
        try:
            allowed, tokens, retry = self._script(
                keys=[self.redis_key(key)], args=[limit_per_minute, limit_per_minute / 60.0, cost]
            )
        except Exception as e:  # noqa: BLE001 - any Redis failure is handled the same way
            log.warning(
                "rate limiter unavailable (%s); %s",
                e,
                "allowing the call" if self.fail_open else "refusing the call",
            )
            return RateDecision(
                self.fail_open, 0.0, 0.0 if self.fail_open else 1.0, limit_per_minute
            )
        return RateDecision(bool(int(allowed)), float(tokens), float(retry), limit_per_minute)

    def reset(self, key: str) -> None:
        self.client.delete(self.redis_key(key))

    def delete_user(self, user_id: str) -> int:
        """Every bucket of a user (erasure); returns how many there were."""
        keys = scan_keys(self.client, user_pattern(self.prefix, user_id))
        return int(self.client.delete(*keys)) if keys else 0

    def count_user(self, user_id: str) -> int:
        return len(scan_keys(self.client, user_pattern(self.prefix, user_id)))
