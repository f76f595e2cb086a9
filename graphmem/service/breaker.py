"""A circuit breaker per projection store, shared by the projector and recall.

When Neo4j or the vector server is down, every call that touches it would otherwise wait for a
connection timeout. After a failure the breaker skips that store for a cool-down (doubling up to
a minute), then lets one call probe it again; writes keep landing in the records store and the
outbox meanwhile, and recall reports the store as degraded at once.
"""

from __future__ import annotations

import threading
import time

MIN_COOLDOWN = 2.0
MAX_COOLDOWN = 60.0


class Breaker:
    def __init__(self) -> None:
        self._until: dict[str, float] = {}
        self._cooldown: dict[str, float] = {}
        self._lock = threading.Lock()

    def allow(self, store: str) -> bool:
        with self._lock:
            return time.monotonic() >= self._until.get(store, 0.0)

    def failed(self, store: str) -> None:
        with self._lock:
            cool = min(MAX_COOLDOWN, self._cooldown.get(store, MIN_COOLDOWN / 2) * 2)
            self._cooldown[store] = cool
            self._until[store] = time.monotonic() + cool

    def ok(self, store: str) -> None:
        with self._lock:
            self._until.pop(store, None)
            self._cooldown.pop(store, None)

    def reset(self) -> None:
        """Forget every failure: an operator asked to retry now."""
        with self._lock:
            self._until.clear()
            self._cooldown.clear()
