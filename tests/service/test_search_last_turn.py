"""A dialogue searched as a whole and by its last turn (graphmem.usecases.focus).

An agent that searches with the conversation it is in sends a few turns, one per line, then
what was just asked. Searched only as a whole, the earlier turns' words outweigh the question:
the memories the chat was about come first and the answer sinks. Real stores, default settings.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from graphmem import MemoryService
from graphmem.domain.requests import SearchResult
from graphmem.embedding import Embedder
from graphmem.settings import Settings
from graphmem.usecases.focus import last_turn

MEMORIES = [
    "We hiked the Dipsea trail from Mill Valley to Stinson Beach last weekend.",
    "The hiking boots from REI gave me blisters on the Dipsea trail.",
    "Next weekend we plan to hike the Matt Davis trail near Stinson Beach.",
    "My pasta sauce needs more garlic and a splash of the pasta water.",
    "The garlic bread recipe from Aunt Rosa uses butter and fresh parsley.",
    "My dentist is Dr. Okafor, her office number is 415-555-0134.",
    "The car's next oil change is due at 60,000 miles.",
    "我们上周末去爬了香山，山顶人特别多。",
    "下次爬山要带护膝，下山的时候膝盖疼。",
    "女儿的钢琴老师姓刘，每周六上午十点上课。",
]

DIALOGUES = [
    (
        "We hiked the Dipsea trail last weekend, my boots gave me blisters.\n"
        "Next weekend we want to hike near Stinson Beach again.\n"
        "Also the pasta sauce needed more garlic.\n"
        "What is my dentist's phone number?",
        "Dr. Okafor",
    ),
    (
        "上周末去爬香山了，人太多了。\n"
        "下山的时候膝盖一直疼，下次爬山得带护膝。\n"
        "女儿的钢琴课是星期几？",
        "钢琴老师",
    ),
]


@pytest.fixture
def store(tmp_path: Path, embedder: Embedder) -> Callable[[bool, str], SearchResult]:
    """The same memories in one store; a search with the last-turn search on or off (the store
    is opened for each, one process at a time, as a restarted server would)."""
    writer = MemoryService(Settings(data_dir=tmp_path / "d"), embedder=embedder)
    for text in MEMORIES:
        writer.write("alice", text, source="user")
    writer.close()

    def search(on: bool, query: str) -> SearchResult:
        svc = MemoryService(
            Settings(data_dir=tmp_path / "d", ranking={"search_last_turn": on}), embedder=embedder
        )
        try:
            return svc.search("alice", query, 3, track_access=False)
        finally:
            svc.close()

    return search


@pytest.mark.parametrize(("dialogue", "answer"), DIALOGUES)
def test_a_dialogue_finds_what_its_last_turn_asks(
    store: Callable[[bool, str], SearchResult], dialogue: str, answer: str
) -> None:
    assert answer in store(True, dialogue).hits[0].memory.content
    # searched only as a whole, the chat's topics come first (the mechanism's reason)
    assert answer not in store(False, dialogue).hits[0].memory.content


def test_a_one_line_query_is_searched_once_as_before(
    store: Callable[[bool, str], SearchResult],
) -> None:
    q = "What is my dentist's phone number?"
    on, off = store(True, q), store(False, q)
    assert [(h.memory.id, round(h.score, 5)) for h in on.hits] == [
        (h.memory.id, round(h.score, 5)) for h in off.hits
    ]


@pytest.mark.parametrize(
    ("query", "turn"),
    [
        ("What is my dentist's phone number?", None),
        ("We hiked.\nWhat is my dentist's number?", "What is my dentist's number?"),
        ("We hiked the Dipsea trail.\nok", None),
        ("上周去爬山了。\n嗯嗯", None),
        ("上周去爬山了。\n\n我牙医的电话？  ", "我牙医的电话？"),
        ("  \nWhat is my dentist's number?\n", None),
    ],
)
def test_the_last_turn_is_a_line_that_says_something(query: str, turn: str | None) -> None:
    assert last_turn(query) == turn
