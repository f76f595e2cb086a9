"""A query that names a person wants that person's own statements.

In a conversation stored one turn per memory, the other speaker's turns share the topic and
often the name ("Have you been painting lately, Melanie?"), so similarity alone ranks them as
high as the named person's own answer. `subject_boost` ranks a turn whose speaker the query names
above them (graphmem.extractors.subjects); notes that merely open with a name are not boosted.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.embedding import Embedder
from graphmem.extractors.subjects import named_in, subject_of


@pytest.mark.parametrize(
    ("content", "subject"),
    [
        ("Melanie: I went camping with the kids", "Melanie"),
        ("Jon Ortiz: the studio opens in June", "Jon Ortiz"),
        ("晓芸：我明天到南京", "晓芸"),
        # a name a note opens with is no speaker: "Bea works as ..." is no more Bea's than
        # "Ann's sister Bea lives in Lisbon"
        ("Melanie took the kids camping", None),
        ("Caroline's mentor called", None),
        ("The kids love the beach", None),
        ("I live in Austin", None),
        ("Note: buy milk", None),
        ("password: hunter2", None),
        ("我老家是九江的", None),
        ("Remember: the standup moved", None),
    ],
)
def test_subject_of(content: str, subject: str | None) -> None:
    assert subject_of(content) == subject


def test_named_in_whole_words_and_first_names() -> None:
    assert named_in("What activities does Melanie partake in?", "Melanie")
    assert named_in("What does Melanie do?", "Melanie Smith")
    assert not named_in("What do the Melanies do?", "Melanie")
    assert named_in("晓芸的老公是做什么的？", "晓芸")


TURNS = [
    "Caroline: Have you been painting lately, Melanie? I loved your lake painting.",
    "Melanie: Yes! Last week I painted a sunset over the lake with the kids.",
    "Caroline: I painted a mural of a lake sunset at the youth center.",
    "Melanie: We also went camping in the mountains.",
    "Caroline: My support group meets on Tuesdays.",
]


def test_a_note_opening_with_a_name_is_not_boosted(tmp_path: Path, embedder: Embedder) -> None:
    svc = MemoryService(Settings(_env_file=None, data_dir=tmp_path), embedder=embedder)
    svc.write("n", "Bea works as a marine biologist")
    home = svc.write("n", "Ann's sister Bea lives in Lisbon")
    hits = svc.search("n", "where does Bea live", 2, track_access=False).hits
    assert hits[0].memory.id == home.id and not any("subject" in h.scores for h in hits)
    svc.close()


def _top(svc: MemoryService, user: str, query: str) -> str:
    return svc.search(user, query, 3, track_access=False).hits[0].memory.content


@pytest.mark.parametrize("boost", [0.3, 0.0])
def test_the_named_speakers_own_turn_ranks_first(
    tmp_path: Path, embedder: Embedder, boost: float
) -> None:
    svc = MemoryService(
        Settings(_env_file=None, data_dir=tmp_path, ranking={"subject_boost": boost}),
        embedder=embedder,
    )
    svc.write_many("c", [{"content": t, "memory_type": "event"} for t in TURNS])
    top = _top(svc, "c", "What has Melanie painted?")
    if boost:
        assert top == TURNS[1]
        hit = svc.search("c", "What has Melanie painted?", 3, track_access=False).hits[0]
        assert hit.scores["subject"] == pytest.approx(1.3)
        # a query that names nobody ranks as before
        assert "subject" not in svc.search("c", "lake sunset painting", 1).hits[0].scores
    else:  # without it, the other speaker's turn about the same painting ranks first
        assert top != TURNS[1]
    svc.close()
