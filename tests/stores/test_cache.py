"""The search-result cache, in-process and on a real Redis: per-user entries, invalidated by that
user's writes, updates and forgets, shared across service instances through Redis, and never
serving a result computed before another instance's write (versioned per-user entries)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

import graphmem.usecases.search as search_usecase
from graphmem import MemoryService, Settings
from graphmem.embedding import Embedder
from graphmem.stores.cache import InProcessCache, RedisCache, ResultCache, cache_key
from tests.helpers.cache import services_sharing_stores
from tests.helpers.services import service_url


def _prefix() -> str:
    return f"graphmem-test:{uuid.uuid4().hex[:8]}:"


@pytest.fixture(params=["in-process", pytest.param("redis", marks=pytest.mark.services)])
def cache(request: pytest.FixtureRequest) -> Iterator[ResultCache]:
    if request.param == "in-process":
        c: ResultCache = InProcessCache(ttl_seconds=60)
    else:
        c = RedisCache(service_url("GRAPHMEM_TEST_REDIS_URL"), 60, prefix=_prefix())
    yield c
    c.close()


def test_entries_are_per_user_and_invalidated_per_user(cache: ResultCache) -> None:
    k = cache_key(query="  Where do I LIVE ", top_k=5)
    assert k == cache_key(query="where do i live", top_k=5)
    assert cache.set("alice", k, [["m1", 0.9, {"vector": 0.9}, []]], cache.get("alice", k).version)
    assert cache.set("bob", k, [["m2", 0.5, {"vector": 0.5}, []]], cache.get("bob", k).version)
    assert cache.get("alice", k).value == [["m1", 0.9, {"vector": 0.9}, []]]
    assert cache.get("bob", k).value == [["m2", 0.5, {"vector": 0.5}, []]]
    assert cache.count("alice") == 1
    assert cache.invalidate("alice") == 1
    assert cache.get("alice", k).value is None and cache.get("bob", k).value is not None
    assert cache.purge("bob") == 1 and cache.count("bob") == 0


def test_a_result_computed_before_an_invalidation_is_never_stored(cache: ResultCache) -> None:
    """The stale-set race of delete-based invalidation: a search reads (miss), another process
    writes and invalidates, then the search stores what it computed from the older data."""
    before = cache.get("u", "k")
    assert before.value is None
    cache.invalidate("u")  # another replica's write
    assert not cache.set("u", "k", "computed before the write", before.version)
    after = cache.get("u", "k")
    assert after.value is None and after.version != before.version
    assert cache.count("u") == 0
    assert cache.set("u", "k", "fresh", after.version) and cache.get("u", "k").value == "fresh"


def test_versions_never_come_back(cache: ResultCache) -> None:
    """Not after an invalidation, not after an erase: a search that read a version before
    either can never find it current again, however long it runs."""
    seen = [cache.get("u", "k").version]
    for step in (cache.invalidate, cache.purge, cache.invalidate, cache.invalidate):
        step("u")
        seen.append(cache.get("u", "k").version)
    assert len(set(seen)) == len(seen)
    for old in seen[:-1]:
        assert not cache.set("u", "k", "stale", old)
    assert cache.count("u") == 0


def test_in_process_entries_expire() -> None:
    c = InProcessCache(ttl_seconds=-1)
    assert c.set("u", "k", 1, c.get("u", "k").version)
    assert c.get("u", "k").value is None


def test_in_process_users_beyond_the_bound_are_dropped_with_their_version() -> None:
    c = InProcessCache(60, max_users=2)
    first = c.get("a", "k").version
    c.get("b", "k")
    c.get("c", "k")  # drops a
    assert not c.set("a", "k", "stale", first)
    assert c.get("a", "k").version != first


@pytest.fixture(params=["in-process", pytest.param("redis", marks=pytest.mark.services)])
def svc_pair(
    request: pytest.FixtureRequest, tmp_path: Path, embedder: Embedder
) -> Iterator[tuple[MemoryService, MemoryService]]:
    """Two service instances on the same stores, like two server processes."""
    settings = Settings(data_dir=tmp_path / "d")
    if request.param == "redis":
        prefix = _prefix()
        url = service_url("GRAPHMEM_TEST_REDIS_URL")
        caches: list[ResultCache] = [RedisCache(url, 60, prefix), RedisCache(url, 60, prefix)]
    else:
        shared = InProcessCache(60)
        caches = [shared, shared]
    a, b = services_sharing_stores(settings, embedder, caches[0], caches[1])
    yield a, b
    a.close()


def test_search_is_served_from_cache_until_the_user_writes(svc_pair) -> None:
    a, b = svc_pair
    m = a.write("u", "I live in Austin")
    first = a.search("u", "where do I live?", 3)
    assert (a.cache_hits, a.cache_misses) == (0, 1)
    again = b.search("u", "Where do I  live?", 3)  # another process, same cache
    assert b.cache_hits == 1 and [h.memory.id for h in again.hits] == [m.id]
    assert again.hits[0].scores == first.hits[0].scores
    a.write("other-user", "I live in Denver")
    b.search("u", "where do I live?", 3)
    assert b.cache_hits == 2  # someone else's write leaves u's cache alone
    a.update("u", m.id, "I live in Denver now")
    fresh = b.search("u", "where do I live?", 3)
    assert b.cache_hits == 2 and "Denver" in fresh.hits[0].memory.content
    a.forget("u", [m.id])
    assert b.search("u", "where do I live?", 3).hits == []
    assert a.stats("u")["search_cache_hit_rate"] >= 0


def test_a_search_racing_another_instances_write_is_not_served_after_it(
    svc_pair, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Instance A searches; while it computes, instance B writes a new memory (and invalidates
    the cache); A then stores its result, computed without that memory. B's next search must
    find the new memory, not A's stale result."""
    a, b = svc_pair
    a.write("u", "I live in Austin")
    real_retrieve = search_usecase.retrieve
    written: list[str] = []

    def slow_retrieve(ctx, user_id, req):  # noqa: ANN001, ANN202 - the wrapped function's own
        result = real_retrieve(ctx, user_id, req)
        if not written:  # B's write lands after A computed, before A stores
            written.append(b.write("u", "I moved to Denver last week").id)
        return result

    monkeypatch.setattr(search_usecase, "retrieve", slow_retrieve)
    stale = a.search("u", "where do I live?", 5)
    assert written[0] not in [h.memory.id for h in stale.hits]
    monkeypatch.setattr(search_usecase, "retrieve", real_retrieve)
    fresh = b.search("u", "where do I live?", 5)
    assert written[0] in [h.memory.id for h in fresh.hits]
