"""Worker thread pools shared by every service of the process, one per kind of work.

Writes embed a batch in the "embed" pool while the calling thread extracts entities; searches
run the keyword channel in the "channel" pool beside the vector channel. ONNX Runtime, SQLite
and Qdrant Edge release the GIL, so on two cores the work overlaps. Each pool is created on
first use; beyond its size, tasks queue.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

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
