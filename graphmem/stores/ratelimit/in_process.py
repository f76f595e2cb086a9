"""Token buckets in this process: for the embedded default and tests."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

from graphmem.stores.ratelimit.port import RateDecision, refuse_oversized


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
        oversized = refuse_oversized(limit_per_minute, cost)
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
                self._evict_full(now)
        return decision

    def _evict_full(self, now: float) -> None:
        """Drop buckets idle long enough to have refilled; they carry no information."""
        horizon = 60.0
        for k in [k for k, (_, ts) in self._buckets.items() if now - ts > horizon]:
            del self._buckets[k]

    def reset(self, key: str) -> None:
        with self._lock:
            self._buckets.pop(key, None)
