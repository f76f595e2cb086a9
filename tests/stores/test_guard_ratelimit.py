"""Token buckets per user and tool, in-process and shared through a real Redis."""

from __future__ import annotations

import multiprocessing as mp
import uuid
from collections.abc import Iterator

import pytest

from graphmem.guard import Guard, GuardSettings, RateLimitExceeded
from graphmem.guard.ratelimit import bucket_key
from graphmem.stores.ratelimit import InProcessRateLimiter, RedisRateLimiter
from tests.helpers.services import service_url


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_bucket_allows_a_burst_then_refills_at_the_steady_rate() -> None:
    clock = Clock()
    rl = InProcessRateLimiter(clock)
    assert all(rl.acquire("k", 60).allowed for _ in range(60))
    denied = rl.acquire("k", 60)
    assert not denied.allowed and denied.retry_after_s == pytest.approx(1.0)
    clock.t += 0.5
    assert rl.acquire("k", 60).retry_after_s == pytest.approx(0.5)
    clock.t += 0.5
    assert rl.acquire("k", 60).allowed
    clock.t += 3600
    assert rl.acquire("k", 60).remaining == pytest.approx(59)  # capped at the capacity


def test_oversized_batches_and_disabled_limits() -> None:
    rl = InProcessRateLimiter(Clock())
    assert not rl.acquire("k", 60, cost=61).allowed
    assert rl.acquire("k", 0, cost=1000).allowed


def test_guard_limits_per_user_and_tool_and_says_when_to_retry() -> None:
    g = Guard(GuardSettings(_env_file=None), limiter=InProcessRateLimiter(Clock()))
    for _ in range(60):
        g.before_write("alice", "I like tea")
    with pytest.raises(RateLimitExceeded) as err:
        g.before_write("alice", "I like tea")
    assert err.value.retry_after_s == pytest.approx(1.0)
    assert "retry in 1.00 s" in str(err.value) and err.value.field == "rate_limit"
    g.before_write("bob", "I like tea")  # another user has their own bucket
    for _ in range(120):
        g.before_search("alice", "tea")  # searches have their own, larger bucket
    with pytest.raises(RateLimitExceeded):
        g.before_search("alice", "tea")
    with pytest.raises(RateLimitExceeded, match="split it into batches"):
        g.before_write_many("carol", [{"content": "x"}] * 61)


def test_bucket_keys_cannot_collide() -> None:
    assert bucket_key("a:write", "search") != bucket_key("a", "write:search")


# ------------------------------------------------------------------ Redis (shared buckets)


@pytest.fixture
def redis_prefix() -> Iterator[tuple[str, str]]:
    import redis

    url = service_url("GRAPHMEM_TEST_REDIS_URL")
    prefix = f"graphmem-test:{uuid.uuid4().hex}:"
    yield url, prefix
    client = redis.Redis.from_url(url)
    keys = list(client.scan_iter(prefix + "*"))
    if keys:
        client.delete(*keys)
    client.close()


def _worker(url: str, prefix: str, n: int, out: mp.Queue) -> None:  # type: ignore[type-arg]
    rl = RedisRateLimiter.from_url(url, prefix)
    out.put(sum(rl.acquire("shared", 60).allowed for _ in range(n)))


@pytest.mark.services
def test_redis_bucket_is_shared_across_processes(redis_prefix: tuple[str, str]) -> None:
    url, prefix = redis_prefix
    ctx = mp.get_context("spawn")
    q: mp.Queue = ctx.Queue()  # type: ignore[type-arg]
    procs = [ctx.Process(target=_worker, args=(url, prefix, 50, q)) for _ in range(2)]
    for p in procs:
        p.start()
    allowed = sum(q.get(timeout=60) for _ in procs)
    for p in procs:
        p.join(timeout=60)
    # 100 attempts against one 60-per-minute bucket: 60, plus at most a token or two refilled
    # while the second interpreter was starting.
    assert 60 <= allowed <= 62


@pytest.mark.services
def test_redis_denial_says_when_to_retry_and_keys_expire(redis_prefix: tuple[str, str]) -> None:
    import redis

    url, prefix = redis_prefix
    rl = RedisRateLimiter.from_url(url, prefix)
    assert all(rl.acquire("k", 6).allowed for _ in range(6))
    d = rl.acquire("k", 6)
    assert not d.allowed and 0 < d.retry_after_s <= 10.0
    ttl = redis.Redis.from_url(url).pttl(prefix + "k")
    assert 0 < ttl <= 61_000
    rl.reset("k")
    assert rl.acquire("k", 6).allowed


@pytest.mark.services
def test_guard_with_redis_backend(redis_prefix: tuple[str, str]) -> None:
    url, prefix = redis_prefix
    s = GuardSettings(
        rate_limit_backend="redis",
        rate_limit_prefix=prefix,
        rate_limits={"write": 2},
        _env_file=None,
    )
    a, b = (
        Guard(s, redis_url=url),
        Guard(s, redis_url=url),
    )  # two guards, as in two service processes
    a.before_write("u", "one")
    b.before_write("u", "two")
    with pytest.raises(RateLimitExceeded, match="retry in"):
        a.before_write("u", "three")


def test_unreachable_redis_fails_open_or_closed_as_configured() -> None:
    url = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    assert RedisRateLimiter.from_url(url, fail_open=True).acquire("k", 60).allowed
    assert not RedisRateLimiter.from_url(url, fail_open=False).acquire("k", 60).allowed
