"""The packaged embedders run on ONNX Runtime alone: no torch, no export; all-MiniLM-L6-v2's
file is checked by hash, its vectors agree with the torch reference, and a store it embedded
through the torch path (the `graphmem[torch]` extra) is flagged by `doctor` and migrated by
`backfill rebuild`. (The default model, multilingual-e5-small:
tests/service/test_default_model.py.)"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from graphmem import MemoryService, Settings
from graphmem.cli.doctor import diagnose
from graphmem.embedding import MINILM, Embedder, SentenceEmbedder, shared_embedder
from graphmem.embedding.minilm import (
    MODEL_SHA256,
    MiniLMEmbedder,
    ModelFileError,
    _checked,
    open_session,
)
from graphmem.usecases.backfill import EMBEDDING_META, rebuild

ROOT = Path(__file__).resolve().parents[2]
TEXTS = [
    "I adopted a beagle called Max last spring.",
    "My sister Anna moved to Lisbon for a job at a bank.",
    "Remind me to renew the car insurance before the 14th.",
    "We went hiking near Lake Tahoe and it rained all day.",
    "I prefer green tea over coffee in the morning.",
    "The quarterly report is due on Friday; Bob owns the charts.",
    "我喜欢喝龙井茶。",
    "",
    "word " * 400,  # longer than the model's 256 tokens: truncated, as sentence-transformers does
]

BLOCK_TORCH = """
import sys
class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"torch", "sentence_transformers", "transformers"}:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Refuse())
"""


@pytest.fixture(scope="module")
def minilm() -> Embedder:
    return shared_embedder(MINILM)


@pytest.mark.parametrize(
    ("model", "identity"),
    [
        (None, "multilingual-e5-small@int8"),
        (MINILM, f"all-MiniLM-L6-v2@int8:{MODEL_SHA256[:8]}"),
    ],
)
def test_packaged_embedders_need_no_torch(tmp_path: Path, model: str | None, identity: str) -> None:
    """With torch and sentence-transformers unimportable, the default service (and one on
    all-MiniLM-L6-v2) writes and finds a memory; nothing of theirs is loaded."""
    named = "" if model is None else f", embedding_model={model!r}"
    script = BLOCK_TORCH + textwrap.dedent(f"""
        from graphmem import MemoryService, Settings
        svc = MemoryService(Settings(data_dir={str(tmp_path / "d")!r}{named}))
        svc.write("u", "My dog is a beagle called Max.")
        hits = svc.search("u", "what breed is my dog?", top_k=1).hits
        svc.close()
        assert hits and "beagle" in hits[0].memory.content
        bad = [m for m in ("torch", "sentence_transformers", "transformers") if m in sys.modules]
        assert not bad, bad
        print("ok", svc.context.embedder.identity)
    """)
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["ok", identity]


def test_torch_model_without_the_extra_is_one_clear_error() -> None:
    script = BLOCK_TORCH + textwrap.dedent("""
        from graphmem.embedding import shared_embedder
        try:
            shared_embedder("all-MiniLM-L6-v2", query_runtime="torch")
        except Exception as e:
            print(type(e).__name__, e)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith("MissingExtraError ")
    assert "pip install 'graphmem[torch]'" in out.stdout and out.stdout.count("\n") == 1


def test_packaged_files_are_checked_by_hash() -> None:
    with pytest.raises(ModelFileError, match="not the pinned"):
        _checked(b"not the model", MODEL_SHA256, "model.onnx")


def test_rewritten_graph_is_cached_and_gives_the_same_vectors(tmp_path: Path) -> None:
    """The first process rewrites the graph and caches ONNX Runtime's optimised form of it; the
    next loads the cache (no onnx import) and embeds identically; a damaged cache is remade."""
    first = MiniLMEmbedder(graph_cache_dir=tmp_path)
    cached = list(tmp_path.glob("*.onnx"))
    assert len(cached) == 1 and cached[0].stat().st_size > 1_000_000
    again = MiniLMEmbedder(graph_cache_dir=tmp_path)
    vecs = first.encode(TEXTS)
    np.testing.assert_array_equal(vecs, again.encode(TEXTS))
    assert vecs.shape == (len(TEXTS), 384) and vecs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    ids = np.array([[101, 2026, 3899, 2003, 1037, 26892, 102]])  # "[CLS] my dog is a beagle"
    feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": ids * 0}
    from_cache = open_session(tmp_path, 1).run(None, feeds)[0]
    in_memory = open_session(None, 1).run(None, feeds)[0]  # never cached, fully optimised
    np.testing.assert_array_equal(from_cache, in_memory)
    cached[0].write_bytes(b"damaged")
    assert open_session(tmp_path, 1) is not None and cached[0].stat().st_size > 1_000_000
    np.testing.assert_array_equal(vecs, MiniLMEmbedder(graph_cache_dir=tmp_path).encode(TEXTS))


def test_a_vector_does_not_depend_on_its_batch(minilm: Embedder) -> None:
    alone = np.stack([minilm.encode([t])[0] for t in TEXTS])
    np.testing.assert_array_equal(alone, minilm.encode(TEXTS))
    np.testing.assert_array_equal(alone[0], minilm.encode_query(TEXTS[0]))


@pytest.mark.slow
def test_vectors_agree_with_the_torch_reference(minilm: Embedder) -> None:
    """Against sentence-transformers in float (the `graphmem[torch]` path): int8 costs the
    same agreement the torch export's int8 path had (median 0.993 on 400 LoCoMo turns)."""
    reference = SentenceEmbedder(query_runtime="torch").encode_torch(TEXTS)
    cos = (minilm.encode(TEXTS) * reference).sum(axis=1)
    assert np.median(cos) >= 0.99 and cos.min() >= 0.97, cos


@pytest.mark.slow
def test_store_of_the_torch_path_is_flagged_and_rebuilt(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Written by sentence-transformers (`query_runtime=torch`), opened with the default
    runtime: the vectors differ (cosine ~0.99, not 0.999), so doctor names both and rebuild
    migrates. (The store keeps its model: opened with no model named, it is MiniLM's.)"""
    data = tmp_path / "d"
    torch_side = shared_embedder(MINILM, query_runtime="torch")
    writer = Settings(data_dir=data, embedding={"model": MINILM, "query_runtime": "torch"})
    svc = MemoryService(writer, embedder=torch_side)
    svc.write_many("u", [{"content": t} for t in TEXTS if t])
    svc.close()
    report = diagnose(Settings(data_dir=data))["embeddings"]
    assert report["ok"] is False
    assert report["recorded_model"] == "all-MiniLM-L6-v2@fp32"
    assert report["configured_model"] == f"all-MiniLM-L6-v2@int8:{MODEL_SHA256[:8]}"
    assert "graphmem backfill rebuild" in report["hint"]
    with caplog.at_level("WARNING", logger="graphmem"):
        svc = MemoryService(Settings(data_dir=data))
    assert "another build of the same model, so searches work" in caplog.text
    try:
        assert rebuild(svc.context)["vectors"] == len(TEXTS) - 1
        assert svc.records.meta(EMBEDDING_META) == svc.context.embedder.identity
    finally:
        svc.close()
    after = diagnose(Settings(data_dir=data))["embeddings"]
    assert after["ok"] is True and after["median_cosine"] == pytest.approx(1.0)
