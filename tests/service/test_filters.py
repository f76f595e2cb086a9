"""Search filters and scopes (graphmem.domain.filters): a filtered search or listing never returns a
memory the filter excludes, in any channel, and listing returns exactly what it admits.

Property-based, on the embedded stores and on MariaDB + qdrant-client + Neo4j. Besides the
service's final answer, each store's pushed-down form of the filter is checked on its own: the
records re-read would hide a wrong pushdown from the service-level assertions.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem import MemoryService
from graphmem.domain.filters import MemoryFilter, same_value
from graphmem.domain.model import Memory
from graphmem.domain.requests import ListRequest
from graphmem.domain.text import query_terms
from graphmem.embedding import Embedder
from graphmem.errors import InvalidInputError
from graphmem.stores.records import RecordQuery
from graphmem.stores.vectors import VectorFilter
from tests.helpers.services import service_on

WORDS = ["Apollo", "budget", "Lisbon", "contract", "flight", "doctor", "Priya", "review",
         "项目", "风险", "garden", "piano", "because", "after"]
AGENTS = [None, "planner", "coder"]
RUNS = [None, "r1", "r2"]
SOURCES = ["user", "agent", "document"]
META_VALUES: list[Any] = ["Atlas", "atlas", 1, 1.0, 2, True, False, "1"]

texts = st.lists(st.sampled_from(WORDS), min_size=3, max_size=6).map(" ".join)
metadata = st.dictionaries(st.sampled_from(["project", "tier", "flag"]),
                           st.sampled_from(META_VALUES), max_size=3)
item = st.fixed_dictionaries({
    "content": texts,
    "agent_id": st.sampled_from(AGENTS),
    "run_id": st.sampled_from(RUNS),
    "source": st.sampled_from(SOURCES),
    "confidence": st.sampled_from([0.3, 0.7, 1.0]),
    "session_id": st.sampled_from([None, "s1", "s2"]),
    "metadata": metadata,
})
meta_filter = st.dictionaries(
    st.sampled_from(["project", "tier", "flag"]),
    st.one_of(st.sampled_from(META_VALUES),
              st.lists(st.sampled_from(META_VALUES), min_size=1, max_size=3).map(
                  lambda vs: {"in": vs})),
    max_size=2,
)
filters = st.fixed_dictionaries({}, optional={
    "agent_id": st.sampled_from(AGENTS[1:]),
    "run_id": st.sampled_from(RUNS[1:]),
    "source": st.one_of(st.sampled_from(SOURCES), st.lists(st.sampled_from(SOURCES),
                                                           min_size=1, max_size=2)),
    "min_confidence": st.sampled_from([0.5, 0.8]),
    "session_id": st.sampled_from(["s1", "s2"]),
    "metadata": meta_filter,
})
# every channel on its own, then the default mix with graph expansion
CHANNELS = ["vector=1", "keyword=1", None]


@pytest.fixture(scope="module", params=["embedded",
                                        pytest.param("production", marks=pytest.mark.services)])
def svc(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
        embedder: Embedder) -> Iterator[MemoryService]:
    service = service_on(request.param, tmp_path_factory.mktemp("filters"), embedder, request,
                         "filters")
    yield service
    service.close()


_SERIAL = itertools.count()


def _write(svc: MemoryService, user: str, items: list[dict[str, Any]]) -> list[Memory]:
    # A unique word each, so merge-on-write keeps every row apart. A plain counter, not random
    # hex: the firewall's classifier quarantines some hex strings ("n0xf6e701"), and a
    # quarantined memory is rightly absent from the lists these tests check.
    rows = [{**it, "content": f"{it['content']} item{next(_SERIAL)}"} for it in items]
    written = svc.write_many(user, rows)
    svc.drain_outbox()
    return written


@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(items=st.lists(item, min_size=4, max_size=10), flt=filters, query=texts)
def test_a_filtered_search_never_returns_what_the_filter_excludes(
    svc: MemoryService, items: list[dict[str, Any]], flt: dict[str, Any], query: str
) -> None:
    user = f"f-{uuid.uuid4().hex[:8]}"
    written = _write(svc, user, items)
    mf = MemoryFilter.parse(**flt)
    # active ones: a write may supersede an earlier one (temporal planning)
    rows = [m for m in svc.records.get(user, [m.id for m in written]).values()
            if m.status.value == "active"]
    admitted = {m.id for m in rows if mf.admits(m)}
    # confidence is not in the vector payload: the records re-read applies it
    by_payload = {m.id for m in rows if replace(mf, min_confidence=None).admits(m)}
    for weights in CHANNELS:
        res = svc.search(user, query, 20, weights=weights, expand_hops=2, **flt)
        got = {h.memory.id for h in res.hits}
        assert got <= admitted, (weights, flt)
        assert all(mf.admits(h.memory) for h in res.hits)
    # each store's own pushdown, before the records re-read
    ctx = svc.context
    vec = ctx.embedder.encode_query(query, user)
    vflt = VectorFilter(user, None, ("active",)).narrowed(mf)
    # exactly: the vector channel neither lets an excluded one in nor starves an admitted one
    assert {h.memory_id for h in ctx.vectors.search(vec, vflt, 50)} == by_payload
    kw = ctx.records.keyword_search(RecordQuery(user, filter=mf), query_terms(query), 50)
    assert {i for i, _ in kw} <= admitted
    # listing returns exactly what the filter admits, page by page
    seen: list[str] = []
    cursor = None
    while True:
        page = svc.list_memories(user, ListRequest(limit=3, cursor=cursor, **flt))
        seen += [m.id for m in page.memories]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert len(seen) == len(set(seen)) and set(seen) == admitted


def test_scopes_are_stored_returned_and_kept_apart_by_merge(svc: MemoryService) -> None:
    user = f"s-{uuid.uuid4().hex[:8]}"
    a = svc.write(user, "The user prefers green tea in the morning", "preference",
                  agent_id="planner", run_id="r1")
    b = svc.write(user, "The user prefers green tea in the morning", "preference",
                  agent_id="coder")
    assert b.merged_into is None and a.id != b.id  # one agent's memory is not folded away
    got = svc.get(user, a.id)
    assert (got.agent_id, got.run_id) == ("planner", "r1")
    assert got.to_dict()["agent_id"] == "planner"
    svc.drain_outbox()
    only = svc.search(user, "green tea", 10, agent_id="coder")
    assert [h.memory.id for h in only.hits] == [b.id]
    both = svc.search(user, "green tea", 10)
    assert {a.id, b.id} <= {h.memory.id for h in both.hits}
    # another user naming the same agent sees nothing of this user
    assert svc.search(f"x-{user}", "green tea", 10, agent_id="coder").hits == []


def test_cached_results_are_kept_per_filter(svc: MemoryService) -> None:
    """The search cache is keyed by the filter too: the same query under another filter is
    never answered from the first one's cached hits."""
    user = f"k-{uuid.uuid4().hex[:8]}"
    a = svc.write(user, "The Atlas budget review is on Monday", "event",
                  metadata={"project": "Atlas"}, agent_id="planner")
    b = svc.write(user, "The Borealis budget review is on Tuesday", "event",
                  metadata={"project": "Borealis"}, agent_id="coder")
    svc.drain_outbox()
    for _ in range(2):  # the second round comes from the cache
        for kw, want in [({"metadata": {"project": "Atlas"}}, [a.id]),
                         ({"metadata": {"project": {"in": ["Borealis"]}}}, [b.id]),
                         ({"agent_id": "coder"}, [b.id]),
                         ({"agent_id": "planner", "metadata": {"project": "Borealis"}}, []),
                         ({}, None)]:
            hits = [h.memory.id for h in svc.search(user, "budget review", 5, **kw).hits]
            assert hits == want if want is not None else set(hits) == {a.id, b.id}
    assert svc.cache_hits >= 5


def test_list_pages_in_each_order_without_gaps_or_repeats(svc: MemoryService) -> None:
    user = f"l-{uuid.uuid4().hex[:8]}"
    written = _write(svc, user, [{"content": f"note {w}"} for w in WORDS[:7]])
    for m, n in zip(written, [5, 0, 3, 3, 1, 9, 2], strict=True):
        svc.records.record_access({(user, m.id): n}, m.created_at)
    expected = {
        "newest": [m.id for m in reversed(written)],
        "oldest": [m.id for m in written],
    }
    for sort in ("newest", "oldest", "most_accessed", "decay"):
        seen: list[Memory] = []
        cursor = None
        while True:
            page = svc.list_memories(user, ListRequest(limit=2, cursor=cursor, sort=sort))
            assert len(page.memories) <= 2
            seen += page.memories
            cursor = page.next_cursor
            if cursor is None:
                break
        ids = [m.id for m in seen]
        assert sorted(ids) == sorted(m.id for m in written), sort
        if sort in expected:
            assert ids == expected[sort]
        elif sort == "most_accessed":
            counts = [m.access_count for m in seen]
            assert counts == sorted(counts, reverse=True)
        else:
            scores = [m.decay_score for m in seen]
            assert scores == sorted(scores)


def test_list_filters_by_time_type_and_status(svc: MemoryService) -> None:
    user = f"t-{uuid.uuid4().hex[:8]}"
    old = svc.write(user, "Visited Lisbon for the contract", "event",
                    created_at="2020-01-01T00:00:00Z", valid_to="2021-01-01T00:00:00Z")
    new = svc.write(user, "Prefers window seats on every flight", "preference")
    page = svc.list_memories(user, ListRequest(created_before="2024-01-01"))
    assert [m.id for m in page.memories] == [old.id]
    page = svc.list_memories(user, ListRequest(created_after="2024-01-01"))
    assert [m.id for m in page.memories] == [new.id]
    page = svc.list_memories(user, ListRequest(valid_at="2020-06-01"))
    assert [m.id for m in page.memories] == [old.id]
    page = svc.list_memories(user, ListRequest(memory_type="preference"))
    assert [m.id for m in page.memories] == [new.id]
    svc.archive(user, [new.id])
    assert svc.list_memories(user, ListRequest(memory_type="preference")).memories == []
    page = svc.list_memories(user, ListRequest(status=["archived"]))
    assert [m.id for m in page.memories] == [new.id]


@pytest.mark.parametrize(("request_kw", "field"), [
    ({"limit": 0}, "limit"),
    ({"limit": 101}, "limit"),
    ({"sort": "random"}, "sort"),
    ({"status": "gone"}, "status"),
    ({"status": "quarantined"}, "status"),
    ({"cursor": "not-a-cursor"}, "cursor"),
    ({"created_after": "yesterday"}, "created_after"),
    ({"metadata": {"k": {"gt": 1}}}, "metadata.k"),
    ({"metadata": {"k": [1, 2]}}, "metadata.k"),
    ({"metadata": {"k": {"in": []}}}, "metadata.k.in"),
    ({"metadata": {'a"b': 1}}, "metadata"),
    ({"metadata": "project=Atlas"}, "metadata"),
    ({"source": "robot"}, "source"),
    ({"min_confidence": 2}, "min_confidence"),
    ({"agent_id": "   "}, "agent_id"),
])
def test_bad_list_and_filter_input_names_its_field(
    svc: MemoryService, request_kw: dict[str, Any], field: str
) -> None:
    with pytest.raises(InvalidInputError) as e:
        svc.list_memories("someone", ListRequest(**request_kw))
    assert e.value.field == field


def test_a_cursor_belongs_to_its_sort(svc: MemoryService) -> None:
    user = f"c-{uuid.uuid4().hex[:8]}"
    _write(svc, user, [{"content": "a b c"}, {"content": "d e f"}])
    page = svc.list_memories(user, ListRequest(limit=1))
    assert page.next_cursor
    with pytest.raises(InvalidInputError) as e:
        svc.list_memories(user, ListRequest(limit=1, cursor=page.next_cursor, sort="decay"))
    assert e.value.field == "cursor"


def test_metadata_values_match_as_json_not_as_python() -> None:
    assert same_value(1, 1.0) and same_value(1.0, 1)
    assert not same_value(True, 1) and not same_value(1, True)
    assert not same_value("1", 1) and not same_value(1, "1")
    assert same_value(False, False) and not same_value(False, 0)
    assert same_value(2**60 + 1, 2**60 + 1) and not same_value(2**60 + 1, 2**60)
