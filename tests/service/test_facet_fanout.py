"""Facet fan-out through the real service and stores (graphmem.usecases.fanout): a list
question about a person reaches that person's memories of the kind it asks for, in whatever
session they were said, and every such hit says how it got there.

"What activities does Melanie do?" shares no word with "I'm off to go swimming with the kids":
the hybrid search ranks turns that say "activities" first, and the walk from them does not
reach the swimming turn of another session. The activity facet does.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.domain.facets import facets_asked
from graphmem.domain.requests import SearchRequest
from graphmem.embedding import Embedder

USER = "fanout"
QUERY = "What activities does Melanie do?"
# Melanie's activities, one per session, none saying "activities"
ANSWERS = {
    "session_1": "Melanie: Self-care is vital. I'm off to go swimming with the kids.",
    "session_2": "Melanie: We had a quiet weekend after we went camping with my family.",
    "session_3": "Melanie: I just signed up for a pottery class yesterday, it's like therapy.",
}
# Turns the query matches by its words, or that are Caroline's, or Melanie's but no activity
OTHERS = {
    "session_1": [
        "Caroline: The centre has lots of activities for the kids this summer.",
        "Melanie: What activities does your group run on Fridays?",
        "Caroline: Mostly talks. Activities like that do me good.",
        "Melanie: My boss says the team activities budget was cut again.",
    ],
    "session_2": [
        "Caroline: I went swimming at the lake with my friends.",
        "Melanie: Work has been hectic, so many meetings this week.",
        "Caroline: Which activities do you like best?",
        "Melanie: Activities at the school fair were fun to watch.",
    ],
    "session_3": [
        "Caroline: I'm going camping next month with the support group.",
        "Melanie: The kids' school sends a list of activities every month.",
        "Caroline: What does Melanie do on weekends? I wonder about her activities.",
        "Melanie: My sister called about the family reunion in June.",
    ],
}


@pytest.fixture
def svc(tmp_path: Path, embedder: Embedder) -> Iterator[MemoryService]:
    service = MemoryService(Settings(data_dir=tmp_path / "data"), embedder=embedder)
    start = datetime(2024, 5, 1, 10, tzinfo=UTC)
    for n, session in enumerate(sorted(ANSWERS)):
        day = start + timedelta(days=7 * n)
        turns = [*OTHERS[session][:2], ANSWERS[session], *OTHERS[session][2:]]
        for i, text in enumerate(turns):
            service.write(USER, text, session_id=session, created_at=day + timedelta(seconds=i))
    yield service
    service.close()


def contents(svc: MemoryService, **kw: object) -> list[str]:
    request = SearchRequest(query=QUERY, top_k=10, track_access=False, **kw)  # type: ignore[arg-type]
    return [h.memory.content for h in svc.search_request(USER, request).hits]


def test_a_list_question_reaches_the_persons_activities_in_three_sessions(
    svc: MemoryService,
) -> None:
    found = contents(svc)
    assert set(ANSWERS.values()) <= set(found[:8]), found


def test_without_the_graph_the_hybrid_search_misses_them(svc: MemoryService) -> None:
    # what the fan-out adds: with expand_hops=0 (no walk, no fan-out) at least one answer
    # is outside the top 8
    found = contents(svc, expand_hops=0)
    assert not set(ANSWERS.values()) <= set(found[:8]), found


def test_a_fanned_out_hit_says_its_facet_step(svc: MemoryService) -> None:
    request = SearchRequest(query=QUERY, top_k=10, track_access=False, explain=True)
    hits = svc.search_request(USER, request).hits
    facet = [h for h in hits if h.path and h.path[0].relation_type == "facet"]  # type: ignore[attr-defined]
    assert facet, [h.memory.content for h in hits]
    for h in facet:
        d = h.to_dict()
        assert d["path"][0]["type"] == "facet"
        assert d["path"][0]["to"] == h.memory.id
        walk = d["explain"]["walk"]
        assert walk["steps"][0]["type"] == "facet"
        assert "activity" in walk["steps"][0]["why"] and "Melanie" in walk["steps"][0]["why"]
        assert h.memory.content.startswith("Melanie:")


def test_a_single_fact_question_is_not_fanned_out(svc: MemoryService) -> None:
    request = SearchRequest(
        query="Where did Melanie go camping?", top_k=10, track_access=False, explain=True
    )
    hits = svc.search_request(USER, request).hits
    assert not [h for h in hits if h.path and h.path[0].relation_type == "facet"]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("question", "facet"),
    [
        ("What activities does Melanie partake in?", "activity"),
        ("What are Melanie's hobbies?", "activity"),
        ("她有哪些爱好？", "activity"),
        ("Which books has Melanie read?", "book"),
        ("What instruments does Melanie play?", "music"),
        ("What pets does Melanie have?", "pet"),
        ("Which cities has Jon visited?", "place"),
        ("他都去过哪些城市？", "place"),
        ("What LGBTQ+ events has Caroline participated in?", "event"),
    ],
)
def test_a_list_question_names_its_facet(question: str, facet: str) -> None:
    assert facet in [f.name for f in facets_asked(question)]


def test_a_single_fact_question_names_no_facet() -> None:
    # 'book' is a facet word, but one book is asked for: the best match answers it
    assert facets_asked("What book did Melanie read from Caroline's suggestion?") == ()
