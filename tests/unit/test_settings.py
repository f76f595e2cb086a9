"""The settings tree: one root, its sections built with it, every old variable still read."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem.errors import InvalidInputError
from graphmem.guard import Guard, GuardSettings
from graphmem.guard.firewall import DEFAULT_RATE_LIMIT_REDIS_URL, make_limiter
from graphmem.settings import (
    SECTIONS,
    ImageSettings,
    LlmSettings,
    McpSettings,
    Settings,
    TemporalSettings,
    TracingSettings,
)
from graphmem.settings.search import GraphSettings
from graphmem.settings.stores import WorkingSettings
from graphmem.stores import open_cache, open_working, resolve_backend
from graphmem.stores.cache import InProcessCache, RedisCache
from graphmem.stores.ratelimit import InProcessRateLimiter, RedisRateLimiter
from graphmem.stores.working import InProcessWorkingMemory, RedisWorkingMemory


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """No GRAPHMEM_* variable nor .env file of the machine running the tests."""
    for name in list(os.environ):
        if name.startswith("GRAPHMEM_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    yield


def test_every_section_is_reached_from_the_root_and_built_with_it() -> None:
    s = Settings()
    assert isinstance(s.guard, GuardSettings)
    assert isinstance(s.temporal, TemporalSettings)
    assert isinstance(s.server, McpSettings)
    assert isinstance(s.llm, LlmSettings)
    assert isinstance(s.images, ImageSettings)
    assert isinstance(s.tracing, TracingSettings) and s.tracing.mode == "off"
    assert isinstance(s.graph, GraphSettings) and isinstance(s.working, WorkingSettings)
    assert set(SECTIONS) == {
        *("records", "vault", "vectors", "qdrant", "edge", "graph", "neo4j", "cache"),
        *("embedding", "linking", "ranking", "writes", "lifecycle", "documents", "working"),
        *("guard", "temporal", "server", "llm", "images", "tracing"),
    }


def test_sections_read_their_own_prefixes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHMEM_GUARD_INJECTION_THRESHOLD", "0.5")
    monkeypatch.setenv("GRAPHMEM_TEMPORAL_HISTORY_BOOST", "0.5")
    monkeypatch.setenv("GRAPHMEM_PORT", "9000")
    monkeypatch.setenv("GRAPHMEM_LLM_MODEL", "tiny")
    monkeypatch.setenv("GRAPHMEM_TRACING_MODE", "console")
    s = Settings()
    assert s.guard.injection_threshold == 0.5
    assert s.temporal.history_boost == 0.5
    assert s.server.port == 9000
    assert s.llm.model == "tiny"
    assert s.tracing.mode == "console"


def test_the_env_file_reaches_every_section_and_none_means_none(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(
        "GRAPHMEM_USER_ID=eve\nGRAPHMEM_GUARD_CLASSIFIER=false\nGRAPHMEM_PORT=9001\n"
    )
    s = Settings()
    assert (s.user_id, s.guard.classifier, s.server.port) == ("eve", False, 9001)
    bare = Settings(_env_file=None)
    assert (bare.user_id, bare.guard.classifier, bare.server.port) == ("default", True, 8765)


def test_a_section_passed_in_is_kept() -> None:
    guard = GuardSettings(rate_limit_backend="off")
    assert Settings(guard=guard).guard is guard


def test_redis_url_is_one_setting_with_the_guard_name_as_an_alias(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert Settings().redis_url is None
    assert Settings(redis_url="redis://x:1/0").redis_url == "redis://x:1/0"
    monkeypatch.setenv("GRAPHMEM_GUARD_REDIS_URL", "redis://guard:1/0")
    assert Settings().redis_url == "redis://guard:1/0"
    monkeypatch.setenv("GRAPHMEM_REDIS_URL", "redis://root:1/0")
    assert Settings().redis_url == "redis://root:1/0"  # the current name wins


def test_one_llm_endpoint_with_the_summary_names_as_aliases(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    s = Settings()
    assert (s.llm.url, s.llm.timeout_seconds, s.llm.summary_timeout_seconds) == (None, 20, 10)
    assert not s.llm.write_summaries and s.summary_llm_url is None

    monkeypatch.setenv("GRAPHMEM_LLM_URL", "http://tool/v1")
    s = Settings()
    assert s.llm.url == "http://tool/v1"
    assert not s.llm.write_summaries and s.summary_llm_url is None  # as before: the tool only

    monkeypatch.delenv("GRAPHMEM_LLM_URL")
    monkeypatch.setenv("GRAPHMEM_SUMMARY_LLM_URL", "http://sum/v1")
    monkeypatch.setenv("GRAPHMEM_SUMMARY_LLM_MODEL", "m")
    monkeypatch.setenv("GRAPHMEM_SUMMARY_LLM_API_KEY", "k")
    monkeypatch.setenv("GRAPHMEM_SUMMARY_LLM_TIMEOUT_SECONDS", "3")
    s = Settings()
    assert s.llm.write_summaries and s.summary_llm_url == s.llm.url == "http://sum/v1"
    assert s.summary_llm_model == "m" and s.summary_llm_timeout_seconds == 3
    assert s.summary_llm_api_key is not None and s.summary_llm_api_key.get_secret_value() == "k"
    assert s.llm.timeout_seconds == 20  # memory_summarize keeps its own

    monkeypatch.setenv("GRAPHMEM_LLM_WRITE_SUMMARIES", "false")
    assert not Settings().llm.write_summaries


def test_the_legacy_summary_url_in_the_env_file_turns_summaries_on(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("GRAPHMEM_SUMMARY_LLM_URL=http://sum/v1\n")
    assert Settings().summary_llm_url == "http://sum/v1"
    assert Settings(_env_file=None).summary_llm_url is None


def test_auto_is_redis_when_a_url_is_set() -> None:
    assert resolve_backend("auto", None) == "memory"
    assert resolve_backend("auto", "redis://x") == "redis"
    assert resolve_backend("off", "redis://x") == "off"


def test_the_cache_backend(tmp_path: Path) -> None:
    assert isinstance(open_cache(Settings(data_dir=tmp_path)), InProcessCache)
    url = "redis://127.0.0.1:1/0"  # never contacted: adapters connect lazily
    assert isinstance(open_cache(Settings(redis_url=url)), RedisCache)
    assert isinstance(
        open_cache(Settings(redis_url=url, cache={"backend": "memory"})), InProcessCache
    )
    with pytest.raises(InvalidInputError, match="redis_url"):
        open_cache(Settings(cache={"backend": "redis"}))


def test_the_working_backend() -> None:
    url = "redis://127.0.0.1:1/0"
    assert isinstance(open_working("auto"), InProcessWorkingMemory)
    assert isinstance(open_working("auto", redis_url=url), RedisWorkingMemory)
    assert isinstance(open_working("memory", redis_url=url), InProcessWorkingMemory)


def test_the_rate_limit_backend_reads_the_root_redis_url() -> None:
    url = "redis://127.0.0.1:1/0"
    assert isinstance(make_limiter(GuardSettings()), InProcessRateLimiter)  # default: memory
    assert isinstance(make_limiter(GuardSettings(), url), InProcessRateLimiter)
    assert make_limiter(GuardSettings(rate_limit_backend="off"), url) is None
    assert isinstance(make_limiter(GuardSettings(rate_limit_backend="auto")), InProcessRateLimiter)
    auto = make_limiter(GuardSettings(rate_limit_backend="auto"), url)
    assert isinstance(auto, RedisRateLimiter)
    redis = Guard(GuardSettings(rate_limit_backend="redis")).limiter
    assert isinstance(redis, RedisRateLimiter)
    assert DEFAULT_RATE_LIMIT_REDIS_URL == "redis://127.0.0.1:6379/0"


def test_the_summary_arguments_of_old_still_configure_the_llm() -> None:
    with pytest.deprecated_call():
        s = Settings(summary_llm_url="http://sum/v1", summary_llm_timeout_seconds=1)
    assert s.llm.write_summaries and s.summary_llm_url == "http://sum/v1"
    assert s.llm.summary_timeout_seconds == 1 and s.llm.timeout_seconds == 20
    with pytest.raises(TypeError):
        Settings(summary_llm_model="m", llm=LlmSettings())


def test_a_setting_moved_to_the_root_is_refused_by_its_old_section_not_ignored() -> None:
    with pytest.raises(TypeError, match="llm_url -> Settings.llm.url"):
        McpSettings(llm_url="http://x/v1")
    with pytest.raises(TypeError, match="redis_url"):
        GuardSettings(redis_url="redis://x")


def test_the_old_variables_of_moved_settings_do_not_trouble_their_old_section(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GRAPHMEM_GUARD_REDIS_URL", "redis://g")
    monkeypatch.setenv("GRAPHMEM_LLM_URL", "http://x/v1")
    monkeypatch.setenv("GRAPHMEM_TORCH_THREADS", "2")
    s = Settings()
    assert (s.redis_url, s.llm.url, s.embedding.torch_threads) == ("redis://g", "http://x/v1", 2)


def test_the_old_variables_of_moved_settings_in_the_env_file(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(
        "GRAPHMEM_GUARD_REDIS_URL=redis://g\nGRAPHMEM_LLM_URL=http://x/v1\n"
        "GRAPHMEM_LLM_TIMEOUT_SECONDS=5\nGRAPHMEM_TORCH_THREADS=2\n"
    )
    s = Settings()
    assert (s.redis_url, s.llm.url, s.llm.timeout_seconds, s.embedding.torch_threads) == (
        "redis://g",
        "http://x/v1",
        5,
        2,
    )
    assert GuardSettings().rate_limit_backend == "memory" and McpSettings().port == 8765
