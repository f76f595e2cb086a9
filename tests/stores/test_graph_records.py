"""The embedded default's graph is read from the records: equal to a projection, instant to open,
and still equal to the records after the process is killed mid-write."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from graphmem import MemoryService, Settings
from graphmem.cli.doctor import diagnose
from graphmem.domain.relation_types import RELATION_TYPES
from graphmem.embedding import Embedder
from graphmem.stores.graph import GraphEdge
from graphmem.stores.graph.networkx import NetworkxGraph
from graphmem.stores.graph.records import RecordsGraph
from graphmem.usecases.backfill import rebuild_graph

LINES = [
    "Alice moved to Berlin in March to work for Siemens.",
    "Alice's sister Carol lives in Munich and works at BMW.",
    "Bob met Alice at the Siemens office in Berlin last week.",
    "Carol is planning a trip to Lisbon with Bob in June.",
    "Alice prefers green tea over coffee in the morning.",
    "Because the Berlin office closed, Alice now works from home.",
    "Bob bought a bike in Munich after visiting Carol.",
    "The Lisbon trip was cancelled because Carol got sick.",
    "Alice started learning Portuguese for the Lisbon trip.",
    "Bob switched from Siemens to BMW in July.",
    "Carol recommended a Munich bakery to Alice.",
    "Alice actually moved to Hamburg, not Berlin.",
]


def _key(e: GraphEdge) -> tuple[object, ...]:
    return (
        e.source_id,
        e.target_id,
        e.relation_type,
        round(e.strength, 9),
        e.valid_from,
        e.valid_to,
    )


@pytest.fixture(
    scope="module",
    params=["sqlite", pytest.param("mysql", marks=pytest.mark.services)],
)
def stored(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, embedder: Embedder
) -> MemoryService:
    data = tmp_path_factory.mktemp("recgraph") / "d"
    records = None
    if request.param == "mysql":
        from graphmem.stores.records.mysql import MySQLRecords

        records = MySQLRecords(request.getfixturevalue("mysql_url_module"))
    svc = MemoryService(Settings(data_dir=data), embedder=embedder, records=records)
    for i in range(0, len(LINES), 3):
        svc.write_many("u", [{"content": c, "session_id": "s1"} for c in LINES[i : i + 3]])
    svc.write_many("other", [{"content": c} for c in LINES[:4]])
    return svc


@pytest.fixture(scope="module")
def projected(stored: MemoryService) -> NetworkxGraph:
    nx_graph = NetworkxGraph()
    rebuild_graph(stored.records, nx_graph)
    return nx_graph


def test_default_graph_reads_the_records(stored: MemoryService) -> None:
    assert isinstance(stored.graph_store, RecordsGraph)
    assert (
        stored.graph_store.edge_count("u") == stored.records.graph_counts("u")["memory_relations"]
    )
    assert stored.graph_store.edge_count("u") > 0
    assert stored.graph_store.node_ids("u") == stored.records.all_ids("u")


@hsettings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_neighbours_equal_a_networkx_projection(
    stored: MemoryService, projected: NetworkxGraph, data: st.DataObject
) -> None:
    """Same edges, same cut, for any frontier, relation-type filter, fan-out and time."""
    nx_graph = projected
    ids = sorted(stored.records.all_ids("u")) + sorted(stored.records.all_ids("other"))[:2]
    frontier = data.draw(st.lists(st.sampled_from(ids), min_size=1, max_size=8))
    types = data.draw(
        st.none() | st.lists(st.sampled_from(sorted(RELATION_TYPES)), max_size=3).map(tuple)
    )
    per_node = data.draw(st.integers(0, 6))
    edges = nx_graph.edge_count("u")
    assert edges > 0
    times = sorted(
        {
            t
            for e in nx_graph.neighbours("u", ids, None, 10_000)
            for t in (e.valid_from, e.valid_to)
            if t
        }
    )
    at = data.draw(st.none() | st.sampled_from(times) | st.floats(0, 2e9))
    for user in ("u", "other"):
        want = sorted(map(_key, nx_graph.neighbours(user, frontier, types, per_node, at)))
        got = sorted(map(_key, stored.graph_store.neighbours(user, frontier, types, per_node, at)))
        assert got == want
    assert stored.graph_store.entity_names("u", ids) == {
        m: v for m, v in nx_graph.entity_names("u", ids).items() if v
    }


def test_open_does_not_walk_the_records(tmp_path: Path, embedder: Embedder) -> None:
    """Opening the default reads no memory page for the graph: start-up cost is flat in the
    store's size (the networkx adapter scanned every memory and relation here)."""
    data = tmp_path / "d"
    first = MemoryService(Settings(data_dir=data), embedder=embedder)
    first.write_many("u", [{"content": c} for c in LINES])
    first.close()
    from graphmem.stores.records.sqlite import SQLiteRecords

    calls: list[str] = []
    scan, page = SQLiteRecords.scan, SQLiteRecords.relations_page
    try:
        SQLiteRecords.scan = lambda self, after, limit, *a, **k: (  # type: ignore[method-assign]
            limit > 1 and calls.append("scan"),  # one row: "is the store empty?"
            scan(self, after, limit, *a, **k),
        )[1]
        SQLiteRecords.relations_page = lambda self, *a, **k: (  # type: ignore[method-assign]
            calls.append("relations_page"),
            page(self, *a, **k),
        )[1]
        again = MemoryService(Settings(data_dir=data), embedder=embedder)
        assert again.search("u", "Where does Alice live?", top_k=3)
        again.close()
    finally:
        SQLiteRecords.scan, SQLiteRecords.relations_page = scan, page  # type: ignore[method-assign]
    assert calls == []


WRITER = textwrap.dedent(
    """
    import json, sys
    from graphmem import MemoryService, Settings
    lines = json.loads(sys.argv[2])
    svc = MemoryService(Settings(data_dir=sys.argv[1]))
    print("READY", flush=True)
    i = 0
    while True:
        batch = [{"content": f"{lines[(i + k) % len(lines)]} (note {i + k})"} for k in range(3)]
        for m in svc.write_many("u", batch):
            print("ACK", m.id, flush=True)
        i += 3
    """
)


def test_graph_matches_the_records_after_kill_9_mid_write(
    tmp_path: Path, embedder: Embedder
) -> None:
    data = tmp_path / "d"
    env = {**os.environ, "GRAPHMEM_LOG_LEVEL": "WARNING"}
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(data), json.dumps(LINES)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    acked: list[str] = []
    deadline = time.monotonic() + 240
    assert proc.stdout is not None
    try:
        while len(acked) < 15 and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            if line.startswith("ACK "):
                acked.append(line.split()[1])
        proc.send_signal(signal.SIGKILL)  # mid-write: the loop never pauses
    finally:
        proc.kill()
        proc.wait(timeout=30)
    assert len(acked) >= 15, "the writer did not get going"

    svc = MemoryService(Settings(data_dir=data), embedder=embedder)
    ids = svc.records.all_ids("u")
    assert set(acked) <= ids  # every acknowledged write survived
    nx_graph = NetworkxGraph()
    rebuild_graph(svc.records, nx_graph)
    every = sorted(ids)
    assert sorted(map(_key, svc.graph_store.neighbours("u", every, None, 10_000))) == sorted(
        map(_key, nx_graph.neighbours("u", every, None, 10_000))
    )
    assert svc.graph_store.edge_count("u") == nx_graph.edge_count("u") > 0
    svc.close()
    report = diagnose(Settings(data_dir=data))
    assert report["drift"]["ok"], report["drift"]
