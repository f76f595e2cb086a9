"""The vector channel is rescaled above the cosine that means "unrelated" for the model in use.

Without it a model whose cosines sit high (multilingual-e5: unrelated ~0.8, paraphrase ~0.9)
separates answers from noise by hundredths in the fused score, while the keyword channel spans
0-1; the floor puts every model's vector channel on the same 0-1 footing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.domain.ranking import above_floor
from graphmem.embedding import Embedder


def test_above_floor_maps_the_floor_to_zero_and_one_to_one() -> None:
    assert above_floor(0.3, 0.0) == pytest.approx(0.3)
    assert above_floor(-0.2, 0.0) == 0.0
    assert above_floor(0.7, 0.7) == 0.0
    assert above_floor(0.6, 0.7) == 0.0
    assert above_floor(0.85, 0.7) == pytest.approx(0.5)
    assert above_floor(1.0, 0.7) == pytest.approx(1.0)


@pytest.mark.parametrize("floor", [None, 0.5])
def test_search_reports_the_rescaled_vector_channel(
    tmp_path: Path, embedder: Embedder, floor: float | None
) -> None:
    settings = Settings(data_dir=tmp_path / "data", vectors={"score_floor": floor})
    svc = MemoryService(settings, embedder=embedder)
    try:
        svc.write("u", "I like green tea in the morning.")
        hit = svc.search("u", "Which tea do I drink?", top_k=1, weights="vector=1").hits[0]
        cosine = float(
            embedder.encode_query("Which tea do I drink?")
            @ embedder.encode([hit.memory.content])[0]
        )
        expected = above_floor(cosine, embedder.score_floor if floor is None else floor)
        assert hit.scores["vector"] == pytest.approx(expected, abs=0.02)
        if floor:
            assert hit.scores["vector"] < cosine - 0.05
    finally:
        svc.close()
