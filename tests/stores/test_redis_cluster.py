"""graphmem's Redis adapters on a real 3-master Redis Cluster (scripts/redis-cluster.sh): the
search cache, rate limits and working memory; every key of a user in one slot; erasure finding a
user's keys whichever master holds them; and the stale-set race that versioned cache entries
close (with a check that the same race test catches the old delete-based scheme)."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import graphmem.usecases.search as search_usecase
from graphmem import Settings
from graphmem.embedding import Embedder
from graphmem.errors import StoreUnavailableError
from graphmem.guard import Guard, GuardSettings, RateLimitExceeded
from graphmem.guard.ratelimit import bucket_key
from graphmem.stores.cache import RedisCache
from graphmem.stores.ratelimit import RedisRateLimiter
from graphmem.stores.redis_client import is_cluster, is_cluster_url, open_redis, user_key
from graphmem.stores.working import RedisWorkingMemory, WorkingMemory
from tests.helpers.cache import services_sharing_stores
from tests.helpers.services import service_url
from tests.helpers.waiting import wait_until

CLUSTER_URL = os.environ.get("GRAPHMEM_TEST_REDIS_CLUSTER_URL", "")

pytestmark = pytest.mark.services


@pytest.fixture(autouse=True)
def _cluster_is_up() -> None:
    """scripts/services.sh starts the cluster with the other services: fail, never skip."""
    service_url("GRAPHMEM_TEST_REDIS_CLUSTER_URL")


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    client = open_redis(CLUSTER_URL, timeout_s=5, what="the Redis Cluster tests")
    yield client
    client.close()


@pytest.fixture(scope="module")
def masters(cluster: Any) -> Iterator[dict[str, Any]]:
    """A plain client per master, to look at each master's keys directly."""
    import redis

    nodes = {n.name: redis.Redis(host=n.host, port=n.port) for n in cluster.get_primaries()}
    assert len(nodes) == 3, "the tests expect the 3-master cluster of scripts/redis-cluster.sh"
    yield nodes
    for n in nodes.values():
        n.close()


@pytest.fixture
def prefix(masters: dict[str, Any]) -> Iterator[str]:
    """A key prefix of this test's own; whatever it left behind is deleted from every master."""
    p = f"graphmem-test:{uuid.uuid4().hex[:12]}:"
    yield p
    for node in masters.values():
        for key in list(node.scan_iter(match=p + "*", count=500)):
            node.delete(key)


def keys_by_master(masters: dict[str, Any], pattern: str) -> dict[str, set[str]]:
    return {
        name: {k.decode() for k in node.scan_iter(match=pattern, count=500)}
        for name, node in masters.items()
    }


def users_on_every_master(cluster: Any, prefix: str, n_per_master: int = 1) -> list[str]:
    """User ids (awkward ones: ':', braces, non-ASCII) whose keys land on each master."""
    want = {n.name: n_per_master for n in cluster.get_primaries()}
    users: list[str] = []
    for i in range(1000):
        user = f"user:{{{i}}}:é"
        node = cluster.get_node_from_key(user_key(prefix, user, "v")).name
        if want[node]:
            want[node] -= 1
            users.append(user)
        if not any(want.values()):
            return users
    raise AssertionError(f"no users found for some masters: {want}")


# ------------------------------------------------------------------ the URL and health


def test_a_cluster_url_opens_a_cluster_client_whose_health_covers_every_master() -> None:
    assert is_cluster_url(CLUSTER_URL) and not is_cluster_url("redis://127.0.0.1:6379/0")
    cache = RedisCache(CLUSTER_URL, 60, prefix="graphmem-test:health:")
    try:
        assert is_cluster(cache._redis)
        health = cache.health()
        assert health["ok"] is True and health["cluster"] == {"state": "ok", "masters": 3}
    finally:
        cache.close()
    with pytest.raises(ValueError, match="only database 0"):
        open_redis(CLUSTER_URL.rsplit("/", 1)[0] + "/2", timeout_s=1, what="test")
    with pytest.raises(ValueError, match="may not contain"):
        RedisCache(CLUSTER_URL, 60, prefix="graphmem-{x}:")


def test_health_reports_a_cluster_that_lost_a_master(masters: dict[str, Any]) -> None:
    """A cluster answering on its seed node is not healthy while one of its slots is served by
    no one; simulated by a client whose view of one master points at a closed port."""
    cache = RedisCache(CLUSTER_URL, 60, prefix="graphmem-test:health:")
    try:
        node = cache._redis.get_primaries()[-1]
        node.redis_connection.connection_pool.connection_kwargs["port"] = 1
        node.redis_connection.connection_pool.disconnect()
        assert cache.health()["ok"] is False
    finally:
        cache.close()


# ------------------------------------------------------------------ the search cache


def test_cache_get_set_invalidate_count_purge_for_users_on_every_master(
    cluster: Any, masters: dict[str, Any], prefix: str
) -> None:
    cache = RedisCache(CLUSTER_URL, 60, prefix=prefix)
    users = users_on_every_master(cluster, prefix, 2)
    for n, user in enumerate(users):
        for k in range(n + 1):
            entry = [[f"m{n}-{k}", 0.5, {"vector": 0.5}, []]]
            assert cache.set(user, f"q{k}", entry, cache.get(user, f"q{k}").version)
    assert {len(v) for v in keys_by_master(masters, prefix + "*").values()} == {4}  # 2 users x 2
    for n, user in enumerate(users):
        assert cache.count(user) == n + 1
        assert cache.get(user, "q0").value == [[f"m{n}-0", 0.5, {"vector": 0.5}, []]]
    assert cache.invalidate(users[0]) == 1 and cache.get(users[0], "q0").value is None
    assert cache.get(users[1], "q0").value is not None  # another user's entries stay
    assert cache.purge(users[-1]) == len(users) and cache.count(users[-1]) == 0
    cache.close()


# ------------------------------------------------------------------ rate limits


def test_rate_limit_buckets_are_shared_and_per_user(cluster: Any, prefix: str) -> None:
    a = RedisRateLimiter.from_url(CLUSTER_URL, prefix)  # two limiters: two server processes
    b = RedisRateLimiter.from_url(CLUSTER_URL, prefix)
    for user in users_on_every_master(cluster, prefix):
        key = bucket_key(user, "write")
        assert [(a if i % 2 else b).acquire(key, 6).allowed for i in range(7)] == [True] * 6 + [
            False
        ]
        denied = a.acquire(key, 6)
        assert not denied.allowed and 0 < denied.retry_after_s <= 10
        assert a.acquire(bucket_key(user, "search"), 6).allowed  # another budget's bucket
        assert a.count_user(user) == 2
        a.reset(key)
        assert b.acquire(key, 6).allowed


def test_guards_on_two_processes_share_a_users_limit(prefix: str) -> None:
    s = GuardSettings(
        rate_limit_backend="redis",
        rate_limit_prefix=prefix,
        rate_limits={"write": 2},
        _env_file=None,
    )
    a, b = Guard(s, redis_url=CLUSTER_URL), Guard(s, redis_url=CLUSTER_URL)
    a.before_write("u{1}", "one")
    b.before_write("u{1}", "two")
    with pytest.raises(RateLimitExceeded, match="retry in"):
        a.before_write("u{1}", "three")
    b.before_write("u{2}", "someone else")


# ------------------------------------------------------------------ working memory


def test_working_memory_patches_compose_and_sessions_are_found_per_user(
    cluster: Any, prefix: str
) -> None:
    store = RedisWorkingMemory(CLUSTER_URL, ttl_seconds=120, prefix=prefix)
    users = users_on_every_master(cluster, prefix)
    for user in users:

        def add(i: int, user: str = user) -> None:
            def change(wm: WorkingMemory | None) -> WorkingMemory:
                wm = wm or WorkingMemory("s:1")
                wm.slots["numbers"][f"k{i}"] = i
                return wm

            store.update(user, "s:1", change)

        threads = [threading.Thread(target=add, args=(i,)) for i in range(10)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        got = store.get(user, "s:1")
        assert got is not None and got.slots["numbers"] == {f"k{i}": i for i in range(10)}
        assert 0 < cluster.pttl(store.key(user, "s:1")) <= 120_000
        store.update(user, "s:2", lambda wm: wm or WorkingMemory("s:2"))
        assert store.count_user(user) == 2
    assert store.delete(users[0], "s:2") and store.count_user(users[0]) == 1
    assert store.health()["ok"] is True
    store.close()


# ------------------------------------------------------------------ slots and erasure


def _fill(user: str, cache: RedisCache, rl: RedisRateLimiter, wm: RedisWorkingMemory) -> None:
    for k in ("q1", "q2"):
        cache.set(user, k, [["m", 1.0, {}, []]], cache.get(user, k).version)
    rl.acquire(bucket_key(user, "write"), 60)
    rl.acquire(bucket_key(user, "search"), 60)
    for s in ("s1", "s:2"):
        wm.update(user, s, lambda w: w or WorkingMemory("session"))


def test_every_key_of_one_user_is_in_one_slot(cluster: Any, prefix: str) -> None:
    cache = RedisCache(CLUSTER_URL, 60, prefix=prefix + "sc:")
    rl = RedisRateLimiter.from_url(CLUSTER_URL, prefix + "rl:")
    wm = RedisWorkingMemory(CLUSTER_URL, prefix=prefix + "wm:")
    users = ["a{b}c", "}{", "alice", "alice:x"]  # braces must not end the tag early
    for user in users:
        _fill(user, cache, rl, wm)
    slots = {}
    for user in users:
        keys = [
            *cache.keys(user),
            *(rl.redis_key(bucket_key(user, b)) for b in ("write", "search")),
            *(wm.key(user, s) for s in ("s1", "s:2")),
        ]
        assert all(cluster.exists(k) for k in keys), keys
        node = cluster.get_node_from_key(keys[0])
        found = {int(node.redis_connection.execute_command("CLUSTER KEYSLOT", k)) for k in keys}
        assert len(found) == 1, (user, keys, found)
        slots[user] = found.pop()
        # one script over all of them is allowed: a cluster refuses keys of several slots
        assert cluster.eval("return #KEYS", len(keys), *keys) == len(keys)
    assert len(set(slots.values())) > 1  # users are spread, not all in one slot
    with pytest.raises(Exception, match="same key slot|CROSSSLOT"):
        cluster.eval("return #KEYS", 2, cache.keys("a{b}c")[0], cache.keys("alice")[0])


def test_erasing_users_finds_their_keys_on_every_master(
    cluster: Any, masters: dict[str, Any], prefix: str
) -> None:
    cache = RedisCache(CLUSTER_URL, 60, prefix=prefix + "sc:")
    rl = RedisRateLimiter.from_url(CLUSTER_URL, prefix + "rl:")
    wm = RedisWorkingMemory(CLUSTER_URL, prefix=prefix + "wm:")
    users = users_on_every_master(cluster, prefix + "sc:")
    for user in [*users, "bystander"]:
        _fill(user, cache, rl, wm)
    before = keys_by_master(masters, prefix + "*")
    assert all(before.values()) and sum(map(len, before.values())) == 6 * (len(users) + 1)
    for user in users:
        assert (cache.count(user), rl.count_user(user), wm.count_user(user)) == (2, 2, 2)
        assert (cache.purge(user), rl.delete_user(user), wm.delete_user(user)) == (2, 2, 2)
        assert (cache.count(user), rl.count_user(user), wm.count_user(user)) == (0, 0, 0)
    left = set().union(*keys_by_master(masters, prefix + "*").values())
    assert left == {k for k in set().union(*before.values()) if "bystander" in k}
    assert len(left) == 6


# ------------------------------------------------------------------ the stale-set race


class _DeleteBasedCache:
    """The scheme graphmem used before versioned entries (one hash per user, dropped on
    invalidation), kept here only to show that the race test below catches it."""

    def __init__(self, client: Any, prefix: str) -> None:
        self.r, self.prefix = client, prefix

    def _key(self, user_id: str) -> str:
        return user_key(self.prefix, user_id, "old")

    def get(self, user_id: str, key: str) -> Any | None:
        raw = self.r.hget(self._key(user_id), key)
        return json.loads(raw) if raw is not None else None

    def set(self, user_id: str, key: str, value: Any) -> None:
        self.r.hset(self._key(user_id), key, json.dumps(value))

    def invalidate(self, user_id: str) -> None:
        self.r.delete(self._key(user_id))


# (replica A's lookup before computing, A storing its result, B's invalidation, a fresh read)
Steps = tuple[Callable[[], Any], Callable[[Any, Any], Any], Callable[[], Any], Callable[[], Any]]


def versioned(cache: RedisCache, user: str) -> Steps:
    return (
        lambda: cache.get(user, "q"),
        lambda looked_up, value: cache.set(user, "q", value, looked_up.version),
        lambda: cache.invalidate(user),
        lambda: cache.get(user, "q").value,
    )


def delete_based(cache: _DeleteBasedCache, user: str) -> Steps:
    return (
        lambda: cache.get(user, "q"),
        lambda _, value: cache.set(user, "q", value),
        lambda: cache.invalidate(user),
        lambda: cache.get(user, "q"),
    )


def stale_values_served(steps: Steps) -> list[str]:
    """Replica A looks up (a miss) and computes from the data as it was; replica B writes and
    invalidates; A stores its result. Returns what a search after B's write is then served, if
    it is A's stale value."""
    lookup, store, invalidate, read = steps
    looked_up = lookup()
    invalidate()  # B: the write A's result does not include
    store(looked_up, "computed before the write")
    return [v for v in (read(), read()) if v == "computed before the write"]


def test_a_result_computed_before_another_replicas_write_is_never_served(
    cluster: Any, prefix: str
) -> None:
    a = RedisCache(CLUSTER_URL, 60, prefix=prefix)  # replica A's and B's own clients
    b = RedisCache(CLUSTER_URL, 60, prefix=prefix)
    for user in users_on_every_master(cluster, prefix):
        lookup, store, _, _ = versioned(a, user)
        _, _, invalidate, read = versioned(b, user)
        assert stale_values_served((lookup, store, invalidate, read)) == []
        assert a.count(user) == 0


def test_the_race_test_catches_delete_based_invalidation(cluster: Any, prefix: str) -> None:
    """Without this, the test above could pass because it never set up the race."""
    a, b = _DeleteBasedCache(cluster, prefix), _DeleteBasedCache(cluster, prefix)
    for user in users_on_every_master(cluster, prefix):
        lookup, store, _, _ = delete_based(a, user)
        _, _, invalidate, read = delete_based(b, user)
        assert (
            stale_values_served((lookup, store, invalidate, read))
            == ["computed before the write"] * 2
        )


def test_concurrent_searches_and_writes_never_serve_a_result_older_than_the_last_write(
    cluster: Any, prefix: str
) -> None:
    """Replica A searches in a loop (version, then data, then store); replica B writes in a loop
    (data, then invalidate) and after each write reads: never a result older than its write."""
    a = RedisCache(CLUSTER_URL, 60, prefix=prefix)
    b = RedisCache(CLUSTER_URL, 60, prefix=prefix)
    data = [0]
    stop = threading.Event()
    stale: list[tuple[int, int]] = []

    def replica_a() -> None:
        while not stop.is_set():
            looked_up = a.get("racer", "q")
            a.set("racer", "q", data[0], looked_up.version)

    def replica_b() -> None:
        for _ in range(300):
            data[0] += 1
            written = data[0]
            b.invalidate("racer")
            got = b.get("racer", "q").value
            if got is not None and got < written:
                stale.append((got, written))
        stop.set()

    threads = [threading.Thread(target=replica_a), threading.Thread(target=replica_b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not stale


def test_two_services_on_the_cluster_share_the_cache_without_the_race(
    tmp_path: Path, embedder: Embedder, prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings(data_dir=tmp_path / "d")
    a, b = services_sharing_stores(
        settings, embedder, RedisCache(CLUSTER_URL, 60, prefix), RedisCache(CLUSTER_URL, 60, prefix)
    )
    try:
        a.write("u{1}", "I live in Austin")
        a.search("u{1}", "where do I live?", 5)
        assert b.search("u{1}", "where do I live?", 5).hits and b.cache_hits == 1
        real_retrieve = search_usecase.retrieve
        written: list[str] = []

        def slow_retrieve(ctx, user_id, req):  # noqa: ANN001, ANN202 - the wrapped function's
            result = real_retrieve(ctx, user_id, req)
            if not written:  # B writes after A computed, before A stores
                written.append(b.write("u{1}", "I moved to Denver last week").id)
            return result

        a.write("u{1}", "My bike is blue")  # drops the cached result: A recomputes
        monkeypatch.setattr(search_usecase, "retrieve", slow_retrieve)
        a.search("u{1}", "where do I live?", 5)
        monkeypatch.setattr(search_usecase, "retrieve", real_retrieve)
        assert written[0] in [h.memory.id for h in b.search("u{1}", "where do I live?", 5).hits]
    finally:
        a.close()


# ------------------------------------------------------------------ a master lost


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _free_ports(n: int) -> list[int]:
    """Ports free with their cluster bus ports (+10000), away from the shared cluster's."""
    for base in range(random.randrange(38000, 45000, 10), 48000, 10):
        ports = list(range(base, base + n))
        if all(_free(p) and _free(p + 10000) for p in ports):
            return ports
    raise AssertionError("no free ports for a throwaway cluster")


@pytest.fixture
def own_cluster(tmp_path: Path) -> Iterator[tuple[str, Path, list[int]]]:
    """A throwaway cluster from scripts/redis-cluster.sh, one of whose masters a test may kill
    without disturbing the shared one."""
    ports = _free_ports(3)
    env = {
        **os.environ,
        "GRAPHMEM_SERVICES_DIR": str(tmp_path),
        "GRAPHMEM_REDIS_CLUSTER_PORTS": " ".join(map(str, ports)),
    }
    script = Path(__file__).resolve().parents[2] / "scripts" / "redis-cluster.sh"
    subprocess.run([script, "start"], env=env, check=True, capture_output=True, timeout=120)
    try:
        url = (tmp_path / "redis-cluster" / "env").read_text().strip().split("=", 1)[1]
        yield url, tmp_path / "redis-cluster", ports
    finally:
        subprocess.run([script, "stop"], env=env, check=True, capture_output=True, timeout=120)


def test_a_lost_master_makes_the_stores_unavailable_not_broken(
    own_cluster: tuple[str, Path, list[int]],
) -> None:
    """Keys on the dead master fail at once; once the survivors declare the cluster down (every
    slot must be served) keys on them fail too, with Redis Cluster's own error. Both must reach
    callers as the store being unavailable, and health must say so."""
    url, state, ports = own_cluster
    wm = RedisWorkingMemory(url, prefix="graphmem-test:")
    cache = RedisCache(url, 60, prefix="graphmem-test:")
    by_port: dict[int, str] = {}
    for i in range(200):
        user = f"user-{i}"
        by_port.setdefault(wm._redis.get_node_from_key(wm.key(user, "s")).port, user)
    assert len(by_port) == 3
    dead, alive = by_port[ports[2]], by_port[ports[0]]
    wm.update(alive, "s", lambda w: w or WorkingMemory("s"))
    os.kill(int((state / str(ports[2]) / "redis.pid").read_text()), signal.SIGKILL)

    with pytest.raises(StoreUnavailableError):
        wm.get(dead, "s")
    assert cache.health()["ok"] is False

    def cluster_down() -> bool:
        info = subprocess.run(
            ["redis-cli", "-p", str(ports[0]), "cluster", "info"], capture_output=True, text=True
        ).stdout
        return "cluster_state:fail" in info

    # the node timeout is 5 s
    wait_until(cluster_down, "the surviving masters to declare the cluster down", 30, 0.25)
    with pytest.raises(StoreUnavailableError, match="CLUSTERDOWN|cluster is down"):
        wm.get(alive, "s")
    assert wm.health()["ok"] is False
    wm.close()
    cache.close()
