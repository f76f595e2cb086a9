"""The outbox drains while the service runs, and `graphmem doctor` flags rows left behind.

Real stores throughout: SQLite records, Qdrant Edge vectors, the in-process networkx graph.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.cli.doctor import diagnose
from graphmem.cli.main import main
from graphmem.domain.model import utcnow
from graphmem.embedding import Embedder
from graphmem.stores.graph.networkx import NetworkxGraph
from tests.helpers.waiting import wait_until

NOTES = [
    "Priya Raman leads the Atlas project at Acme in Berlin.",
    "The Atlas project ships its first release in May.",
    "Priya Raman prefers design reviews on Thursday mornings.",
]


def test_writes_that_merge_leave_no_outbox_rows_behind(tmp_path: Path, embedder: Embedder) -> None:
    """A merge re-points the neighbours' edges and queues their graph rows in the same
    transaction; every one of them is projected before the write returns, not at a restart."""
    svc = MemoryService(Settings(data_dir=tmp_path / "d"), embedder=embedder)
    for text in NOTES:
        svc.write("u", text)
        assert svc.records.outbox_count() == 0
    again = svc.write("u", "Priya Raman leads the Atlas project at Acme in Berlin!")
    assert again.id == svc.list("u")[0].id  # merged into the first note
    assert svc.records.outbox_count() == 0
    batch = [{"content": f"Priya Raman discussed the Atlas budget, item {i}."} for i in range(8)]
    svc.write_many("u", batch)
    assert svc.records.outbox_count() == 0
    ids = [m.id for m in svc.list("u")]
    svc.relate("u", ids[0], ids[-1], "causal")
    svc.update("u", ids[1], "The Atlas project ships its first release in June.")
    assert svc.records.outbox_count() == 0
    # and the graph holds exactly the records' edges between live memories
    edges = {
        (r.source_id, r.target_id, r.relation_type)
        for r in svc.records.relations_for("u", ids)
        if r.source_id in ids and r.target_id in ids
    }
    shown = {
        (e.source_id, e.target_id, e.relation_type)
        for e in svc.graph_store.neighbours("u", ids, None, 10_000)
    }
    assert edges <= shown
    svc.close()


def _age_outbox(data_dir: Path, seconds: float) -> None:
    """Make every queued row look `seconds` old, as if the server had been waiting that long."""
    then = (utcnow() - timedelta(seconds=seconds)).replace(tzinfo=None)
    with sqlite3.connect(Settings(data_dir=data_dir).sqlite_path) as db:
        db.execute("UPDATE outbox SET created_at = ?", (then.isoformat(sep=" "),))


def test_doctor_reports_outbox_rows_pending_for_over_a_minute(
    tmp_path: Path, embedder: Embedder, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = Settings(data_dir=tmp_path / "d")
    graph = NetworkxGraph()
    svc = MemoryService(settings, embedder=embedder, graph=graph)
    svc.write("u", NOTES[0])
    graph.close()  # the graph store goes down: the next write's graph row waits in the outbox
    svc.write("u", NOTES[1])
    assert svc.records.outbox_count() == 1
    svc.close()  # the process stops with the row still queued

    fresh = diagnose(settings)  # a row queued moments ago is projection at work, not a fault
    assert fresh["outbox"]["pending"] == 1 and fresh["ok"] is True

    _age_outbox(settings.data_dir, 120)
    report = diagnose(settings)
    assert report["outbox"]["ok"] is False and report["outbox"]["oldest_seconds"] >= 120
    assert report["ok"] is False
    assert main(["doctor", "--data-dir", str(settings.data_dir)]) == 1
    out = capsys.readouterr().out
    assert "outbox" in out and "older than 60 s" in out and "NOT healthy" in out
    assert main(["doctor", "--json", "--data-dir", str(settings.data_dir)]) == 1
    assert json.loads(capsys.readouterr().out)["outbox"]["pending"] == 1

    MemoryService(settings, embedder=embedder).close()  # a restart drains it
    assert diagnose(settings)["ok"] is True


def test_an_idle_server_catches_up_after_a_store_outage(tmp_path: Path, embedder: Embedder) -> None:
    """No call needs to arrive: the server's background drain projects the waiting rows once
    the store is back (before, they waited for the next write, search or a restart)."""
    settings = Settings(data_dir=tmp_path / "d", writes={"outbox_drain_seconds": 0.2})
    graph = NetworkxGraph()
    svc = MemoryService(settings, embedder=embedder, graph=graph)
    svc.start_background()
    try:
        svc.write("u", NOTES[0])
        graph.close()
        svc.write("u", NOTES[1])
        assert svc.records.outbox_count() == 1
        graph.open()  # the store comes back; nobody calls the service
        wait_until(
            lambda: svc.records.outbox_count() == 0, "the background drain to project", 30, 0.1
        )
        assert svc.records.outbox_count() == 0
        assert len(graph.node_ids()) == 2
    finally:
        svc.close()
