"""Embeddings: the ONNX Runtime path gives the model's own vectors (queries and batches), and
falls back to torch."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from graphmem.embedding import MINILM, SentenceEmbedder, resolve_model_path, shared_embedder
from graphmem.embedding.onnx import OnnxQueryEncoder

QUERIES = ["where did I park the car?", "我刚才说的那个项目你觉得风险点在哪", "Apollo budget"]


def test_onnx_queries_match_the_torch_model(tmp_path: Path) -> None:
    torch_side = shared_embedder(MINILM, query_runtime="torch")
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
    onnx = SentenceEmbedder(query_runtime="onnx", onnx_cache_dir=tmp_path, precision="fp32")
    plain = SentenceEmbedder(query_runtime="torch")
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
    e = SentenceEmbedder(query_runtime="onnx", onnx_cache_dir=tmp_path, precision="fp32")
    got = e.encode(texts)
    assert e.query_backend == "onnx"
    want = e.encode_torch(texts)
    assert got.shape == want.shape == (len(texts), e.dim)
    assert got.dtype == np.float32
    cos = (got * want).sum(axis=1)
    assert float(cos.min()) > 0.9999, cos.argmin()
    assert e.encode([]).shape == (0, e.dim)


def test_a_model_onnx_cannot_take_keeps_torch(tmp_path: Path) -> None:
    e = shared_embedder(MINILM, query_runtime="torch")
    # the pipeline check refuses anything but transformer + mean pooling (+ normalise)
    assert OnnxQueryEncoder.build(list(e._model)[:1], "/nonexistent", tmp_path, 1) is None
    assert not list(tmp_path.iterdir())


def test_int8_precision_quantises_once_and_stays_close(tmp_path: Path) -> None:
    """The int8 variant is made from the local export (nothing fetched), cached beside it, and
    its vectors stay close enough to the float model's to rank the same neighbours."""
    full = SentenceEmbedder(query_runtime="onnx", onnx_cache_dir=tmp_path, precision="fp32")
    q8 = SentenceEmbedder(query_runtime="onnx", onnx_cache_dir=tmp_path)  # the default
    texts = [
        *QUERIES,
        "I parked the car on level 3 of the airport garage.",
        "张三负责医疗行业的债务风险分析项目。",
        "The Apollo budget was cut by ten percent this quarter.",
        "Bob fixed the billing bug on Friday night.",
        "The billing service crashed again after Bob's fix.",
        "My sister adopted a grey cat called Miso.",
        "We adopted a kitten from the shelter last spring.",
    ]
    a, b = full.encode(texts), q8.encode(texts)
    assert q8.query_backend == "onnx"
    names = sorted(p.name for p in tmp_path.glob("*.onnx"))
    assert len(names) == 2 and sum(n.endswith("-int8.onnx") for n in names) == 1, names
    # 7-bit weights: an AVX2 CPU's uint8 x int8 kernel adds pairs of products in 16 bits, which
    # full-range weights saturate, so vectors differed between CPUs (graphmem.embedding.onnx)
    import onnx
    from onnx import numpy_helper

    q8_file = next(p for p in tmp_path.glob("*.onnx") if p.name.endswith("-int8.onnx"))
    weights = [
        numpy_helper.to_array(t)
        for t in onnx.load(str(q8_file)).graph.initializer
        if t.data_type == onnx.TensorProto.INT8
    ]
    assert weights and max(int(np.abs(w.astype(np.int16)).max()) for w in weights) <= 64
    assert b.shape == a.shape and b.dtype == np.float32
    assert np.allclose(np.linalg.norm(b, axis=1), 1.0, atol=1e-5)
    cos = (a * b).sum(axis=1)
    assert float(cos.min()) > 0.97, cos
    assert float(cos.min()) < 0.99999, "the int8 model really is a different model"
    # each text's nearest other text is the same under both precisions
    sa, sb = a @ a.T, b @ b.T
    np.fill_diagonal(sa, -1)
    np.fill_diagonal(sb, -1)
    assert (sa.argmax(axis=1) == sb.argmax(axis=1)).all()
    # a vector depends on its text only, not on the batch it came in, and equals the query's
    again = SentenceEmbedder(query_runtime="onnx", onnx_cache_dir=tmp_path, precision="int8")
    assert np.allclose(again.encode(texts[3:5]), b[3:5], atol=1e-6)
    assert np.allclose(again.encode_query(texts[4], "u"), b[4], atol=1e-6)
    assert len(list(tmp_path.glob("*.onnx"))) == 2, "reused, not quantised again"
