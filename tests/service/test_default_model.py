"""multilingual-e5-small is the default embedder: a store created with the default settings
recalls Chinese and across languages by meaning; a store embedded by all-MiniLM-L6-v2 before
the switch keeps working with its own model until the operator re-embeds it; the cosine
thresholds follow the model."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.cli.doctor import diagnose
from graphmem.domain.requests import learned_fusion
from graphmem.embedding import DEFAULT_MODEL, MINILM, shared_embedder
from graphmem.usecases.backfill import EMBEDDING_META, rebuild
from tests.helpers.multilingual import CROSS_PAIRS, DISTRACTORS, ZH_PAIRS, top1

E5_ID = "multilingual-e5-small@int8"


def test_the_default_store_recalls_chinese_and_across_languages(tmp_path: Path) -> None:
    """Nothing configured: the default hybrid search finds Chinese paraphrases and answers an
    English question from a Chinese memory (all-MiniLM-L6-v2: 3 of 10 and 0 of 5)."""
    assert Settings().embedding.model == DEFAULT_MODEL == "multilingual-e5-small"
    for name, pairs, at_least in (("zh", ZH_PAIRS, 9), ("cross", CROSS_PAIRS, 3)):
        svc = MemoryService(Settings(data_dir=tmp_path / name))
        try:
            assert svc.records.meta(EMBEDDING_META) == E5_ID
            svc.write_many(
                "u", [{"content": a} for _, a in pairs] + [{"content": d} for d in DISTRACTORS]
            )
            assert top1(svc, pairs, None) >= at_least, name
        finally:
            svc.close()


def test_a_minilm_store_keeps_its_model_until_it_is_rebuilt(tmp_path: Path) -> None:
    data = tmp_path / "d"
    english = [
        ("Where does my sister live?", "My sister Anna moved to Lisbon for a job at a bank."),
        ("What pet did I adopt?", "I adopted a beagle called Max last spring."),
        ("What do I drink in the morning?", "I prefer green tea over coffee in the morning."),
    ]
    svc = MemoryService(Settings(data_dir=data, embedding={"model": MINILM}))
    svc.write_many("u", [{"content": a} for _, a in english])
    made_by = svc.records.meta(EMBEDDING_META)
    assert made_by is not None and made_by.startswith(MINILM)
    svc.close()

    # opened with the default settings: the store's own model, not e5 over MiniLM vectors
    svc = MemoryService(Settings(data_dir=data))
    try:
        assert svc.context.embedder.identity == made_by
        assert svc.context.merge_similarity == 0.95
        assert top1(svc, english, "vector=1") == len(english)
    finally:
        svc.close()
    emb = diagnose(Settings(data_dir=data))["embeddings"]
    assert emb["ok"] is True
    assert "backfill rebuild" in emb["hint"] and "multilingual-e5-small" in emb["hint"]

    # named explicitly, the setting wins; doctor flags the mismatch; rebuild migrates
    named = Settings(data_dir=data, embedding={"model": DEFAULT_MODEL})
    assert diagnose(named)["embeddings"]["ok"] is False
    svc = MemoryService(named)
    try:
        assert svc.context.embedder.identity == E5_ID
        rebuild(svc.context)
        assert svc.records.meta(EMBEDDING_META) == E5_ID
    finally:
        svc.close()
    svc = MemoryService(Settings(data_dir=data))  # and from now on the default opens it
    try:
        assert svc.context.embedder.identity == E5_ID
        assert top1(svc, english, None) == len(english)
    finally:
        svc.close()
    assert "hint" not in diagnose(Settings(data_dir=data))["embeddings"]


@pytest.mark.parametrize(
    ("model", "merge", "forget"), [(DEFAULT_MODEL, 0.965, 0.9), (MINILM, 0.95, 0.75)]
)
def test_cosine_thresholds_follow_the_model(
    tmp_path: Path, model: str, merge: float, forget: float
) -> None:
    """e5's unrelated texts score ~0.8, MiniLM's ~0.1: one number cannot mean "duplicate"
    for both. A setting still overrides the model's own."""
    emb = shared_embedder(model)
    svc = MemoryService(Settings(data_dir=tmp_path / "a", embedding={"model": model}), embedder=emb)
    try:
        assert (svc.context.merge_similarity, svc.context.forget_similarity) == (merge, forget)
    finally:
        svc.close()
    s = Settings(
        data_dir=tmp_path / "b",
        embedding={"model": model},
        lifecycle={"merge_similarity": 0.9, "forget_similarity": 0.5},
    )
    svc = MemoryService(s, embedder=emb)
    try:
        assert (svc.context.merge_similarity, svc.context.forget_similarity) == (0.9, 0.5)
    finally:
        svc.close()


def test_forget_by_query_reaches_the_memory_and_spares_the_rest(tmp_path: Path) -> None:
    """At the default model's own threshold a forget request takes the memory it names, and
    not the user's other memories on neighbouring topics."""
    svc = MemoryService(Settings(data_dir=tmp_path / "d"))
    try:
        target = "My dentist appointment is on Tuesday at 3 pm with Dr. Okafor."
        others = [
            "My sister Anna moved to Lisbon for a job at a bank.",
            "I see the eye doctor every two years.",
            "The car needs its yearly service on Tuesday.",
            "我喜欢喝龙井茶。",
        ]
        svc.write_many("u", [{"content": c} for c in [target, *others]])
        gone = svc.forget_by_query("u", "my dentist appointment on Tuesday", dry_run=True)
        assert [m.content for m in gone] == [target]
    finally:
        svc.close()


def test_auto_fusion_ranks_chinese_by_the_fitted_model(tmp_path: Path) -> None:
    """fusion=auto (the default) fuses a Chinese query with the fitted model and an English
    one with the weights. On the paraphrase fixture the weighted sum lets a shared 我喜欢 pull
    the tea memory above the film one; the fitted fusion does as well as the vector channel
    alone, which is the point: hybrid never below its best channel."""
    assert learned_fusion("auto", "我最喜欢哪部电影？") is True
    assert learned_fusion("auto", "What is my favourite film?") is False
    assert learned_fusion("learned", "What is my favourite film?") is True
    assert learned_fusion("weights", "我最喜欢哪部电影？") is False
    found = {}
    for fusion in ("auto", "weights"):
        svc = MemoryService(Settings(data_dir=tmp_path / fusion, ranking={"fusion": fusion}))
        try:
            svc.write_many(
                "u", [{"content": a} for _, a in ZH_PAIRS] + [{"content": d} for d in DISTRACTORS]
            )
            found[fusion] = (top1(svc, ZH_PAIRS, None), top1(svc, ZH_PAIRS, "vector=1"))
        finally:
            svc.close()
    assert found["auto"][0] >= found["auto"][1]  # hybrid >= its vector channel
    assert found["auto"][0] > found["weights"][0]
