"""memory_search with explain=true: per hit, the channels before and after calibration, the
fused contributions, and for a hit the graph reached, the seed and every hop with its reason."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from graphmem import MemoryService, Settings
from graphmem.embedding import Embedder
from graphmem.mcp.server import create_server
from graphmem.stores import open_working
from tests.helpers.mcp import ok


@pytest.fixture
def svc(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Iterator[MemoryService]:
    service = MemoryService(
        Settings(
            data_dir=tmp_path_factory.mktemp("explain") / "data", ranking={"fusion": "learned"}
        ),
        embedder=embedder,
    )
    yield service
    service.close()


def test_explain_shape_over_mcp(svc: MemoryService) -> None:
    srv = create_server(
        svc, working=open_working("memory"), default_user=f"ex-{uuid.uuid4().hex}"
    )
    for text in (
        "Which instrument should I pick up this year?",
        "I started learning the cello in January; lessons are on Thursdays.",
        "The car needs a new timing belt before the long drive.",
    ):
        ok(srv, "memory_write", {"content": text, "memory_type": "fact", "session_id": "s1"})
    plain = ok(srv, "memory_search", {"query": "cello lessons", "top_k": 3})
    assert all("explain" not in h for h in plain["hits"])
    res = ok(srv, "memory_search", {"query": "cello lessons", "top_k": 3, "explain": True})
    top = next(h for h in res["hits"] if "cello" in h["content"])
    ex = top["explain"]
    assert ex["fusion"].startswith("learned")
    assert ex["language"] == "en"
    assert set(ex["raw"]) == set(ex["calibrated"]) == {"vector", "keyword"}
    assert ex["raw"]["keyword"] > 0 and 0 < ex["calibrated"]["keyword"] < 1
    assert ex["ranks"]["keyword"] == 0
    assert all(v >= 0 for v in ex["contributions"].values())
    for h in res["hits"]:
        walk = h["explain"].get("walk")
        if walk:
            assert walk["seed"]["memory_id"] and walk["steps"][0]["hop"] == 1
            assert {"from", "to", "type", "why", "carried"} <= set(walk["steps"][0])
