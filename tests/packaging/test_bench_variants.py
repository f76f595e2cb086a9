"""The recall harnesses' variant modes (bench/_variants.py): a mode that searches as hybrid does
with some Settings fields changed for its own searches only, compared with hybrid question by
question in the same run."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from graphmem import Settings

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import _variants  # noqa: E402
import zh_recall  # noqa: E402


def test_a_spec_is_parsed_and_checked_against_the_settings() -> None:
    got = _variants.parse_variants(
        ["few:graph_seeds=7;graph_weight=0.5", 'off:fusion="weights";search_last_turn=false']
    )
    assert got == {
        "few": {"graph_seeds": 7, "graph_weight": 0.5},
        "off": {"fusion": "weights", "search_last_turn": False},
    }


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("nothing", "expected NAME:KEY=VALUE"),
        ("x:no_such_setting=1", "not a Settings field"),
        ("x:graph_seeds=many", "graph_seeds=many"),  # not an integer
        ("x:graph_facet_fanout=99", "graph_facet_fanout=99"),  # above the field's bound (20)
        ('x:fusion="sometimes"', "fusion="),  # not one of its choices
        ("hybrid:graph_seeds=7", "exists already"),  # would replace the baseline
    ],
)
def test_a_bad_spec_is_refused(spec: str, says: str) -> None:
    with pytest.raises(SystemExit, match=says):
        _variants.parse_variants([spec], taken=["hybrid"])


def test_applied_sets_the_fields_and_puts_them_back_even_after_an_error() -> None:
    s = Settings()
    seeds, weight = s.graph.seeds, s.graph.weight
    with _variants.applied(s, {"graph_seeds": seeds + 3, "graph_weight": 0.0}):
        assert (s.graph.seeds, s.graph.weight) == (seeds + 3, 0.0)
    assert (s.graph.seeds, s.graph.weight) == (seeds, weight)
    with pytest.raises(RuntimeError), _variants.applied(s, {"graph_seeds": 1}):
        raise RuntimeError("a search failed")
    assert s.graph.seeds == seeds


def test_the_variant_table_reads_each_question_once() -> None:
    rows = [{"scores": {"v": {"m": a}, "hybrid": {"m": b}}} for a, b in [(1, 0), (1, 0), (0, 1)]]
    table = _variants.paired_table("Tune", rows, "hybrid", ["v"], ["m"])
    assert table[0] == "#### Tune: each variant minus hybrid, 95% paired bootstrap (3 q)"
    assert table[4].startswith("| v | +0.333 [") and table[4].endswith("2/1 |")
    assert _variants.paired_table("Tune", rows, "hybrid", [], ["m"]) == []


def test_a_variant_runs_beside_hybrid_on_the_chinese_set(tmp_path: Path) -> None:
    """Fields at their defaults rank exactly as hybrid; graph_weight=0 turns the walk off, as
    hybrid-nograph does with expand_hops=0; and the settings are back after each search."""
    out = tmp_path / "zh.json"
    argv = ["--scenarios", "s03", "--split", "tune", "--modes", "hybrid,hybrid-nograph"]
    argv += [
        "--variant",
        "same:graph_weight=0.4;graph_seeds=10",
        "--variant",
        "flat:graph_weight=0",
    ]
    argv += ["--no-progress", "--seed-ids", "1", "--out", str(out)]
    assert Settings().graph.weight == 0.4 and Settings().graph.seeds == 10
    assert zh_recall.main(argv) == 0
    result = json.loads(out.read_text("utf-8"))
    assert result["modes"] == ["hybrid", "hybrid-nograph", "same", "flat"]
    assert result["variants"] == {
        "same": {"graph_weight": 0.4, "graph_seeds": 10},
        "flat": {"graph_weight": 0.0},
    }
    assert result["settings"]["graph_weight"] == 0.4  # the run's own settings untouched
    rows = result["per_question"]
    assert rows
    # the walk changes some ranking of this scenario, so "flat" is not hybrid by accident
    assert any(r["retrieved"]["hybrid"] != r["retrieved"]["hybrid-nograph"] for r in rows)
    for r in rows:
        assert r["retrieved"]["same"] == r["retrieved"]["hybrid"]
        assert r["retrieved"]["flat"] == r["retrieved"]["hybrid-nograph"]
    md = out.with_suffix(".md").read_text("utf-8")
    assert "each variant minus hybrid, 95% paired bootstrap" in md
