"""Qdrant Edge's footprint: where vectors, HNSW graph and payload live, and the int8 copy."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest

from graphmem import MemoryService, Settings
from graphmem.domain.model import new_id
from graphmem.embedding import Embedder
from graphmem.stores.vectors import VectorFilter, VectorPoint
from graphmem.stores.vectors.edge import EdgeFootprint, EdgeVectors

DIM = 384
# Above Qdrant's indexing threshold (10 MB of vectors): the index build makes an HNSW segment,
# which is where quantisation and the placements of the built segments apply.
INDEXED = 7_500


def segments(path: Path) -> list[dict]:
    return [json.loads(f.read_text())["config"] for f in path.glob("segments/*/segment.json")]


def points(n: int, seed: int = 0) -> tuple[list[VectorPoint], np.ndarray]:
    vecs = np.random.default_rng(seed).normal(size=(n, DIM)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    now = time.time()
    pts = [VectorPoint(new_id(), v, "u", "fact", "active", now) for v in vecs]
    return pts, vecs


def test_unknown_placements_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="vectors: 'pinned'"):
        EdgeFootprint(vectors="pinned")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="quantization: 'int4'"):
        EdgeFootprint(quantization="int4")  # type: ignore[arg-type]


def test_cold_vectors_with_an_int8_copy_in_ram(tmp_path: Path) -> None:
    fp = EdgeFootprint(vectors="cold", hnsw="pinned", quantization="int8")
    store = EdgeVectors(tmp_path / "edge", DIM, optimize_every=INDEXED, footprint=fp)
    pts, vecs = points(INDEXED)
    for i in range(0, len(pts), 2500):
        store.upsert(pts[i : i + 2500])
    store.close()
    built = [
        s for s in segments(tmp_path / "edge") if s["vector_data"][""]["index"]["type"] == "hnsw"
    ]
    assert built, "the index build made no HNSW segment"
    for seg in built:
        data = seg["vector_data"][""]
        assert data["storage_type"] in ("ChunkedMmap", "Mmap")  # originals on disk, not cached
        assert data["quantization_config"]["scalar"]["type"] == "int8"
        assert data["index"]["options"]["memory"] == "pinned" or not data["index"]["options"].get(
            "on_disk", False
        )
    reopened = EdgeVectors(tmp_path / "edge", DIM, footprint=fp)
    try:
        assert reopened.health()["footprint"]["quantization"] == "int8"
        # rescored with the originals: each stored vector finds itself, with its exact cosine
        for i in (0, 17, 4321):
            top = reopened.search(vecs[i], VectorFilter("u"), 3)
            assert top[0].memory_id == pts[i].memory_id
            assert top[0].score == pytest.approx(1.0, abs=1e-4)
    finally:
        reopened.close()


def test_default_footprint_is_qdrants_own(tmp_path: Path) -> None:
    store = EdgeVectors(tmp_path / "edge", DIM, optimize_every=INDEXED)
    pts, _ = points(INDEXED, seed=1)
    for i in range(0, len(pts), 2500):
        store.upsert(pts[i : i + 2500])
    store.close()
    built = [
        s for s in segments(tmp_path / "edge") if s["vector_data"][""]["index"]["type"] == "hnsw"
    ]
    assert built
    for seg in built:
        assert seg["vector_data"][""]["storage_type"].startswith("InRam")  # cached: read on open
        assert seg["vector_data"][""]["quantization_config"] is None


def test_the_settings_reach_the_shard(tmp_path: Path, embedder: Embedder) -> None:
    settings = Settings(
        data_dir=tmp_path / "data",
        edge={
            "vectors_memory": "cold",
            "hnsw_memory": "cold",
            "payload_memory": "cached",
            "quantization": "int8",
        },
    )
    svc = MemoryService(settings, embedder=embedder)
    try:
        assert svc.vectors.health()["footprint"] == {
            "vectors": "cold",
            "hnsw": "cold",
            "payload": "cached",
            "quantization": "int8",
        }
        svc.write("alice", "Alice keeps a sourdough starter in the fridge")
        assert svc.search("alice", "sourdough starter", 1).hits[0].memory.user_id == "alice"
    finally:
        svc.close()
    config = json.loads((tmp_path / "data" / "vectors" / "edge_config.json").read_text())
    assert config["payload_memory"] == "cached"
    assert config["vectors"][""]["memory"] == "cold"
    assert config["vectors"][""]["quantization_config"]["scalar"]["type"] == "int8"
