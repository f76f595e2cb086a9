"""Worker thread pools shared by every service of the process, one per kind of work.

Writes embed a batch in the "embed" pool while the calling thread extracts entities; searches
run the keyword channel in the "channel" pool beside the vector channel. ONNX Runtime, SQLite
and Qdrant Edge release the GIL, so on two cores the work overlaps. Each pool is created on
first use; beyond its size, tasks queue.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Self

log = logging.getLogger("graphmem.workers")

_POOLS: dict[str, ThreadPoolExecutor] = {}
_LOCK = threading.Lock()


def pool(kind: str, workers: int = 4) -> ThreadPoolExecutor:
    """The process's pool for `kind` (its threads are named graphmem-KIND)."""
    with _LOCK:
        if kind not in _POOLS:
            _POOLS[kind] = ThreadPoolExecutor(
                max_workers=workers, thread_name_prefix=f"graphmem-{kind}"
            )
        return _POOLS[kind]


class Periodic:
    """Calls `tick` every `interval` seconds in a daemon thread until stopped.

    For the server's background jobs (compaction, the outbox drain): a tick that fails is logged
    and tried again at the next interval, because a background job must never take the server
    down with it.
    """

    def __init__(self, name: str, interval: float, tick: Callable[[], object]) -> None:
        self.interval = interval
        self.tick = tick
        self.runs = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=f"graphmem-{name}", daemon=True)

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout=30)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.tick()
                self.runs += 1
            except Exception as e:  # noqa: BLE001 - retried at the next interval
                log.warning("%s failed: %s", self._thread.name, e)
