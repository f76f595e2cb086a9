"""The vector port, the same tests on Qdrant Edge and on qdrant-client (local mode), and on a
real Qdrant server or cluster when GRAPHMEM_TEST_QDRANT_URL names one (scripts/qdrant.sh
starts one from a Qdrant binary): auto-sharded, and with users hashed into shard groups."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from graphmem.domain.model import new_id
from graphmem.errors import StoreUnavailableError
from graphmem.stores.vectors import VectorFilter, VectorPoint, VectorStore
from graphmem.stores.vectors.edge import EdgeVectors
from graphmem.stores.vectors.qdrant import QdrantLayout, QdrantServerVectors

DIM = 8


def qdrant_server() -> str:
    url = os.environ.get("GRAPHMEM_TEST_QDRANT_URL")
    if not url:
        pytest.skip("no Qdrant server: scripts/qdrant.sh start, then GRAPHMEM_TEST_QDRANT_URL")
    return url


def server_layout(groups: int) -> QdrantLayout:
    """Shard groups and, on a cluster (GRAPHMEM_TEST_QDRANT_REPLICAS), that many replicas."""
    replicas = int(os.environ.get("GRAPHMEM_TEST_QDRANT_REPLICAS", "1"))
    return QdrantLayout(
        shard_groups=groups, shards=2, replication_factor=replicas, write_consistency=replicas
    )


@pytest.fixture(params=["edge", "qdrant-client", "qdrant-server", "qdrant-server-groups"])
def vectors(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[VectorStore]:
    if request.param == "edge":
        store: VectorStore = EdgeVectors(tmp_path / "edge", DIM)
    elif request.param == "qdrant-client":
        store = QdrantServerVectors(":memory:", None, "test", DIM)
    else:
        url, name = qdrant_server(), f"graphmem_test_{uuid.uuid4().hex[:10]}"
        layout = server_layout(4 if request.param.endswith("groups") else 0)
        server = QdrantServerVectors(url, None, name, DIM, layout)
        yield server
        server.client.delete_collection(name)
        server.close()
        return
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


def test_a_users_points_live_in_their_shard_group_only() -> None:
    url, name = qdrant_server(), f"graphmem_test_{uuid.uuid4().hex[:10]}"
    store = QdrantServerVectors(url, None, name, DIM, server_layout(4))
    try:
        users = [f"user{i}" for i in range(12)]
        store.upsert([point(u, i * 10 + k) for i, u in enumerate(users) for k in range(3)])
        for u in users:
            home = store.layout.group(u)
            for g in (f"g{i}" for i in range(4)):
                n = store.client.count(
                    name, count_filter=_user(u), exact=True, shard_key_selector=g
                ).count
                assert n == (3 if g == home else 0), (u, g, n)
        assert len({store.layout.group(u) for u in users}) > 1  # users spread over groups
        # An unsharded search (no shard key) finds exactly what the grouped one does.
        hits = store.search(unit(0), VectorFilter("user0"), 3)
        assert len(hits) == 3 and hits[0].score == pytest.approx(1, abs=1e-4)
    finally:
        store.client.delete_collection(name)
        store.close()


def test_reopening_with_another_number_of_groups_is_refused_by_name() -> None:
    url, name = qdrant_server(), f"graphmem_test_{uuid.uuid4().hex[:10]}"
    store = QdrantServerVectors(url, None, name, DIM, server_layout(3))
    try:
        with pytest.raises(ValueError, match="has 3 shard groups but qdrant_shard_groups is 5"):
            QdrantServerVectors(url, None, name, DIM, server_layout(5))
        QdrantServerVectors(url, None, name, DIM, server_layout(3)).close()
    finally:
        store.client.delete_collection(name)
        store.close()


def test_shard_groups_need_a_server() -> None:
    with pytest.raises(ValueError, match="needs a Qdrant server"):
        QdrantServerVectors(":memory:", None, "test", DIM, QdrantLayout(shard_groups=2))


def _user(user_id: str) -> Any:
    from qdrant_client import models

    return models.Filter(
        must=[models.FieldCondition(key="user_id", match=models.MatchValue(value=user_id))]
    )
