"""The hop over the best hit's words (graphmem.usecases.term_bridge), on real stores.

The question names Priya and the evening; the best hit also says what she practises (the sitar),
and the memory about the sitar's teacher shares that word and nothing the question asks, no
entity with the best hit, and no session. Without the hop it is the last of eight; with it, it
comes beside the best hit, reached over the word.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.embedding import Embedder
from graphmem.stores.records import RecordQuery
from graphmem.usecases.term_bridge import similar

BEST = "Priya practises the sitar every evening."
TARGET = "The sitar teacher in Leeds charges forty pounds a lesson."
OTHERS = [
    "Priya goes jogging every morning before work.",
    "Every evening I walk the dog around the park.",
    "Priya's brother plays football on Sundays.",
    "I practise yoga at the weekend.",
    "Dinner is usually at seven in the evening.",
    "Priya bought a new violin case for her niece.",
]
QUERY = "Which instrument does Priya practise every evening?"


def _service(tmp_path: Path, embedder: Embedder, weight: float) -> MemoryService:
    return MemoryService(
        Settings(data_dir=tmp_path / f"data-{weight}", term_bridge_weight=weight),
        embedder=embedder,
    )


@pytest.fixture(params=[0.0, 0.75], ids=["off", "on"])
def written(
    request: pytest.FixtureRequest, tmp_path: Path, embedder: Embedder
) -> Iterator[tuple[MemoryService, str, str, float]]:
    svc = _service(tmp_path, embedder, request.param)
    best = svc.write("u", BEST)
    for text in OTHERS:
        svc.write("u", text)
    target = svc.write("u", TARGET)  # written last: no session-order edge to the best hit
    yield svc, best.id, target.id, request.param
    svc.close()


def test_a_memory_sharing_the_best_hits_rare_word_comes_beside_it(
    written: tuple[MemoryService, str, str, float],
) -> None:
    svc, best, target, weight = written
    hits = svc.search("u", QUERY, 4, track_access=False).hits
    ids = [h.memory.id for h in hits]
    assert ids[0] == best
    if not weight:
        assert target not in ids  # the walk and both channels leave it out
        return
    assert target in ids
    hit = hits[ids.index(target)]
    assert hit.score < hits[0].score  # never above the memory it was reached from
    assert [(s.source, s.relation_type) for s in hit.path] == [(best, "term")]
    assert hit.scores["term_bridge"] > 0


def test_the_hop_needs_the_walk(written: tuple[MemoryService, str, str, float]) -> None:
    svc, _, target, _ = written
    hits = svc.search("u", QUERY, 4, expand_hops=0, track_access=False).hits
    assert target not in [h.memory.id for h in hits]


def test_similar_reads_only_the_words_the_query_does_not_hold(
    tmp_path: Path, embedder: Embedder
) -> None:
    svc = _service(tmp_path, embedder, 0.75)
    try:
        best = svc.write("u", BEST)
        target = svc.write("u", TARGET)
        evening = svc.write("u", "Every evening I walk the dog around the park.")
        found = similar(svc.context, RecordQuery("u"), QUERY, best, 5)
        assert best.id not in found
        assert set(found) == {target.id}  # 'evening' is the query's own word: no hop over it
        assert 0 < found[target.id] <= 1
        assert evening.id not in found
    finally:
        svc.close()
