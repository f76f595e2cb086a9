"""The vector port, the same tests on Qdrant Edge and on qdrant-client (local mode)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from graphmem.errors import StoreUnavailableError
from graphmem.model import new_id
from graphmem.stores.vectors import VectorFilter, VectorPoint, VectorStore
from graphmem.stores.vectors.edge import EdgeVectors
from graphmem.stores.vectors.qdrant import QdrantServerVectors

DIM = 8


@pytest.fixture(params=["edge", "qdrant-client"])
def vectors(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[VectorStore]:
    if request.param == "edge":
        store: VectorStore = EdgeVectors(tmp_path / "edge", DIM)
    else:
        store = QdrantServerVectors(":memory:", None, "test", DIM)
    yield store
    store.close()


def unit(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def point(user: str, seed: int, **kw: object) -> VectorPoint:
    base = {"memory_type": "fact", "status": "active", "created_at": time.time()}
    base.update(kw)
    return VectorPoint(new_id(), unit(seed), user, **base)  # type: ignore[arg-type]


def test_search_is_tenant_filtered_and_exact_on_itself(vectors: VectorStore) -> None:
    mine = [point("alice", i) for i in range(20)]
    theirs = [point("bob", i) for i in range(20)]  # identical vectors, other tenant
    vectors.upsert(mine + theirs)
    hits = vectors.search(unit(3), VectorFilter("alice"), 5)
    assert hits[0].memory_id == mine[3].memory_id and hits[0].score == pytest.approx(1, abs=1e-4)
    assert {h.memory_id for h in hits} <= {p.memory_id for p in mine}
    assert vectors.count("alice") == 20 and vectors.count() == 40


def test_filters_by_type_status_time_session(vectors: VectorStore) -> None:
    now = time.time()
    a = point("u", 1, memory_type="task", session_id="s1")
    b = point("u", 2, created_at=now - 86400 * 40)
    c = point("u", 3, status="archived")
    vectors.upsert([a, b, c])
    q = unit(1)

    def ids(**kw: object) -> set[str]:
        return {h.memory_id for h in vectors.search(q, VectorFilter("u", **kw), 10)}  # type: ignore[arg-type]

    assert ids() == {a.memory_id, b.memory_id}
    assert ids(memory_type="task") == {a.memory_id}
    assert ids(created_after=now - 86400 * 7) == {a.memory_id}
    assert ids(session_id="s1") == {a.memory_id}
    assert ids(statuses=("active", "archived")) == {a.memory_id, b.memory_id, c.memory_id}
    vectors.set_status([c.memory_id], "active")
    assert c.memory_id in ids()


def test_scores_are_the_cosines_of_the_users_own_ids(vectors: VectorStore) -> None:
    """Scoring chosen ids in the index gives what fetching their vectors would, whatever their
    status, and never another tenant's point."""
    mine = [point("alice", i, status="archived" if i % 3 == 0 else "active") for i in range(12)]
    theirs = [point("bob", 100 + i) for i in range(12)]
    vectors.upsert(mine + theirs)
    q = unit(42)
    want = {p.memory_id: float(q @ p.vector) for p in mine[:7]}
    asked = [*want, theirs[0].memory_id, new_id()]
    got = vectors.scores(q, "alice", asked)
    assert set(got) == set(want)
    assert all(got[i] == pytest.approx(want[i], abs=1e-4) for i in want)
    assert vectors.scores(q, "alice", []) == {}


def test_delete_delete_user_vectors_and_ids(vectors: VectorStore) -> None:
    ps = [point("u", i) for i in range(5)] + [point("v", 9)]
    vectors.upsert(ps)
    got = vectors.vectors([ps[0].memory_id])
    assert np.allclose(got[ps[0].memory_id], ps[0].vector, atol=1e-5)
    vectors.delete([ps[0].memory_id])
    assert vectors.ids("u") == {p.memory_id for p in ps[1:5]}
    vectors.delete_user("u")
    assert vectors.count("u") == 0 and vectors.ids() == {ps[5].memory_id}


def test_edge_shard_persists_and_builds_its_index(tmp_path: Path) -> None:
    store = EdgeVectors(tmp_path / "edge", DIM, optimize_every=50)
    ps = [point("u", i) for i in range(120)]
    store.upsert(ps[:60])
    store.upsert(ps[60:])
    assert store.health()["ok"] is True
    store.close()
    with pytest.raises(StoreUnavailableError):
        store.search(unit(1), VectorFilter("u"), 3)
    reopened = EdgeVectors(tmp_path / "edge", DIM)
    assert reopened.count("u") == 120
    assert reopened.search(unit(7), VectorFilter("u"), 1)[0].memory_id == ps[7].memory_id
    reopened.close()
