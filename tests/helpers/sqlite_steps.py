"""How much a read walks in an SQLite store, counted in virtual-machine steps: unlike its
time, the count does not depend on the machine's load, so a test can say "this read does not
grow with the table" without timing anything."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from graphmem.stores.records.sqlite import SQLiteRecords

T = TypeVar("T")


def vm_steps(store: SQLiteRecords, read: Callable[[], T]) -> tuple[int, T]:
    """The steps (in tens) that `read` takes on this thread's read connection, and its result.
    The connection's first statement also reads the schema: warm it before comparing."""
    steps = [0]

    def count() -> int:
        steps[0] += 1
        return 0

    db = store._read_conn()  # where this thread's reads run
    db.set_progress_handler(count, 10)
    try:
        got = read()
    finally:
        db.set_progress_handler(None, 0)
    return steps[0], got
