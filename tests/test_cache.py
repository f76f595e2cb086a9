"""The search-result cache, in-process and on a real Redis: per-user entries, invalidated by that
user's writes, updates and forgets, shared across service instances through Redis."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.embedder import Embedder
from graphmem.stores.cache import InProcessCache, RedisCache, ResultCache, cache_key
from tests.conftest import service_url


@pytest.fixture(params=["in-process", pytest.param("redis", marks=pytest.mark.services)])
def cache(request: pytest.FixtureRequest) -> Iterator[ResultCache]:
    if request.param == "in-process":
        c: ResultCache = InProcessCache(ttl_seconds=60)
    else:
        c = RedisCache(service_url("GRAPHMEM_TEST_REDIS_URL"), 60,
                       prefix=f"graphmem-test:{uuid.uuid4().hex[:8]}:")
    yield c
    c.close()


def test_entries_are_per_user_and_invalidated_per_user(cache: ResultCache) -> None:
    k = cache_key(query="  Where do I LIVE ", top_k=5)
    assert k == cache_key(query="where do i live", top_k=5)
    cache.set("alice", k, [["m1", 0.9, {"vector": 0.9}, []]])
    cache.set("bob", k, [["m2", 0.5, {"vector": 0.5}, []]])
    assert cache.get("alice", k)[0][0] == "m1" and cache.get("bob", k)[0][0] == "m2"
    assert cache.count("alice") == 1
    assert cache.invalidate("alice") == 1
    assert cache.get("alice", k) is None and cache.get("bob", k) is not None


def test_in_process_entries_expire() -> None:
    c = InProcessCache(ttl_seconds=-1)
    c.set("u", "k", 1)
    assert c.get("u", "k") is None


@pytest.fixture(params=["in-process", pytest.param("redis", marks=pytest.mark.services)])
def svc_pair(request: pytest.FixtureRequest, tmp_path: Path, embedder: Embedder
             ) -> Iterator[tuple[MemoryService, MemoryService]]:
    """Two service instances on the same stores, like two server processes."""
    settings = Settings(data_dir=tmp_path / "d")
    if request.param == "redis":
        prefix = f"graphmem-test:{uuid.uuid4().hex[:8]}:"
        url = service_url("GRAPHMEM_TEST_REDIS_URL")
        caches = [RedisCache(url, 60, prefix), RedisCache(url, 60, prefix)]
    else:
        shared = InProcessCache(60)
        caches = [shared, shared]
    a = MemoryService(settings, embedder=embedder, cache=caches[0])
    b = MemoryService(settings, embedder=embedder, records=a.records, vectors=a.vectors,
                      graph=a.graph_store, cache=caches[1])
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
