"""Learned fusion (graphmem.domain.fusion): channels calibrated to what the query could reach.

Before, the keyword channel was a hit's BM25 over the query's best hit, so a query that shared
one character with a memory gave that memory the whole keyword channel (1.0)."""

from __future__ import annotations

from pathlib import Path

from graphmem import MemoryService, Settings
from graphmem.domain import fusion
from graphmem.embedding import Embedder


def test_query_language() -> None:
    assert fusion.language("我姐姐在哪里工作？") == "zh"
    assert fusion.language("Where does 王伟 work these days?") == "en"
    assert fusion.language("Alice在哪个科室上班") == "zh"


def test_every_shipped_model_keeps_a_one_term_match_below_a_full_match() -> None:
    assert fusion.models(), "graphmem/domain/fusion_weights.json ships with the package"
    for model in [*fusion.models().values(), fusion.BUILTIN]:
        one = model.keyword(3.0, 6)  # one shared term of a six-term query
        full = model.keyword(6 * 3.0, 6)  # every term matched
        assert one < 1.0 and one < full
        assert abs(sum(model.weights.values()) - 1.0) < 1e-6


def test_one_shared_character_cannot_fill_the_keyword_channel(
    tmp_path: Path, embedder: Embedder
) -> None:
    svc = MemoryService(
        Settings(
            data_dir=tmp_path / "data", cache={"ttl_seconds": 0}, ranking={"fusion": "learned"}
        ),
        embedder=embedder,
    )
    try:
        svc.write("u", "我对花生过敏，买零食要看配料表。")
        svc.write("u", "团队站会改到每天早上九点半。")
        hits = svc.search("u", "下周去上海出差要订哪家酒店", 5, expand_hops=0).hits
        keyword = max((h.scores.get("keyword", 0.0) for h in hits), default=0.0)
        assert keyword < 0.9  # '上' is all it shares with the stand-up memory
        full = svc.search("u", "团队站会改到几点", 1, expand_hops=0).hits[0]
        assert full.scores["keyword"] > keyword
    finally:
        svc.close()
