"""Every environment variable the settings read before they had sections still reaches the
setting, now in its section (issue 34): the table names each old variable, the dotted place
its value must arrive at, the text set and the value expected there. It is written out, not
derived from the settings, so a variable that stopped being read fails here. The same holds
for a .env file, and in code for the flat keyword arguments, attribute reads and
model_copy updates (deprecated, each with a warning)."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from graphmem.settings import Settings

# (old variable, where its value lands, the text set, the value read)
OLD_NAMES: list[tuple[str, str, str, Any]] = [
    ("GRAPHMEM_DATA_DIR", "data_dir", "/tmp/x", Path("/tmp/x")),
    ("GRAPHMEM_USER_ID", "user_id", "x-user_id", "x-user_id"),
    ("GRAPHMEM_RECORDS_BACKEND", "records.backend", "mysql", "mysql"),
    ("GRAPHMEM_MYSQL_URL", "records.mysql_url", "x-mysql_url", "x-mysql_url"),
    ("GRAPHMEM_VAULT_KEY", "vault.key", "c2VjcmV0", "c2VjcmV0"),
    ("GRAPHMEM_VAULT_KEY_FILE", "vault.key_file", "/tmp/x", Path("/tmp/x")),
    ("GRAPHMEM_VECTOR_BACKEND", "vectors.backend", "qdrant", "qdrant"),
    ("GRAPHMEM_QDRANT_URL", "qdrant.url", "x-qdrant_url", "x-qdrant_url"),
    ("GRAPHMEM_QDRANT_API_KEY", "qdrant.api_key", "x-qdrant_api_key", "x-qdrant_api_key"),
    (
        "GRAPHMEM_QDRANT_COLLECTION",
        "qdrant.collection",
        "x-qdrant_collection",
        "x-qdrant_collection",
    ),
    ("GRAPHMEM_QDRANT_SHARD_GROUPS", "qdrant.shard_groups", "3", 3),
    ("GRAPHMEM_QDRANT_SHARDS", "qdrant.shards", "3", 3),
    ("GRAPHMEM_QDRANT_REPLICATION_FACTOR", "qdrant.replication_factor", "3", 3),
    ("GRAPHMEM_QDRANT_WRITE_CONSISTENCY", "qdrant.write_consistency", "3", 3),
    ("GRAPHMEM_EDGE_VECTORS_MEMORY", "edge.vectors_memory", "cold", "cold"),
    ("GRAPHMEM_EDGE_HNSW_MEMORY", "edge.hnsw_memory", "cold", "cold"),
    ("GRAPHMEM_EDGE_PAYLOAD_MEMORY", "edge.payload_memory", "cached", "cached"),
    ("GRAPHMEM_EDGE_QUANTIZATION", "edge.quantization", "int8", "int8"),
    ("GRAPHMEM_EMBEDDING_MODEL", "embedding.model", "x-embedding_model", "x-embedding_model"),
    ("GRAPHMEM_EMBEDDING_BATCH_SIZE", "embedding.batch_size", "3", 3),
    ("GRAPHMEM_TORCH_THREADS", "embedding.torch_threads", "3", 3),
    ("GRAPHMEM_QUERY_CACHE_SIZE", "embedding.query_cache_size", "3", 3),
    ("GRAPHMEM_QUERY_RUNTIME", "embedding.query_runtime", "torch", "torch"),
    ("GRAPHMEM_EMBEDDING_PRECISION", "embedding.precision", "fp32", "fp32"),
    ("GRAPHMEM_MAX_CONTENT_CHARS", "writes.max_content_chars", "3", 3),
    ("GRAPHMEM_MAX_BATCH", "writes.max_batch", "3", 3),
    ("GRAPHMEM_DOCUMENT_CHUNK_CHARS", "documents.chunk_chars", "300", 300),
    ("GRAPHMEM_DOCUMENT_CHUNK_MAX_CHARS", "documents.chunk_max_chars", "900", 900),
    ("GRAPHMEM_RECENCY_HALF_LIFE_DAYS", "ranking.recency_half_life_days", "0.25", 0.25),
    ("GRAPHMEM_FREQUENCY_SATURATION", "ranking.frequency_saturation", "3", 3),
    ("GRAPHMEM_CANDIDATE_POOL", "ranking.candidate_pool", "3", 3),
    ("GRAPHMEM_FORGET_SIMILARITY", "lifecycle.forget_similarity", "0.25", 0.25),
    ("GRAPHMEM_ACCESS_FLUSH_EVERY", "writes.access_flush_every", "3", 3),
    ("GRAPHMEM_ACCESS_FLUSH_SECONDS", "writes.access_flush_seconds", "0.25", 0.25),
    ("GRAPHMEM_REDIS_URL", "redis_url", "x-redis_url", "x-redis_url"),
    ("GRAPHMEM_GUARD_REDIS_URL", "redis_url", "x-redis_url", "x-redis_url"),
    ("GRAPHMEM_CACHE_BACKEND", "cache.backend", "memory", "memory"),
    ("GRAPHMEM_SEARCH_CACHE_TTL_SECONDS", "cache.ttl_seconds", "0.25", 0.25),
    ("GRAPHMEM_GRAPH_BACKEND", "graph.backend", "networkx", "networkx"),
    ("GRAPHMEM_NEO4J_URL", "neo4j.url", "x-neo4j_url", "x-neo4j_url"),
    ("GRAPHMEM_NEO4J_USER", "neo4j.user", "x-neo4j_user", "x-neo4j_user"),
    ("GRAPHMEM_NEO4J_PASSWORD", "neo4j.password", "x-neo4j_password", "x-neo4j_password"),
    ("GRAPHMEM_NEO4J_DATABASE", "neo4j.database", "x-neo4j_database", "x-neo4j_database"),
    ("GRAPHMEM_EXTRACTOR", "linking.extractor", "none", "none"),
    ("GRAPHMEM_ENTITY_ALIASES", "linking.entity_aliases", '{"Bob": "Robert"}', {"Bob": "Robert"}),
    ("GRAPHMEM_LINK_PER_ENTITY", "linking.per_entity", "3", 3),
    ("GRAPHMEM_LINK_HUB_SHARE", "linking.hub_share", "0.25", 0.25),
    ("GRAPHMEM_LINK_PER_TOPIC", "linking.per_topic", "3", 3),
    ("GRAPHMEM_LINK_HUB_MIN", "linking.hub_min", "3", 3),
    ("GRAPHMEM_EXPAND_HOPS", "graph.expand_hops", "3", 3),
    ("GRAPHMEM_GRAPH_WEIGHT", "graph.weight", "0.25", 0.25),
    ("GRAPHMEM_HOP_DECAY", "graph.hop_decay", "0.25", 0.25),
    ("GRAPHMEM_RELATION_WEIGHTS", "graph.relation_weights", '{"causal": 0.5}', {"causal": 0.5}),
    ("GRAPHMEM_GRAPH_SEEDS", "graph.seeds", "3", 3),
    ("GRAPHMEM_GRAPH_SEED_SHARPNESS", "graph.seed_sharpness", "0.25", 0.25),
    ("GRAPHMEM_GRAPH_FACET_FANOUT", "graph.facet_fanout", "3", 3),
    ("GRAPHMEM_GRAPH_BRIDGE_ANSWER", "graph.bridge_answer", "false", False),
    ("GRAPHMEM_GRAPH_REPLY_WEIGHT", "graph.reply_weight", "0.25", 0.25),
    ("GRAPHMEM_GRAPH_BRIDGE_WEIGHT", "graph.bridge_weight", "0.25", 0.25),
    ("GRAPHMEM_VECTOR_SCORE_FLOOR", "vectors.score_floor", "0.25", 0.25),
    ("GRAPHMEM_GRAPH_FANOUT", "graph.fanout", "3", 3),
    ("GRAPHMEM_GRAPH_MAX_NODES", "graph.max_nodes", "3", 3),
    ("GRAPHMEM_GRAPH_ADJACENCY_EDGES", "graph.adjacency_edges", "3", 3),
    ("GRAPHMEM_GRAPH_CANDIDATES", "graph.candidates", "3", 3),
    ("GRAPHMEM_SOURCE_TRUST", "ranking.source_trust", '{"agent": 0.5}', {"agent": 0.5}),
    ("GRAPHMEM_SUBJECT_BOOST", "ranking.subject_boost", "0.25", 0.25),
    ("GRAPHMEM_WEIGHTS", "ranking.weights", '{"vector": 1.0}', {"vector": 1.0}),
    ("GRAPHMEM_PROFILES", "ranking.profiles", '{"p": {"vector": 1.0}}', {"p": {"vector": 1.0}}),
    ("GRAPHMEM_FUSION", "ranking.fusion", "learned", "learned"),
    ("GRAPHMEM_ARCHIVE_AFTER_DAYS", "lifecycle.archive_after_days", "0.25", 0.25),
    ("GRAPHMEM_ARCHIVE_BELOW_DECAY", "lifecycle.archive_below_decay", "0.25", 0.25),
    (
        "GRAPHMEM_TTL_HOURS",
        "lifecycle.ttl_hours",
        '{"task": 2.0, "fact": null}',
        {"task": 2.0, "fact": None},
    ),
    ("GRAPHMEM_MERGE_SIMILARITY", "lifecycle.merge_similarity", "0.25", 0.25),
    ("GRAPHMEM_MERGE_ON_WRITE", "lifecycle.merge_on_write", "false", False),
    ("GRAPHMEM_MERGE_NEIGHBOURS", "lifecycle.merge_neighbours", "3", 3),
    ("GRAPHMEM_SEARCH_LAST_TURN", "ranking.search_last_turn", "false", False),
    ("GRAPHMEM_RECALL_ON_SUMMARIES", "ranking.recall_on_summaries", "true", True),
    ("GRAPHMEM_COMPACT_INTERVAL_SECONDS", "lifecycle.compact_interval_seconds", "0.25", 0.25),
    ("GRAPHMEM_OUTBOX_DRAIN_SECONDS", "writes.outbox_drain_seconds", "0.25", 0.25),
    ("GRAPHMEM_OUTBOX_LEASE_SECONDS", "writes.outbox_lease_seconds", "0.25", 0.25),
    ("GRAPHMEM_WRITE_LOCK_TIMEOUT_SECONDS", "writes.write_lock_timeout_seconds", "0.25", 0.25),
    ("GRAPHMEM_PRELOAD_MEMORIES", "lifecycle.preload_memories", "3", 3),
    ("GRAPHMEM_WORKING_BACKEND", "working.backend", "memory", "memory"),
    ("GRAPHMEM_WORKING_TTL_SECONDS", "working.ttl_seconds", "0.25", 0.25),
    ("GRAPHMEM_WORKING_MAX_SESSIONS", "working.max_sessions", "3", 3),
]


def at(settings: Settings, place: str) -> Any:
    value: Any = settings
    for part in place.split("."):
        value = getattr(value, part)
    return value.get_secret_value() if isinstance(value, SecretStr) else value


@pytest.fixture(autouse=True)
def _no_graphmem_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for name in list(os.environ):
        if name.startswith("GRAPHMEM_"):
            monkeypatch.delenv(name)


@pytest.mark.parametrize(
    ("env", "place", "raw", "expected"), OLD_NAMES, ids=[r[0] for r in OLD_NAMES]
)
def test_an_old_variable_reaches_its_section(
    monkeypatch: pytest.MonkeyPatch, env: str, place: str, raw: str, expected: Any
) -> None:
    monkeypatch.setenv(env, raw)
    assert at(Settings(_env_file=None), place) == expected


def test_a_dotenv_file_sets_them_all(tmp_path: Path) -> None:
    chosen: dict[str, tuple[str, str, Any]] = {}  # one variable per place (redis_url has two)
    for env, place, raw, expected in OLD_NAMES:
        chosen.setdefault(place, (env, raw, expected))
    dotenv = tmp_path / ".env"
    dotenv.write_text("".join(f"{env}='{raw}'\n" for env, raw, _ in chosen.values()))
    settings = Settings(_env_file=dotenv)
    for place, (env, _raw, expected) in chosen.items():
        assert at(settings, place) == expected, env


def flat_names() -> dict[str, tuple[str, str]]:
    from graphmem.settings.tree import FLAT

    return FLAT


def test_the_table_covers_every_flat_name() -> None:
    FLAT = flat_names()  # noqa: N806
    places = {place for _env, place, _raw, _value in OLD_NAMES}
    assert {".".join(p) for p in FLAT.values()} <= places


@pytest.mark.parametrize("flat", [r[0].removeprefix("GRAPHMEM_").lower() for r in OLD_NAMES])
def test_a_flat_keyword_argument_reaches_its_section(flat: str) -> None:
    if flat not in flat_names():
        pytest.skip("a root setting, or a server one (working memory's)")
    section, field = flat_names()[flat]
    row = next(r for r in OLD_NAMES if r[1] == f"{section}.{field}")
    with pytest.warns(DeprecationWarning, match=flat):
        settings = Settings(_env_file=None, **{flat: row[3]})
    assert at(settings, row[1]) == row[3]
    with pytest.warns(DeprecationWarning, match=flat):
        assert getattr(settings, flat) == getattr(getattr(settings, section), field)
    with pytest.warns(DeprecationWarning, match=flat):
        copy = Settings(_env_file=None).model_copy(update={flat: row[3]})
    assert at(copy, row[1]) == row[3]
    fresh = Settings(_env_file=None)
    with pytest.warns(DeprecationWarning, match=flat):
        setattr(fresh, flat, row[3])
    assert at(fresh, row[1]) == row[3]


def test_a_section_given_as_a_dict_reads_the_rest_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GRAPHMEM_GRAPH_FANOUT", "7")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        settings = Settings(_env_file=None, graph={"expand_hops": 1})
    assert (settings.graph.expand_hops, settings.graph.fanout) == (1, 7)
    with pytest.warns(DeprecationWarning):
        both = Settings(_env_file=None, graph={"expand_hops": 1}, graph_fanout=4)
    assert (both.graph.expand_hops, both.graph.fanout) == (1, 4)


def test_a_setting_that_kept_its_old_variable_also_has_its_sections_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As the llm section does: GRAPHMEM_GRAPH_EXPAND_HOPS is `graph.expand_hops`'s name, and
    the old GRAPHMEM_EXPAND_HOPS still works; when both are set, the section's name wins."""
    monkeypatch.setenv("GRAPHMEM_EXPAND_HOPS", "1")
    assert Settings(_env_file=None).graph.expand_hops == 1
    monkeypatch.setenv("GRAPHMEM_GRAPH_EXPAND_HOPS", "3")
    assert Settings(_env_file=None).graph.expand_hops == 3
    monkeypatch.setenv("GRAPHMEM_RANKING_CANDIDATE_POOL", "1")  # ranking: GRAPHMEM_ + field
    assert Settings(_env_file=None).ranking.candidate_pool == 50
