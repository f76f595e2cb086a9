"""bench/report.py: generated sections are replaced from their JSON results, everything written
by hand is kept, a section without results is left alone, and re-rendering is idempotent.
(The benchmarks themselves are timing jobs and run through `make bench`, never in tests.)"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import report  # noqa: E402

MACHINE = {"date": "2026-12-02 12:00 UTC", "cores": 2, "cpu": "test cpu", "git": "abc1234"}
TEMPLATE = """# Benchmarks

Hand-written context that must survive.

<!-- BEGIN GENERATED suite: from suite.json -->
old suite text
<!-- END GENERATED suite -->

Between the sections, by hand.

<!-- BEGIN GENERATED production: from production.json -->
old production table
<!-- END GENERATED production -->

<!-- BEGIN GENERATED scale: from scale.json -->
old scale tables, no results file for them
<!-- END GENERATED scale -->
"""


def write_results(d: Path) -> None:
    d.mkdir(parents=True, exist_ok=True)
    (d / "suite.json").write_text(
        json.dumps(
            {
                "command": "python bench/suite.py --quick",
                "machine": MACHINE,
                "variant": "quick",
                "total_s": 61.0,
                "stages": {
                    "scale": {
                        "status": "ok",
                        "wall_s": 50.2,
                        "peak_rss_mb": 1400.0,
                        "out": "bench/results/quick/scale.json",
                    },
                    "production": {"status": "skipped: GRAPHMEM_TEST_MYSQL_URL not set"},
                },
            }
        )
    )
    row = {
        "write_per_s": 100.0,
        "search_p50_ms": 10.0,
        "search_p95_ms": 20.0,
        "erase_s": 1.5,
        "erase_memories": 500,
        "erase_verified": True,
    }
    (d / "production.json").write_text(
        json.dumps(
            {
                "machine": MACHINE,
                "rows": [
                    {**row, "label": "embedded"},
                    {**row, "label": "production", "write_per_s": 50.0, "search_p50_ms": 30.0},
                ],
            }
        )
    )


def test_sections_are_rendered_from_results_and_hand_text_is_kept(tmp_path: Path) -> None:
    results = tmp_path / "results"
    write_results(results)
    doc = tmp_path / "docs" / "benchmarks.md"
    text, status = report.render(TEMPLATE, results, doc, tmp_path / "img")
    assert "Hand-written context that must survive." in text
    assert "Between the sections, by hand." in text
    assert "old suite text" not in text and "old production table" not in text
    assert "| scale | ok | 50.2 | 1400 | `bench/results/quick/scale.json` |" in text
    assert "skipped: GRAPHMEM_TEST_MYSQL_URL not set" in text
    assert "| production | 50 (0.50×) | 30.0 (3.00×) |" in text  # ratios against embedded
    assert "old scale tables, no results file for them" in text  # missing results: kept
    assert status["scale"].startswith("no ") and status["suite"].startswith("rendered")
    again, _ = report.render(text, results, doc, tmp_path / "img")
    assert again == text  # the output is itself a template


def test_main_writes_the_doc_and_refuses_a_template_without_markers(tmp_path: Path) -> None:
    results = tmp_path / "results"
    write_results(results)
    template = tmp_path / "t.md"
    template.write_text(TEMPLATE, "utf-8")
    out = tmp_path / "out" / "benchmarks.md"
    assert (
        report.main(["--results", str(results), "--template", str(template), "--doc", str(out)])
        == 0
    )
    assert "| embedded | 100 (1.00×)" in out.read_text("utf-8")
    assert template.read_text("utf-8") == TEMPLATE  # the template itself is untouched
    bare = tmp_path / "bare.md"
    bare.write_text("# no markers\n", "utf-8")
    try:
        report.main(["--template", str(bare), "--results", str(results)])
    except SystemExit as e:
        assert "no '<!-- BEGIN GENERATED" in str(e)
    else:
        raise AssertionError("a template without markers must be refused")


def test_commands_are_shown_without_machine_paths() -> None:
    cmd = f"python bench/locomo.py --data /srv/x/shared/bench/locomo10.json --out {ROOT}/b/r.json"
    assert report.clean_command(cmd) == (
        "python bench/locomo.py --data ../shared/bench/locomo10.json --out b/r.json"
    )
