"""SearchRequest and WriteItem: the options a search and a write take, checked in one place."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem import InvalidInputError, MemoryService, SearchRequest, Settings, WriteItem
from graphmem.domain.requests import recipes
from graphmem.embedding import Embedder
from graphmem.errors import FirewallRejected
from graphmem.guard import Guard, GuardSettings
from graphmem.stores.cache import cache_key


def test_the_cache_key_is_derived_from_the_same_fields_as_before() -> None:
    req = SearchRequest("Where  do I LIVE", 7, memory_type="fact", weights="keyword")
    assert req.cache_key() == cache_key(
        query="Where  do I LIVE",
        top_k=7,
        memory_type="fact",
        time_range=None,
        session_id=None,
        weights="keyword",
        profile=None,
        include_archived=False,
        expand_hops=None,
        relation_types=None,
    )
    assert "as_of" not in req.cache_key()  # only a temporal search adds its fields
    assert "include_history" in SearchRequest("q", include_history=True).cache_key()
    assert SearchRequest("q", track_access=False).cache_key() == SearchRequest("q").cache_key()


def test_validation_names_the_first_wrong_option() -> None:
    s = Settings()
    with pytest.raises(InvalidInputError) as e:
        SearchRequest("q", top_k=0).validated(s)
    assert e.value.field == "top_k"
    with pytest.raises(InvalidInputError) as e:
        SearchRequest("q", expand_hops=9).validated(s)
    assert e.value.field == "expand_hops"
    with pytest.raises(InvalidInputError) as e:
        SearchRequest("q", profile="nope").validated(s)
    assert e.value.field == "profile"


def test_recipes_come_from_the_profiles_setting_and_keep_the_defaults() -> None:
    s = Settings()
    assert set(recipes(s)) == set(s.ranking.profiles)
    v = SearchRequest("q", profile="knowledge").validated(s)
    assert v.hops == s.graph.expand_hops and v.graph_weight == s.graph.weight
    assert v.weights["vector"] == pytest.approx(0.75)
    g = SearchRequest("q", weights="vector=1,graph=0.2", expand_hops=1).validated(s)
    assert (g.hops, g.graph_weight, g.weights["vector"]) == (1, 0.2, 1.0)


def test_write_items_accept_dicts_and_dataclasses() -> None:
    item = WriteItem.of({"content": "x", "memory_type": "task", "extra": 1})
    assert item == WriteItem("x", "task")
    assert WriteItem.of(item) is item


def test_search_request_gives_what_search_gives(svc: MemoryService) -> None:
    svc.write("u", "My sister Anna lives in Berlin.")
    a = svc.search("u", "where does Anna live", 3, track_access=False)
    b = svc.search_request("u", SearchRequest("where does Anna live", 3, track_access=False))
    assert [h.memory.id for h in a.hits] == [h.memory.id for h in b.hits]
    assert svc.write_many("u", [WriteItem("I prefer tea.", "preference")])[0].content


def test_a_firewall_rejection_is_caught_by_type(tmp_path: Path, embedder: Embedder) -> None:
    guard = Guard(
        GuardSettings(rate_limit_backend="off", pii_policy={"email": "reject"}, _env_file=None)
    )
    svc = MemoryService(Settings(data_dir=tmp_path / "d"), embedder=embedder, guard=guard)
    try:
        ok = {"content": "I like tea."}
        bad = {"content": "Mail me at anna@example.com"}
        with pytest.raises(FirewallRejected) as e:
            svc.write("u", bad["content"])
        assert e.value.message.startswith("rejected by the memory firewall")
        with pytest.raises(InvalidInputError) as batch:
            svc.write_many("u", [ok, bad])
        assert batch.value.field == "items[1].content"  # renamed, no longer the subclass
        assert not isinstance(batch.value, FirewallRejected)
        rows = svc.records.audit_rows("u")
        assert sum(r["action"] == "reject" for r in rows) == 2  # one per refused write
    finally:
        svc.close()
