"""`graphmem doctor` against real stores: versions, reachability and projection drift."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.cli.doctor import diagnose
from graphmem.cli.main import main
from graphmem.embedding import Embedder
from tests.helpers.services import service_url


def test_embedded_stores_healthy_then_drift_detected(tmp_path: Path, embedder: Embedder,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    settings = Settings(data_dir=tmp_path / "d")
    svc = MemoryService(settings, embedder=embedder)
    a, _ = svc.write_many("u", [{"content": "alpha note"}, {"content": "beta note"}])
    svc.vectors.delete([a.id])  # a projection loses a point behind the service's back
    svc.close()
    report = diagnose(settings)
    assert report["stores"]["records"]["ok"] and report["stores"]["vectors"]["ok"]
    assert report["drift"]["records"] == 2 and report["drift"]["vectors_missing"] == 1
    assert report["ok"] is False
    assert main(["doctor", "--json", "--data-dir", str(tmp_path / "d")]) == 1
    assert json.loads(capsys.readouterr().out)["drift"]["vectors_missing"] == 1

    svc = MemoryService(settings, embedder=embedder)
    svc.write("u", "gamma note")
    from graphmem.usecases.backfill import rebuild  # the repair the drift report points to

    rebuild(svc.context)
    svc.close()
    assert diagnose(settings)["ok"] is True


def test_vectors_of_another_precision_are_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A store written at fp32 and opened with the int8 default (an upgrade) is reported, and
    `backfill rebuild` repairs it."""
    from graphmem.usecases.backfill import rebuild

    old = Settings(data_dir=tmp_path / "d", embedding={"precision": "fp32"})
    svc = MemoryService(old)
    svc.write_many("u", [{"content": f"note {i}: the release train leaves at {i} pm"}
                         for i in range(5)])
    svc.close()
    assert diagnose(old)["embeddings"] == {"checked": 5, "median_cosine": pytest.approx(1.0),
                                           "ok": True}
    new = Settings(data_dir=tmp_path / "d")
    report = diagnose(new)
    emb = report["embeddings"]
    assert emb["ok"] is False and report["ok"] is False
    assert 0.95 < emb["median_cosine"] < 0.999 and "backfill rebuild" in emb["hint"]
    assert main(["doctor", "--data-dir", str(tmp_path / "d")]) == 1
    assert "backfill rebuild" in capsys.readouterr().out
    svc = MemoryService(new)
    rebuild(svc.context)
    svc.close()
    assert diagnose(new)["ok"] is True


@pytest.mark.services
def test_production_stores_report_versions(tmp_path: Path, mysql_url: str) -> None:
    import os

    settings = Settings(
        data_dir=tmp_path / "d", redis_url=service_url("GRAPHMEM_TEST_REDIS_URL"),
        records={"backend": "mysql", "mysql_url": mysql_url},
        vectors={"backend": "qdrant"}, qdrant={"url": str(tmp_path / "qdrant")},
        graph={"backend": "neo4j"},
        neo4j={
            "url": service_url("GRAPHMEM_TEST_NEO4J_URL"),
            "password": os.environ.get("GRAPHMEM_TEST_NEO4J_PASSWORD"),
        },
    )
    report = diagnose(settings)
    stores = report["stores"]
    assert "MariaDB" in stores["records"]["version"]
    assert stores["cache"]["version"].startswith("7")
    assert stores["graph"]["ok"] and stores["vectors"]["ok"]
    assert report["drift"]["records"] == 0

    neo4j = settings.neo4j.model_copy(update={"url": "bolt://127.0.0.1:1"})
    down = settings.model_copy(update={"neo4j": neo4j})
    report = diagnose(down)
    assert report["stores"]["graph"]["ok"] is False and report["ok"] is False
    assert report["stores"]["records"]["ok"] is True
