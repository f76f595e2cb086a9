"""Erase notices between replicas: one counter in Redis that every erase moves forward.

Erasing a user reaches every shared store from the replica that runs it, but each replica
also keeps things in its own memory: the query embeddings it cached (keyed by user and query
text) and the text-derived caches of the ranking (a memory's gist, stemmed words, entity
names). The replica that erases drops its own; the others learn of the erase from this
counter, which they read every second (`EraseWatcher`, started with a server's background
jobs), and then drop all of theirs.

The notice names nobody: a counter, not a list of users, so nothing about the erased user is
left in Redis to be erased in turn, and a replica that was down when the erase ran still sees
that the counter moved. Dropping every entry instead of one user's costs a replica a few
milliseconds per query it has to embed again; erasures are rare.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from graphmem.stores.redis_client import open_redis

log = logging.getLogger("graphmem.erasure")

NOTICE_KEY = "graphmem:erase-epoch"
WATCH_SECONDS = 1.0
"""How often a replica reads the counter: the longest another replica's caches outlive an erase."""


class EraseNotices:
    """The shared counter, opened on first use (a CLI run that erases nobody never connects)."""

    def __init__(self, url: str, timeout_s: float = 2.0) -> None:
        self._url, self._timeout = url, timeout_s
        self._client: Any = None

    def _redis(self) -> Any:
        if self._client is None:
            self._client = open_redis(self._url, timeout_s=self._timeout, what="erase notices")
        return self._client

    def announce(self) -> int:
        """Move the counter on after an erase; returns its new value."""
        return int(self._redis().incr(NOTICE_KEY))

    def epoch(self) -> int:
        value = self._redis().get(NOTICE_KEY)
        return int(value) if value is not None else 0

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


class EraseWatcher:
    """A tick for graphmem.infra.workers.Periodic: when the counter moved since the last look
    (another replica erased someone), `forget` drops this process's caches. The first look only
    notes where the counter stands: a replica that just started has nothing cached yet."""

    def __init__(self, notices: EraseNotices, forget: Callable[[], int]) -> None:
        self.notices, self.forget = notices, forget
        self.seen: int | None = None
        self.dropped = 0

    def __call__(self) -> bool:
        now = self.notices.epoch()
        moved = self.seen is not None and now != self.seen
        self.seen = now
        if moved:
            self.dropped += self.forget()
            log.info("another replica erased a user: dropped this process's cached queries")
        return moved
