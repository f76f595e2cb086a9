"""Closing a store while a walk's adjacency is being built in the background: the build must
stop reading the records before they close. It did not, and a one-shot CLI search (the build
starts on the search, the store closes right after) crashed the interpreter in CI: the build
thread read through a SQLite connection the main thread had closed."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from graphmem import MemoryService, Settings
from graphmem.embedding import Embedder
from graphmem.stores.graph.prepared import PreparedGraph
from tests.helpers.waiting import wait_until


def test_close_stops_a_build_in_flight_before_the_records_close(
    tmp_path: Path, embedder: Embedder
) -> None:
    svc = MemoryService(Settings(data_dir=tmp_path / "d"), embedder=embedder)
    for text in (
        "Alice moved to Berlin to work for Siemens.",
        "Alice's sister Carol lives in Munich.",
        "Bob met Alice at the Siemens office in Berlin.",
    ):
        svc.write("alice", text, source="user")
    graph = svc.context.graph
    assert isinstance(graph, PreparedGraph)
    records = graph.records
    real = records.relation_table
    reading = threading.Event()
    reads_after_close: list[str] = []
    closed = threading.Event()

    stopped = threading.Event()

    def slow_table(user_id: str, page: int = 20_000) -> Iterator[tuple[Any, ...]]:
        # a big user's build: many rows, read slowly (the sleep is the slowness, not a wait);
        # a read after close would be a crash
        rows = list(real(user_id, page))
        try:
            for _ in range(200):
                for row in rows:
                    reading.set()
                    if closed.is_set():
                        reads_after_close.append(user_id)
                    time.sleep(0.001)
                    yield row
        finally:
            stopped.set()  # the build dropped the reader (closed it) or read it all

    records.relation_table = slow_table  # type: ignore[method-assign]
    svc.search("alice", "Where does Alice work?", 3, track_access=False)
    assert reading.wait(10), "the search started no build"
    svc.close()
    closed.set()
    # wait for the reader to end, not for a while: a build that ignored the close reads on to
    # the last row (and is caught at its next one), a build that stopped has closed the reader
    wait_until(stopped.is_set, "the build to stop reading the relation rows")
    assert reads_after_close == []
