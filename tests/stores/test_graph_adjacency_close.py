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

    def slow_table(user_id: str, page: int = 20_000) -> Iterator[tuple[Any, ...]]:
        # a big user's build: many rows, read slowly; a read after close would be a crash
        rows = list(real(user_id, page))
        for _ in range(200):
            for row in rows:
                reading.set()
                if closed.is_set():
                    reads_after_close.append(user_id)
                time.sleep(0.001)
                yield row

    records.relation_table = slow_table  # type: ignore[method-assign]
    svc.search("alice", "Where does Alice work?", 3, track_access=False)
    assert reading.wait(10), "the search started no build"
    svc.close()
    closed.set()
    time.sleep(0.05)  # a build still running would read again within a millisecond
    assert reads_after_close == []
