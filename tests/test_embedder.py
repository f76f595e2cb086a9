"""Embeddings: the ONNX Runtime path gives the model's own vectors (queries and batches), and
falls back to torch."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from graphmem.embed_onnx import OnnxQueryEncoder
from graphmem.embedder import Embedder, resolve_model_path, shared_embedder

QUERIES = ["where did I park the car?", "我刚才说的那个项目你觉得风险点在哪", "Apollo budget"]


def test_onnx_queries_match_the_torch_model(tmp_path: Path) -> None:
    torch_side = shared_embedder()
    enc = OnnxQueryEncoder.build(
        torch_side._model, resolve_model_path(torch_side.model_name), tmp_path, 1
    )
    assert enc is not None
    assert list(tmp_path.glob("*.onnx")), "the export is cached for the next process"
    for q in QUERIES:
        got = enc.encode([q])[0]
        want = torch_side.encode_torch([q])[0]
        assert got.shape == want.shape == (torch_side.dim,)
        assert abs(float(np.linalg.norm(got)) - 1.0) < 1e-5
        assert float(got @ want) > 0.9999


def test_encode_query_uses_onnx_and_torch_when_asked(tmp_path: Path) -> None:
    onnx = Embedder(query_runtime="onnx", onnx_cache_dir=tmp_path)
    plain = Embedder(query_runtime="torch")
    a, b = onnx.encode_query(QUERIES[0], "u"), plain.encode_query(QUERIES[0], "u")
    assert (onnx.query_backend, plain.query_backend) == ("onnx", "torch")
    assert float(a @ b) > 0.9999


def test_onnx_batches_match_torch_in_order(tmp_path: Path) -> None:
    """Write batches: texts of very different lengths (sorted and bucketed inside), Chinese,
    a text past the 256-token limit (truncated the same way), one word; order is kept."""
    texts = [
        *QUERIES,
        "ok",
        "Caroline went to the LGBTQ support group on 7 May 2023 and felt really accepted there.",
        "我们下周去上海见华为公司的张三，讨论阿波罗项目的预算和时间表。",
        " ".join(["The quarterly report covers revenue, churn, hiring and the new office."] * 40),
        *(f"Memory number {i}: Bob fixed the {i}th bug in the billing service." for i in range(40)),
    ]
    e = Embedder(query_runtime="onnx", onnx_cache_dir=tmp_path)
    got = e.encode(texts)
    assert e.query_backend == "onnx"
    want = e.encode_torch(texts)
    assert got.shape == want.shape == (len(texts), e.dim)
    assert got.dtype == np.float32
    cos = (got * want).sum(axis=1)
    assert float(cos.min()) > 0.9999, cos.argmin()
    assert e.encode([]).shape == (0, e.dim)


def test_a_model_onnx_cannot_take_keeps_torch(tmp_path: Path) -> None:
    e = shared_embedder()
    # the pipeline check refuses anything but transformer + mean pooling (+ normalise)
    assert OnnxQueryEncoder.build(list(e._model)[:1], "/nonexistent", tmp_path, 1) is None
    assert not list(tmp_path.iterdir())
