"""bench/docs_scale.py: pages are ingested for real, chunks and memories share one store, and
each kinds mode searches only what it names."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from graphmem.embedding import Embedder

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import docs_scale  # noqa: E402
from synth import Generator  # noqa: E402


def test_pages_are_deterministic_wiki_pages_of_400_to_900_words() -> None:
    a = [docs_scale.wiki_page(Generator(3), random.Random(3), i) for i in range(5)]
    b = [docs_scale.wiki_page(Generator(3), random.Random(3), i) for i in range(5)]
    assert a == b
    for title, text in a:
        assert text.startswith(f"# {title}\n") and "\n## " in text
        assert 400 <= len(text.split()) <= 1100  # the last paragraph may run past the target


def test_quick_run_ingests_fills_and_times_every_kinds_mode(
    tmp_path: Path, embedder: Embedder, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "docs.json"
    argv = ["--quick", "--pages", "4", "--real-memories", "100", "--queries", "6"]
    assert docs_scale.main([*argv, "--out", str(out)], embedder=embedder) == 0
    r = json.loads(out.read_text())
    ing = r["ingest"]
    assert ing["documents"] == 4 and ing["failed"] == 0 and ing["chunks"] >= 8
    assert ing["pages_per_s"] > 0 and ing["chunks_per_s"] > 0
    assert ing["stages_s"]["embedding (worker thread)"] > 0
    assert r["store"] == {**r["store"], "memories": 2000, "chunks": 2000}
    assert r["store"]["records"] == 4000
    s = r["search"]
    assert set(s) == set(docs_scale.KIND_MODES)
    assert s["kinds=memory"]["document_share"] == 0
    assert s["kinds=document"]["document_share"] == 1
    assert 0 < s["kinds=both (default)"]["document_share"] < 1
    assert all(m["n"] == 6 and m["p95"] >= m["p50"] > 0 for m in s.values())
    assert r["machine"]["git"] and "--quick" in r["command"]
    md = out.with_suffix(".md").read_text()
    assert "| kinds=document |" in md and "2,000 memories + 2,000 chunks" in md
    assert md in capsys.readouterr().out


def test_a_negative_size_is_refused_plainly(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        docs_scale.main(["--memories", "-5"])
    assert "--memories must be positive" in capsys.readouterr().err
