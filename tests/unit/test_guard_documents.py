"""Wiki and web-page prose screened as `source=document`, as an ingested chunk is screened.

The held-out half of bench/firewall_corpus/documents.jsonl (never trained on) and the chunks of
the document benchmark's pages. The classifier was trained on memories, chat and notes, and on
page prose it fired alone (no rule) on 32/113 held-out paragraphs and 14/227 benchmark chunks;
for document text it must now be DOCUMENT_ALONE_MIN_P sure when no rule fires (chosen on the
train split), which leaves 3/113 and 1/227 and misses one of 38 hidden injections, a
`display:none` span no rule fires on (docs/benchmarks.md, "Documents (wiki prose)"). The bounds
are those figures and guard against regressions.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from graphmem.documents import chunk, load_path
from graphmem.guard import Guard, injection
from graphmem.guard.canonical import canonicalize
from graphmem.guard.injection import DOCUMENT_ALONE_MIN_P
from graphmem.guard.injection import screen as screen_text
from graphmem.usecases.documents import chunk_content

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "bench" / "firewall_corpus" / "documents.jsonl"
PAGES = ROOT / "bench" / "docbench" / "pages"


def held_out() -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in CORPUS.read_text("utf-8").splitlines() if line.strip()]
    return [r for r in rows if r["split"] == "test"]


def screen(guard: Guard, row: dict[str, Any], source: str = "document") -> str:
    content = f"{row['title']}\n{row['text']}"
    meta = {"doc_title": row["title"], "doc_headings": [row["title"]]}
    return guard.screen_write(content, source, meta).action


def row(row_id: str) -> dict[str, Any]:
    return next(r for r in held_out() if r["id"] == row_id)


def test_corpus_shape() -> None:
    rows = [json.loads(line) for line in CORPUS.read_text("utf-8").splitlines()]
    assert len({r["id"] for r in rows}) == len(rows)
    assert all(r["payload"] in r["text"] for r in rows if r["label"])
    test = held_out()
    assert 0.35 < len(test) / len(rows) < 0.65
    assert {r["lang"] for r in test} == {"en", "zh"}


def test_hidden_injections_are_caught(guard: Guard) -> None:
    attacks = [r for r in held_out() if r["label"]]
    missed = [r["id"] for r in attacks if screen(guard, r) not in ("quarantine", "reject")]
    assert len(attacks) >= 30 and missed == []


def test_ordinary_page_prose_flagged_no_more_than_today(guard: Guard) -> None:
    benign = [r for r in held_out() if not r["label"]]
    flagged = [r["id"] for r in benign if screen(guard, r) != "allow"]
    assert len(benign) >= 100
    # 3 until the sixteenth pass retrained the classifier on four more spent splits: a Chinese
    # privacy notice joined them (bench/firewall_train.py says why that offset was kept)
    assert len(flagged) <= 4, flagged


def test_document_benchmark_chunks_quarantined_no_more_than_today(guard: Guard) -> None:
    quarantined, total = 0, 0
    for path in sorted(PAGES.rglob("*.md")):
        doc = load_path(path)
        for c in chunk(doc):
            meta = {"doc_title": doc.title, "doc_headings": list(c.heading_path)}
            d = guard.screen_write(chunk_content(doc, c), "document", meta)
            quarantined += d.action != "allow"
            total += 1
    assert total > 200
    assert quarantined <= 1


def test_classifier_alone_needs_more_on_documents(
    guard: Guard, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rehearsal notice no rule fires on: the n-gram classifier alone quarantines it as a
    user's memory (the second reading by meaning is turned off here: this is the document
    cap's test), but from a page it must be DOCUMENT_ALONE_MIN_P sure, and it is not."""
    notice = row("doc-ben-en-013")
    content = f"{notice['title']}\n{notice['text']}"
    assert screen_text(canonicalize(content), use_classifier=False).hits == ()
    monkeypatch.setattr(injection, "_meaning", lambda _text: None)
    assert screen(guard, notice, "user") == "quarantine"
    assert screen(guard, notice, "document") == "allow"
    capped = screen_text(content, alone_min_p=DOCUMENT_ALONE_MIN_P)
    assert capped.risk < 0.5 and "(document, alone)" in " ".join(capped.reasons())


def test_injection_on_a_page_is_still_caught(guard: Guard) -> None:
    """A rule firing lifts the cap, and a classifier past DOCUMENT_ALONE_MIN_P still counts."""
    attacks = [r for r in held_out() if r["label"]]
    ruled = [r for r in attacks if screen_text(r["text"], use_classifier=False).hits]
    alone = [r for r in attacks if r not in ruled]
    assert ruled and alone
    assert all(screen(guard, r) in ("quarantine", "reject") for r in ruled)
    assert sum(screen(guard, r) in ("quarantine", "reject") for r in alone) >= len(alone) - 1
