"""The document benchmark's data and scoring: every quote and dia_id exists, evidence matching,
merging and the paired bootstrap behave, and one small end-to-end run once documents exist."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))
import docs  # noqa: E402
from docs import Hit, load_questions, merge_hits, paired_bootstrap, score  # noqa: E402

DATA = Path(
    os.environ.get("LOCOMO_DATA", BENCH.parent.parent / "shared" / "bench" / "locomo10.json")
)
QUESTIONS = BENCH / "docbench" / "questions.json"


def doc(page: str, content: str, s: float = 0.5) -> Hit:
    return Hit("document", None, f"/abs/bench/docbench/pages/{page}", content, s)


def turn(dia: str, s: float = 0.5) -> Hit:
    return Hit("memory", dia, None, f"Speaker: {dia}", s)


def test_questions_load_and_every_quote_is_in_its_page() -> None:
    questions = load_questions(QUESTIONS)
    assert len(questions) >= 60
    types = {t: sum(q["type"] == t for q in questions) for t in docs.TYPES}
    assert all(types.values()), types
    for q in questions:
        if q["type"] == "doc":
            assert q["evidence"]["pages"] and not q["evidence"]["turns"], q["id"]
        if q["type"] == "mixed":
            assert q["evidence"]["pages"] and q["evidence"]["turns"], q["id"]
        if q["type"] == "turn":
            assert q["evidence"]["turns"] and not q["evidence"]["pages"], q["id"]


def test_pages_have_a_title_sections_and_a_sane_length() -> None:
    pages = sorted((BENCH / "docbench" / "pages").glob("*/*.md"))
    assert len(pages) >= 36
    for page in pages:
        text = page.read_text("utf-8")
        assert text.startswith("# "), page
        assert 2 <= len(re.findall(r"^#{2,3} ", text, re.M)) <= 6, page
        assert 250 <= len(text.split()) <= 900, page


def test_a_bad_quote_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "pages" / "c").mkdir(parents=True)
    (tmp_path / "pages" / "c" / "p.md").write_text("# T\n\nOne paragraph.\n\nAnother one.\n")
    q: dict[str, Any] = {"id": "x", "sample_id": "c", "question": "?", "answer": "!", "type": "doc"}
    q["evidence"] = {"turns": [], "pages": [{"page": "c/p.md", "quote": "paragraph.\n\nAnother"}]}
    (tmp_path / "questions.json").write_text(json.dumps([q]))
    with pytest.raises(docs.DataError, match="not inside one paragraph"):
        load_questions(tmp_path / "questions.json")


@pytest.mark.skipif(not DATA.exists(), reason=f"LoCoMo data not at {DATA} (set LOCOMO_DATA)")
def test_every_evidence_dia_id_exists_in_its_conversation() -> None:
    from locomo import load_locomo

    questions = load_questions(QUESTIONS)
    convs = sorted({q["sample_id"] for q in questions})
    turns, _, _ = load_locomo(DATA, convs, captions=False)
    known = {c: {t.dia_id for t in ts} for c, ts in turns.items()}
    missing = [
        (q["id"], d)
        for q in questions
        for d in q["evidence"]["turns"]
        if d not in known[q["sample_id"]]
    ]
    assert not missing


def test_score_matches_turns_by_dia_id_and_pages_by_uri_and_quote() -> None:
    ev = {"turns": ["D1:3"], "pages": [{"page": "conv-1/a.md", "quote": "founded in  2014 by"}]}
    right = doc("conv-1/a.md", "Title\nThe group was founded in\n2014 by Renata.")
    wrong_page = doc("conv-1/b.md", "The group was founded in 2014 by Renata.")
    wrong_chunk = doc("conv-1/a.md", "Meetings are on Sundays.")
    hits = [
        wrong_page,
        wrong_chunk,
        turn("D1:4"),
        turn("D1:3"),
        *[turn(f"D9:{i}") for i in range(5)],
        right,
    ]
    s = score(hits, ev)
    assert s["recall@5"] == 0.5 and s["hit@5"] == 1.0 and s["all@5"] == 0.0
    assert s["recall@10"] == 1.0 and s["all@10"] == 1.0
    # a document hit never satisfies a turn, nor a memory a page
    assert score([Hit("document", "D1:3", None, "", 1.0)], ev)["hit@10"] == 0.0
    # a page path must match whole path components, not just a name suffix
    assert score([doc("xconv-1/a.md", "founded in 2014 by")], ev)["hit@10"] == 0.0


def test_merge_orders_by_score_and_keeps_k() -> None:
    a = [turn("D1:1", 0.9), turn("D1:2", 0.4)]
    b = [doc("c/p.md", "x", 0.7), doc("c/q.md", "y", 0.4)]
    merged = merge_hits(a, b, 3)
    assert [h.label() for h in merged] == ["turn:D1:1", "doc:p.md", "turn:D1:2"]
    assert len(merge_hits(a, b, 10)) == 4


def test_paired_bootstrap_is_seeded_and_brackets_the_mean() -> None:
    rows: list[dict[str, Any]] = [
        {"scores": {"a": {"recall@10": x}, "b": {"recall@10": 0.5}}} for x in (1.0, 0.5, 0.0, 1.0)
    ]
    first = paired_bootstrap(rows, "a", "b", "recall@10")
    assert first == paired_bootstrap(rows, "a", "b", "recall@10")
    assert first["delta"] == pytest.approx(0.125)
    assert first["ci95"][0] <= first["delta"] <= first["ci95"][1]
    assert (first["better"], first["worse"]) == (2, 1)


def _has_documents() -> bool:
    from graphmem.service import MemoryService

    return hasattr(MemoryService, "ingest")


@pytest.mark.skipif(not DATA.exists(), reason=f"LoCoMo data not at {DATA} (set LOCOMO_DATA)")
def test_end_to_end_on_one_conversation(tmp_path: Path) -> None:
    if not _has_documents():
        pytest.skip("MemoryService.ingest (documents) is not in this graphmem yet")
    out = tmp_path / "r.json"
    assert (
        docs.main(
            ["--data", str(DATA), "--conversations", "conv-26", "--out", str(out), "--no-progress"]
        )
        == 0
    )
    result = json.loads(out.read_text())
    assert result["ingest"]["chunks"] > 0
    summary = result["summary"]
    # each restricted mode can only find its own kind of evidence
    assert summary["memory"]["doc"]["hit@10"] == 0.0
    assert summary["document"]["turn"]["hit@10"] == 0.0
    assert summary["fused"]["overall"]["recall@10"] > 0.3
