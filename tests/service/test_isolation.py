"""Property-based isolation: whatever users, memories and queries, no search hit, graph
expansion, neighbourhood, summary source, working-memory read or cached result ever holds another
user's memory. On the embedded stores and on MariaDB + qdrant-client + Neo4j."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem import MemoryService
from graphmem.domain.working import WorkingMemoryPatch, patch_session
from graphmem.embedding import Embedder
from graphmem.stores.working import InProcessWorkingMemory
from tests.helpers.services import service_on

WORDS = ["Apollo", "budget", "Zhang San", "Lisbon", "contract", "because", "after", "风险",
         "项目", "Priya", "flight", "doctor", "so", "then", "医疗"]
texts = st.lists(st.sampled_from(WORDS), min_size=2, max_size=6).map(" ".join)


@pytest.fixture(scope="module", params=["embedded",
                                        pytest.param("production", marks=pytest.mark.services)])
def svc(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
        embedder: Embedder) -> Iterator[MemoryService]:
    service = service_on(request.param, tmp_path_factory.mktemp("iso"), embedder, request,
                         "iso")
    yield service
    service.close()


@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(mine=st.lists(texts, min_size=1, max_size=4), theirs=st.lists(texts, min_size=1,
       max_size=4), query=texts)
def test_nothing_ever_crosses_users(svc: MemoryService, mine: list[str], theirs: list[str],
                                    query: str) -> None:
    tag = uuid.uuid4().hex[:8]
    me, other = f"me-{tag}", f"other-{tag}"
    svc.write_many(me, [{"content": t, "session_id": "s"} for t in mine])
    foreign = {m.id for m in svc.write_many(other, [{"content": t, "session_id": "s"}
                                                     for t in theirs])}
    for _ in range(2):  # the second round is served from the search cache
        res = svc.search(me, query, 20, expand_hops=2)
        ids = {h.memory.id for h in res.hits}
        assert all(h.memory.user_id == me for h in res.hits) and not ids & foreign
        for h in res.hits:
            for step in getattr(h, "path", []):
                assert step.source not in foreign and step.target not in foreign
    mine_ids = [m.id for m in svc.list(me)]
    hood = svc.graph(me, mine_ids[0], 2)
    assert not any(fid in str(hood) for fid in foreign)
    assert svc.graph_store.node_ids(me).isdisjoint(foreign)
    # another user's ids delete nothing. Rows, not ids, are counted: a text written twice is
    # merged on write (one id back for both, the duplicate row kept archived)
    held = svc.records.count(other)
    assert svc.forget(me, list(foreign)) == []
    assert svc.records.count(other) == held
    wm = InProcessWorkingMemory()
    patch_session(wm, other, "s", WorkingMemoryPatch(task_context=theirs[0]))
    assert wm.get(me, "s") is None
    svc.forget_user(me)
    svc.forget_user(other)
