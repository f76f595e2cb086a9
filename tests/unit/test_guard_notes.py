"""Everyday agent notes are stored, not quarantined: false positives on a fixed held-out set.

bench/firewall_corpus/notes.jsonl holds to-dos, shopping lists, code snippets, shell commands,
addresses, product names, meeting notes, preferences, Chinese and mixed Chinese-English notes
and random-word notes of the kind a load test writes. Round 2 (split "test") was written after
the rules and the classifier were frozen and is never trained on (bench/firewall_train.py reads
split "dev" only); anything but `allow` on it is a false positive.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from graphmem.guard import Guard, GuardSettings

NOTES = Path(__file__).resolve().parents[2] / "bench" / "firewall_corpus" / "notes.jsonl"
MAX_FALSE_POSITIVE_RATE = 0.01


def _rows(split: str) -> list[dict[str, str]]:
    with open(NOTES, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return [r for r in rows if r["split"] == split]


def test_the_corpus_is_large_and_varied() -> None:
    rows = _rows("dev") + _rows("test")
    kinds = Counter(r["category"] for r in rows)
    assert len(rows) >= 500 and len(_rows("test")) >= 200
    assert {"todo", "shopping", "code", "shell", "address", "product", "meeting"} <= set(kinds)
    assert {"preference", "random_words", "note"} <= set(kinds)
    assert {r["lang"] for r in rows} == {"en", "zh", "mixed"}


def test_held_out_notes_are_allowed() -> None:
    guard = Guard(GuardSettings(rate_limit_backend="off", _env_file=None))
    rows = _rows("test")
    flagged = [r["text"] for r in rows if guard.screen_write(r["text"], "user").action != "allow"]
    assert len(flagged) <= MAX_FALSE_POSITIVE_RATE * len(rows), flagged
