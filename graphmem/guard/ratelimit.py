"""Rate limits per user: a token bucket per budget behind a small port with two adapters.

A token bucket (capacity = the per-minute limit, refilled continuously at limit/60 per second)
allows a burst up to the limit and then a steady rate, which suits agents that write several
memories at the end of a turn and then go quiet.

Each user has two budgets, `write` and `search`, and every tool that writes or reads memory
content draws on one of them. The budget belongs to the user, not to the tool: if each tool had
its own bucket, a caller that used up `memory_write` would carry on writing through
`memory_observe` or `memory_update`, and one whose searches were refused would read the same
content through `memory_forget(query, dry_run=True)`; the limit would be the number of tools
times the advertised one. Two budgets rather than one, so a chatty search loop cannot starve
writes. One user cannot exhaust another's budget.

- `InProcessRateLimiter`: a dict and a lock; right for the embedded default and tests.
- `RedisRateLimiter`: the bucket lives in a Redis hash and is updated by one Lua script, so every
  process behind a load balancer draws from the same bucket. The script reads the clock with
  Redis `TIME`, so skewed host clocks cannot mint tokens, and it is atomic, so two processes can
  never both take the last token.

A refused call raises `RateLimitExceeded`, whose message says how long to wait.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from graphmem.errors import GraphmemError

log = logging.getLogger("graphmem.guard.ratelimit")

Budget = Literal["write", "search"]
BUDGETS: tuple[Budget, ...] = ("write", "search")


@dataclass(frozen=True)
class RateDecision:
    allowed: bool
    remaining: float
    retry_after_s: float
    limit_per_minute: float

    @property
    def retry_after_ms(self) -> int:
        return math.ceil(self.retry_after_s * 1000)


class RateLimitExceeded(GraphmemError):
    """A user's budget cannot pay for this call. `retry_after_s` says when it will."""

    def __init__(
        self,
        user_id: str,
        tool: str,
        decision: RateDecision,
        cost: float = 1,
        budget: str = "write",
    ) -> None:
        limit = decision.limit_per_minute
        if cost > limit:
            msg = (
                f"rate_limit: this {tool} call costs {cost:g} from the {budget} budget, which"
                f" holds {limit:g} per minute per user; split it into batches of at most"
                f" {limit:g}"
            )
        else:
            msg = (
                f"rate_limit: the {budget} budget of {limit:g} per minute per user, shared by"
                f" every tool that {'writes' if budget == 'write' else 'reads'} memories, is"
                f" used up ({tool} needs {cost:g}); retry in {decision.retry_after_s:.2f} s"
            )
        super().__init__(msg)
        self.field = "rate_limit"
        self.message = msg
        self.user_id = user_id
        self.tool = tool
        self.budget = budget
        self.cost = cost
        self.retry_after_s = decision.retry_after_s
        self.decision = decision


class RateLimiter(Protocol):
    """The port: take `cost` tokens from the bucket `key` holding at most `limit_per_minute`."""

    def acquire(self, key: str, limit_per_minute: float, cost: float = 1) -> RateDecision: ...

    def reset(self, key: str) -> None: ...


def _refuse_oversized(limit: float, cost: float) -> RateDecision | None:
    if cost > limit:
        return RateDecision(False, 0.0, math.inf, limit)
    return None


class InProcessRateLimiter:
    """Token buckets in a dict; `clock` is injectable so tests need not sleep."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, max_keys: int = 100_000):
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()
        self._max_keys = max_keys

    def acquire(self, key: str, limit_per_minute: float, cost: float = 1) -> RateDecision:
        if limit_per_minute <= 0:
            return RateDecision(True, math.inf, 0.0, limit_per_minute)
        oversized = _refuse_oversized(limit_per_minute, cost)
        if oversized:
            return oversized
        rate = limit_per_minute / 60.0
        with self._lock:
            now = self._clock()
            tokens, ts = self._buckets.get(key, (float(limit_per_minute), now))
            tokens = min(float(limit_per_minute), tokens + max(0.0, now - ts) * rate)
            if tokens >= cost:
                tokens -= cost
                decision = RateDecision(True, tokens, 0.0, limit_per_minute)
            else:
                decision = RateDecision(False, tokens, (cost - tokens) / rate, limit_per_minute)
            self._buckets[key] = (tokens, now)
            if len(self._buckets) > self._max_keys:
                self._evict_full(now, rate)
        return decision

    def _evict_full(self, now: float, rate: float) -> None:
        """Drop buckets idle long enough to have refilled; they carry no information."""
        horizon = 60.0
        for k in [k for k, (_, ts) in self._buckets.items() if now - ts > horizon]:
            del self._buckets[k]

    def reset(self, key: str) -> None:
        with self._lock:
            self._buckets.pop(key, None)


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
        self.prefix = prefix
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
        import redis

        client = redis.Redis.from_url(
            url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s
        )
        return cls(client, prefix, fail_open=fail_open)

    def acquire(self, key: str, limit_per_minute: float, cost: float = 1) -> RateDecision:
        if limit_per_minute <= 0:
            return RateDecision(True, math.inf, 0.0, limit_per_minute)
        oversized = _refuse_oversized(limit_per_minute, cost)
        if oversized:
            return oversized
        try:
            allowed, tokens, retry = self._script(
                keys=[self.prefix + key], args=[limit_per_minute, limit_per_minute / 60.0, cost]
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
        self.client.delete(self.prefix + key)


def bucket_key(user_id: str, budget: str) -> str:
    """One bucket per (user, budget). Budget names never contain ':', so putting the budget
    first keeps the key unambiguous whatever the user id contains."""
    return f"{budget.replace(':', '_')}:{user_id}"


__all__ = [
    "BUDGETS",
    "Budget",
    "InProcessRateLimiter",
    "RateDecision",
    "RateLimitExceeded",
    "RateLimiter",
    "RedisRateLimiter",
    "bucket_key",
]
