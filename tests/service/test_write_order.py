"""Insertion order is the order: the graph a conversation gets does not depend on how its turns
were batched, nor on whether their timestamps are distinct.

An agent writes one turn per call; an import writes a whole conversation in one batch; a
transcript imported with per-session dates (or a coarse clock) gives every turn of a session the
same timestamp. All of these must build the same relations: a turn written later with the same
timestamp comes after the one written before it.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from graphmem import MemoryService
from graphmem.domain.model import Status
from graphmem.stores.records.sqlite import SQLiteRecords
from graphmem.usecases.backfill import backfill_relations

SESSIONS: list[tuple[datetime, list[str]]] = [
    (
        datetime(2023, 5, 8, 13, 56, tzinfo=UTC),
        [
            "Caroline: I went to the support group in Denver yesterday.",
            "Melanie: That sounds great! How was the support group?",
            "Caroline: It was powerful. Priya Raman told her story about leaving Acme.",
            "So she quit her job for good?",  # as an agent may write it: no speaker
            "Caroline: Yes, because Acme cut the Apollo project.",
            "Melanie: After the Apollo cuts, many engineers moved to Boulder.",
            "Caroline: Then Priya started painting again.",
            "Melanie: I love painting! I painted a sunset at Lake Tahoe last summer.",
        ],
    ),
    (
        datetime(2023, 5, 20, 10, 0, tzinfo=UTC),
        [
            "Caroline: I finally signed up with the adoption agency in Denver.",
            "Melanie: Wow, congratulations! Is it the agency Priya Raman recommended?",
            "Caroline: Yes. So I start the interviews next month.",
            "Melanie: My kids went camping at Lake Tahoe after school ended.",
            "Caroline: The Apollo team sent me a card because I helped them.",
            "Melanie: Then we should celebrate at the pottery class.",
            "Caroline: Therefore I booked the pottery class in Boulder for Friday.",
            "Melanie: Before Friday I will finish my sunset painting.",
        ],
    ),
]


def items(same_timestamps: bool) -> list[dict]:
    out = []
    for n, (date, turns) in enumerate(SESSIONS, 1):
        for i, text in enumerate(turns):
            at = date if same_timestamps else date + timedelta(seconds=i)
            out.append({"content": text, "created_at": at, "session_id": f"session_{n}"})
    return out


def relations(svc: MemoryService, user: str) -> set[tuple[str, str, str]]:
    """(source, target, type) by content: two stores' ids differ, their texts do not. A
    `related` edge is symmetric (stored from the larger id), so its ends are put in text order."""
    stored = svc.records.get(user, sorted(svc.records.all_ids(user)))
    text = {i: m.content for i, m in stored.items()}
    _, rels = svc.records.relations_page(0, 100_000, user)
    out = set()
    for r in rels:
        s, t = text[r.source_id], text[r.target_id]
        if r.relation_type == "related":
            s, t = sorted((s, t))
        out.add((s, t, r.relation_type))
    return out


@pytest.mark.parametrize("same_timestamps", [False, True], ids=["distinct", "same"])
def test_batch_and_single_ingest_build_the_same_relations(
    svc: MemoryService, same_timestamps: bool
) -> None:
    batch = items(same_timestamps)
    svc.write_many("batch", batch)
    for item in batch:
        svc.write_many("single", [item])
    got_batch, got_single = relations(svc, "batch"), relations(svc, "single")
    assert got_single == got_batch
    # each turn follows the one written before it in its session, equal timestamps or not
    for _date, turns in SESSIONS:
        for a, b in zip(turns, turns[1:], strict=False):
            assert (a, b, "temporal") in got_single
    # "So ..." opening a turn: caused by the turn before it
    turns = SESSIONS[0][1]
    assert (turns[2], turns[3], "causal") in got_single


def test_batches_of_any_size_build_the_same_relations(svc: MemoryService) -> None:
    every = items(same_timestamps=True)
    svc.write_many("whole", every)
    for i in range(0, len(every), 3):
        svc.write_many("threes", every[i : i + 3])
    assert relations(svc, "threes") == relations(svc, "whole")


def test_a_turn_dated_earlier_but_written_later_comes_after_what_was_written_before_it(
    svc: MemoryService,
) -> None:
    """The previous turn is the latest of those written before, by (timestamp, write order):
    a back-dated turn follows the latest turn not dated after it, whatever the batching."""
    at = datetime(2024, 1, 1, tzinfo=UTC)
    rows = [
        {"content": "Tea tasting with Wen at noon.", "created_at": at, "session_id": "s"},
        {"content": "Lunch with Omar at the harbour.", "created_at": at, "session_id": "s"},
        {"content": "Dinner at home.", "created_at": at + timedelta(hours=8), "session_id": "s"},
        {"content": "Coffee with Lena.", "created_at": at, "session_id": "s"},
    ]
    svc.write_many("batch", rows)
    for r in rows:
        svc.write("single", **r)
    got = relations(svc, "single")
    assert got == relations(svc, "batch")
    texts = [r["content"] for r in rows]
    assert {(s, d) for s, d, t in got if t == "temporal"} == {
        (texts[0], texts[1]),
        (texts[1], texts[2]),
        (texts[1], texts[3]),  # dated with the first two, written after them
    }


def test_relinking_stored_memories_finds_what_the_write_found(svc: MemoryService) -> None:
    """Re-running extraction over the store (`backfill relations`) links each memory as its
    write did: to what was written before it, never to itself or to what came later."""
    for item in items(same_timestamps=True):
        svc.write_many("u", [item])
    before = relations(svc, "u")
    report = backfill_relations(svc.context, user_id="u", batch=5, restart=True)
    assert report.memories == 16
    assert relations(svc, "u") == before


@pytest.mark.parametrize("batched", [False, True], ids=["single", "batch"])
def test_a_correction_corrects_the_turn_before_it_at_the_same_timestamp(
    svc: MemoryService, batched: bool
) -> None:
    """ "No, it's Friday" corrects the turn before it: in the same batch, or written before it
    with the same timestamp."""
    at = datetime(2024, 3, 7, 9, 30, tzinfo=UTC)
    turns = [
        {"content": "我们周四和审计师开会", "created_at": at, "session_id": "s"},
        {"content": "不对，是周五", "created_at": at, "session_id": "s"},
    ]
    if batched:
        meet, fix = svc.write_many("u", turns)
    else:
        meet, fix = (svc.write_many("u", [t])[0] for t in turns)
    assert svc.get("u", meet.id).status == Status.SUPERSEDED
    assert [m.id for m in svc.history("u", fix.id)] == [meet.id, fix.id]


def test_an_existing_store_gets_the_session_order_index(tmp_path: Path) -> None:
    """A store created before the (user, session, created_at) index gains it on open: the
    previous turn of a session is then one index step, not a sort of the user's memories."""
    path = tmp_path / "records.db"
    SQLiteRecords(path).close()
    db = sqlite3.connect(path)
    db.execute("DROP INDEX ix_memories_user_session_created")
    db.commit()
    db.close()
    store = SQLiteRecords(path)
    plan = store._fetch(
        "EXPLAIN QUERY PLAN SELECT id FROM memories WHERE user_id = ? AND session_id = ?"
        " AND created_at <= ? ORDER BY created_at DESC, doc_id DESC LIMIT 1",
        ("u", "s", "2024-01-01"),
    )
    store.close()
    assert "ix_memories_user_session_created" in str(plan) and "TEMP B-TREE" not in str(plan)
