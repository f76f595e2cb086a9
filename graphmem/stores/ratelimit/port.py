"""The rate-limit port: take tokens from a named bucket, or learn when there will be enough.

A token bucket (capacity = the per-minute limit, refilled continuously at limit/60 per second)
allows a burst up to the limit and then a steady rate. Which buckets exist and what a refusal
tells the caller is the guard's policy (graphmem.guard.ratelimit); here are only the buckets:

- `InProcessRateLimiter` (`in_process`): a dict and a lock; right for the embedded default and
  tests.
- `RedisRateLimiter` (`redis`): the bucket lives in a Redis hash and is updated by one Lua
  script, so every process behind a load balancer draws from the same bucket. The script reads
  the clock with Redis `TIME`, so skewed host clocks cannot mint tokens, and it is atomic, so
  two processes can never both take the last token.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class RateDecision:
    allowed: bool
    remaining: float
    retry_after_s: float
    limit_per_minute: float


class RateLimiter(Protocol):
    """The port: take `cost` tokens from the bucket `key` holding at most `limit_per_minute`."""

    def acquire(self, key: str, limit_per_minute: float, cost: float = 1) -> RateDecision: ...

    def reset(self, key: str) -> None: ...


def refuse_oversized(limit: float, cost: float) -> RateDecision | None:
    """A cost above the bucket's capacity can never be paid: refused with no time to wait for."""
    if cost > limit:
        return RateDecision(False, 0.0, math.inf, limit)
    return None
