"""Fault tests: the real Neo4j and Redis processes are killed mid-run and restarted.

Each test starts its own server process (so the shared test services stay up), kills it with
SIGKILL while memories are being written and searched, checks that recall degrades but stays
correct and that stats() says what is down, restarts it, and proves that no memory was lost and
none was orphaned in any store.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.embedding import Embedder
from graphmem.stores.cache import RedisCache
from graphmem.stores.graph.neo4j import Neo4jGraph
from graphmem.stores.records.mysql import MySQLRecords
from graphmem.stores.vectors.qdrant import QdrantServerVectors
from tests.helpers.waiting import wait_until

pytestmark = pytest.mark.services
ROOT = Path(__file__).resolve().parents[2]
LAUNCHER = ROOT / "scripts" / "neo4j-launcher" / "target"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def wait_port(port: int, timeout: float) -> None:
    wait_until(lambda: listening(port), f"something listening on 127.0.0.1:{port}", timeout, 0.2)


class Server:
    """A server process of our own, killable with SIGKILL and restartable on the same data."""

    def __init__(self, argv: list[str], port: int, log: Path) -> None:
        self.argv, self.port, self.log = argv, port, log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 120) -> None:
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(self.argv, stdout=out, stderr=subprocess.STDOUT)
        wait_port(self.port, timeout)

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()


@pytest.fixture
def neo4j_server(tmp_path: Path) -> Iterator[Server]:
    cp_file = LAUNCHER / "classpath.txt"
    if not cp_file.exists() or shutil.which("java") is None:
        pytest.fail("the Neo4j launcher is not built: run scripts/services.sh start first")
    cp = f"{LAUNCHER / 'classes'}:{cp_file.read_text().strip()}"
    port = free_port()
    server = Server(["java", "-Xmx512m", "-cp", cp, "graphmem.Main", str(tmp_path / "neo4j"),
                     str(port), str(free_port()), "", "persist"], port, tmp_path / "neo4j.log")
    server.start()
    yield server
    server.stop()


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[Server]:
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.fail("redis-server is not installed: run scripts/services.sh start first")
    port = free_port()
    server = Server([binary, "--bind", "127.0.0.1", "--port", str(port), "--save", "",
                     "--appendonly", "no", "--dir", str(tmp_path)], port, tmp_path / "redis.log")
    server.start(30)
    yield server
    server.stop()


def assert_consistent(svc: MemoryService, user: str, expected: set[str]) -> None:
    """Zero lost (every acknowledged write everywhere) and zero orphaned (nothing extra)."""
    assert svc.records.all_ids(user) == expected
    assert svc.vectors.ids(user) == expected
    assert svc.graph_store.node_ids(user) == expected
    assert svc.records.outbox_count() == 0


def test_neo4j_killed_mid_run_loses_and_orphans_nothing(
    neo4j_server: Server, mysql_url: str, tmp_path: Path, embedder: Embedder
) -> None:
    user = f"fault-{uuid.uuid4().hex[:8]}"
    svc = MemoryService(
        # numbered near-identical notes: merging them on write is not what this test is about
        Settings(data_dir=tmp_path / "d", lifecycle={"merge_on_write": False}), embedder=embedder,
        records=MySQLRecords(mysql_url),
        vectors=QdrantServerVectors(":memory:", None, "m", embedder.dim),
        graph=Neo4jGraph(f"bolt://127.0.0.1:{neo4j_server.port}", "neo4j", ""),
    )
    acked = {m.id for m in svc.write_many(user, [
        {"content": f"Project Apollo status note {i}: the budget review moved", "session_id": "s"}
        for i in range(10)])}
    assert svc.search(user, "Apollo budget", 3).degraded == []

    neo4j_server.kill()
    for i in range(10):  # keep writing and searching while the graph store is gone
        acked.add(svc.write(user, f"Hermes rollout step {i} happened after the Apollo review",
                            session_id="s").id)
        res = svc.search(user, f"Hermes rollout step {i}", 3)
        assert "graph" in res.degraded
        assert res.hits and res.hits[0].memory.content.endswith("after the Apollo review")
    stats = svc.stats(user)
    assert stats["stores"]["graph"]["ok"] is False and stats["outbox_pending"] > 0
    assert stats["total"] == 20

    neo4j_server.start()
    svc.drain_outbox()
    assert_consistent(svc, user, acked)
    res = svc.search(user, "Hermes rollout step 3", 3)
    assert res.degraded == [] and svc.stats(user)["stores"]["graph"]["ok"] is True
    svc.forget_user(user)
    svc.close()


def test_redis_killed_mid_run_degrades_the_cache_not_recall(
    redis_server: Server, tmp_path: Path, embedder: Embedder
) -> None:
    user = "redis-fault"
    svc = MemoryService(Settings(data_dir=tmp_path / "d", lifecycle={"merge_on_write": False}),
                        embedder=embedder, cache=RedisCache(f"redis://127.0.0.1:{redis_server.port}/0"))
    acked = {svc.write(user, "My locker is number 42").id}
    svc.search(user, "locker number", 3)
    assert svc.search(user, "locker number", 3).hits and svc.cache_hits == 1

    redis_server.kill()
    for i in range(5):
        acked.add(svc.write(user, f"Reminder {i}: water the plants").id)
        res = svc.search(user, "locker number", 3)
        assert res.hits[0].memory.content == "My locker is number 42"
    assert svc.stats(user)["stores"]["cache"]["ok"] is False

    redis_server.start(30)
    svc.write(user, "My bike lock code changed")  # invalidation works again
    acked |= {m.id for m in svc.list(user)}
    assert svc.stats(user)["stores"]["cache"]["ok"] is True
    hits = svc.search(user, "bike lock", 3).hits
    assert hits[0].memory.content == "My bike lock code changed"
    assert svc.records.all_ids(user) == svc.vectors.ids(user) == acked
    assert os.environ.get("GRAPHMEM_TEST_REDIS_URL")  # the shared Redis was never touched
    svc.close()
