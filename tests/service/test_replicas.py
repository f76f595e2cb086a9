"""Server replicas on one MariaDB: what one replica does, the others see and respect.

Each "replica" here is a MemoryService with its own MySQL connection, its own lock session, its
own process write lock and search cache, on the same database and the same vector index: what
separate `graphmem serve` processes share. The lock tests also use a real second process, which
is killed -9 while it holds a lock.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.domain.model import Memory, Status, utcnow
from graphmem.embedding import Embedder
from graphmem.errors import BusyError
from graphmem.stores.records.locks import user_lock
from graphmem.stores.records.mysql import MySQLRecords
from graphmem.stores.vectors.qdrant import QdrantServerVectors
from graphmem.usecases.compact import COMPACTOR_LOCK, PeriodicCompactor, compact
from tests.helpers.waiting import wait_until

pytestmark = pytest.mark.services


@pytest.fixture
def two(mysql_url: str) -> Iterator[tuple[MySQLRecords, MySQLRecords]]:
    a, b = MySQLRecords(mysql_url), MySQLRecords(mysql_url)
    yield a, b
    a.close()
    b.close()


def in_thread(fn: Callable[[], object]) -> threading.Thread:
    t = threading.Thread(target=fn, daemon=True)
    t.start()
    return t


def test_a_user_lock_is_seen_by_every_replica(two: tuple[MySQLRecords, MySQLRecords]) -> None:
    a, b = two
    taken, release = threading.Event(), threading.Event()

    def holder() -> None:
        with a.locks.hold(user_lock("alice"), 5), a.locks.hold(user_lock("alice"), 5):
            taken.set()  # held twice by one thread: counted, released once at the end
            release.wait(10)

    t = in_thread(holder)
    assert taken.wait(10)
    start = time.monotonic()
    with (
        pytest.raises(BusyError, match="another write for this user"),
        b.locks.hold(user_lock("alice"), 0.3),
    ):
        pass
    assert 0.25 <= time.monotonic() - start < 3
    with b.locks.hold(user_lock("bob"), 0.3):  # another user is not blocked
        pass
    release.set()
    t.join(10)
    with b.locks.hold(user_lock("alice"), 2):
        pass


def test_a_killed_replica_releases_its_locks(
    two: tuple[MySQLRecords, MySQLRecords], mysql_url: str, tmp_path: Path
) -> None:
    _, b = two
    script = textwrap.dedent(
        f"""
        import sys, time
        from graphmem.stores.records.mysql import MySQLRecords
        r = MySQLRecords({mysql_url!r})
        with r.locks.hold("user:alice", 5):
            print("held", flush=True)
            time.sleep(120)  # held until the test kills it; 120 s only bounds a stray
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        with pytest.raises(BusyError), b.locks.hold(user_lock("alice"), 0.2):
            pass
        proc.kill()  # kill -9: no release, the server drops the session's locks
        proc.wait(10)
        with b.locks.hold(user_lock("alice"), 10):
            pass
    finally:
        if proc.poll() is None:
            proc.kill()


def queue_rows(records: MySQLRecords, n: int) -> None:
    with records._tx() as cur:
        records._outbox_rows(cur, [("u", f"m{i}", "upsert") for i in range(n)])


def test_replicas_draining_at_once_claim_disjoint_rows(
    two: tuple[MySQLRecords, MySQLRecords], mysql_url: str
) -> None:
    a, b = two
    c = MySQLRecords(mysql_url)
    queue_rows(a, 300)
    claimed: list[list[int]] = []

    def drain(r: MySQLRecords) -> list[int]:
        mine: list[int] = []
        while items := r.outbox_claim(7, utcnow(), 60):
            mine.extend(it.id for it in items)
            time.sleep(0.01)  # projecting them
        return mine

    claimed = at_once(*(lambda r=r: drain(r) for r in (a, b, c)))
    c.close()
    every = [i for ids in claimed for i in ids]  # type: ignore[attr-defined]
    assert len(every) == len(set(every)) == 300  # none twice, none missed
    assert sum(1 for ids in claimed if ids) >= 2, "the replicas shared the work"


def test_rows_of_a_replica_that_died_mid_drain_come_back_after_the_lease(
    two: tuple[MySQLRecords, MySQLRecords],
) -> None:
    a, b = two
    queue_rows(a, 5)
    assert len(a.outbox_claim(10, utcnow(), 1.0)) == 5  # then "a" dies without applying them
    assert b.outbox_claim(10, utcnow(), 60) == []
    back = wait_until(lambda: b.outbox_claim(10, utcnow(), 60), "the rows after the lease", 30)
    assert len(back) == 5


# ---------------------------------------------------------------- replicas of the service
@pytest.fixture
def replicas(mysql_url: str, embedder: Embedder, tmp_path: Path) -> Iterator[list[MemoryService]]:
    """Two services on one database and one vector index (graph read from the records)."""
    vectors = QdrantServerVectors(":memory:", None, "replicas", embedder.dim)
    out = [
        MemoryService(
            Settings(data_dir=tmp_path / f"r{i}", writes={"write_lock_timeout_seconds": 60}),
            embedder=embedder,
            records=MySQLRecords(mysql_url),
            vectors=vectors,
        )
        for i in range(2)
    ]
    yield out
    for s in out:
        s.close()


def at_once(*calls: Callable[[], object]) -> list[object]:
    """Start the calls together (a barrier), as two replicas taking two requests at once."""
    gate = threading.Barrier(len(calls))

    def run(call: Callable[[], object]) -> object:
        gate.wait()
        return call()

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(run, calls))


def current_home(svc: MemoryService, user: str) -> list[Memory]:
    return [
        m
        for m in svc.list(user, limit=100)
        if m.slot == "self|home_city" and m.status == Status.ACTIVE and m.valid_to is None
    ]


def test_two_replicas_never_supersede_one_fact_twice(replicas: list[MemoryService]) -> None:
    a, b = replicas
    for n in range(6):
        user = f"mover{n}"
        first = a.write(user, "I live in Paris")
        at_once(
            lambda u=user: a.write(u, "I moved to Berlin"),
            lambda u=user: b.write(u, "I moved to Rome"),
        )
        ended = [
            r
            for r in a.records.relations_for(user, [first.id])
            if r.relation_type == "superseded_by" and r.source_id == first.id
        ]
        assert len(ended) == 1, f"round {n}: Paris was ended {len(ended)} times"
        now = current_home(b, user)
        assert len(now) == 1, f"round {n}: {len(now)} current home cities"


def test_two_replicas_updating_one_memory_lose_neither_change(
    replicas: list[MemoryService],
) -> None:
    a, b = replicas
    for n in range(6):
        m = a.write("editor", f"Project note {n}: the budget review is on Friday")
        at_once(
            lambda i=m.id: a.update("editor", i, metadata={"owner": "ana"}),
            lambda i=m.id, n=n: b.update(
                "editor", i, f"Project note {n}: the budget review moved to Monday"
            ),
        )
        got = b.get("editor", m.id)
        assert got.metadata.get("owner") == "ana", f"round {n}: the metadata change was lost"
        assert "Monday" in got.content, f"round {n}: the content change was lost"


def test_one_compaction_at_a_time_across_replicas(replicas: list[MemoryService]) -> None:
    a, b = replicas
    a.write("u", "I like green tea")
    taken, release = threading.Event(), threading.Event()

    def holder() -> None:
        with a.records.locks.hold(COMPACTOR_LOCK, 5):
            taken.set()
            release.wait(10)

    t = in_thread(holder)
    assert taken.wait(10)
    with pytest.raises(BusyError, match="running the compactor"):
        compact(b.context)
    periodic = PeriodicCompactor(b.context, 3600)
    periodic._compact()  # its turn is skipped, not failed
    assert periodic.last is None
    release.set()
    t.join(10)
    assert compact(b.context).scanned >= 1


def test_a_write_waiting_too_long_for_another_replica_fails_cleanly(
    replicas: list[MemoryService], mysql_url: str
) -> None:
    a, b = replicas
    b.context.settings.writes.write_lock_timeout_seconds = 0.3
    taken, release = threading.Event(), threading.Event()

    def holder() -> None:
        with a.context.writing("slowpoke"):
            taken.set()
            release.wait(10)

    t = in_thread(holder)
    assert taken.wait(10)
    with pytest.raises(BusyError, match="nothing was written"):
        b.write("slowpoke", "I live in Lisbon")
    release.set()
    t.join(10)
    assert b.list("slowpoke", limit=10) == []


def test_replicas_starting_together_on_a_new_database_all_open_it(mysql_url: str) -> None:
    """The schema and its migrations are applied by one replica at a time."""
    opened = at_once(*(lambda: MySQLRecords(mysql_url) for _ in range(4)))
    for r in opened:
        assert r.count() == 0  # type: ignore[attr-defined]
        r.close()  # type: ignore[attr-defined]


@pytest.fixture
def shared_cache_replicas(
    mysql_url: str, embedder: Embedder, tmp_path: Path
) -> Iterator[list[MemoryService]]:
    """Two services on one database, one vector index, one Redis (cache and rate limits)."""
    from graphmem.guard.settings import GuardSettings
    from graphmem.stores.cache import RedisCache
    from tests.helpers.services import service_url

    redis_url = service_url("GRAPHMEM_TEST_REDIS_URL")
    prefix = f"graphmem-test:{uuid.uuid4().hex[:8]}:"
    vectors = QdrantServerVectors(":memory:", None, "replicas", embedder.dim)
    out = [
        MemoryService(
            Settings(
                data_dir=tmp_path / f"r{i}",
                redis_url=redis_url,
                guard=GuardSettings(rate_limit_backend="redis", rate_limit_prefix=f"{prefix}rl:"),
            ),
            embedder=embedder,
            records=MySQLRecords(mysql_url),
            vectors=vectors,
            cache=RedisCache(redis_url, 60, prefix=f"{prefix}sc:"),
        )
        for i in range(2)
    ]
    yield out
    for s in out:
        s.close()


def test_a_search_between_anothers_commit_and_projection_is_never_served(
    shared_cache_replicas: list[MemoryService],
) -> None:
    """Replica A searches after B committed a write but before B projected it (so A's result
    lacks the new memory's vector); B's next search must not be served A's result."""
    a, b = shared_cache_replicas
    b.write("reader", "I keep my bicycle in the garden shed")
    query = "where are my travel documents"  # no word in common: only the vectors find it
    assert all("passport" not in h.memory.content for h in b.search("reader", query, 5).hits)
    real_project = b.context.project

    def project_after_a_searched(memories: list[Memory], vecs: object) -> None:
        a.search("reader", query, 5)  # A caches what it sees now, between commit and projection
        real_project(memories, vecs)  # type: ignore[arg-type]

    b.context.project = project_after_a_searched  # type: ignore[method-assign]
    passport = b.write("reader", "My passport is in the top drawer of the desk")
    b.context.project = real_project  # type: ignore[method-assign]
    hits = b.search("reader", query, 5).hits
    assert passport.id in [h.memory.id for h in hits], "a result cached before the write was served"


def test_erasing_a_user_empties_their_shared_cache_and_rate_limit_keys(
    shared_cache_replicas: list[MemoryService],
) -> None:
    a, b = shared_cache_replicas
    a.write("leaving", "I take the 8:15 train to work")
    b.search("leaving", "which train do I take", 5)
    assert b.context.cache.count("leaving") >= 1
    a.context.guard.check_rate("leaving", "memory_write")  # what the MCP tools charge
    b.context.guard.check_rate("leaving", "memory_search", kind="search")
    limiter = a.context.guard.limiter
    assert limiter is not None and limiter.count_user("leaving") >= 1  # type: ignore[attr-defined]
    receipt = a.forget_user("leaving")
    assert limiter.count_user("leaving") == 0  # type: ignore[attr-defined]
    assert b.context.cache.count("leaving") == 0
    assert receipt.to_dict()["residue"].get("rate_limits", 0) == 0


def test_a_drain_that_finds_a_user_busy_hands_their_rows_back_at_once(
    replicas: list[MemoryService],
) -> None:
    a, b = replicas
    with b.records._tx() as cur:  # type: ignore[attr-defined]
        b.records._outbox_rows(cur, [("busy", f"m{i}", "upsert") for i in range(3)])  # type: ignore[attr-defined]
    taken, release = threading.Event(), threading.Event()

    def holder() -> None:
        with a.context.writing("busy"):
            taken.set()
            release.wait(10)

    t = in_thread(holder)
    assert taken.wait(10)
    assert b.context.projector.drain(wait=False) == (0, 0)  # the user's write is on elsewhere
    back = b.records.outbox_claim(10, utcnow(), 60)  # due now, not after a 60 s lease
    release.set()
    t.join(10)
    assert sorted(it.memory_id for it in back) == ["m0", "m1", "m2"]
