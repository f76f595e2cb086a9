"""The Chinese recall set (bench/zh_recall) is what it claims to be - enough questions of each
kind, paraphrases that really share few characters, answers that exist, both halves in every
scenario - and its harness runs end to end on the real embedded stores."""

from __future__ import annotations

import copy
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import zh_recall  # noqa: E402


def questions(scenarios: list[dict]) -> list[dict]:
    return [q for s in scenarios for q in s["questions"]]


def test_the_set_validates() -> None:
    assert zh_recall.validate(zh_recall.load_scenarios()) == []


def test_counts_categories_and_splits() -> None:
    scenarios = zh_recall.load_scenarios()
    qs = questions(scenarios)
    by_cat = Counter(q["category"] for q in qs)
    chinese = sum(by_cat[c] for c in zh_recall.CHINESE)
    assert chinese >= 150
    assert by_cat["crosslang-en-q"] >= 25 and by_cat["crosslang-zh-q"] >= 25
    assert all(by_cat[c] >= 20 for c in zh_recall.CHINESE), by_cat
    with_chinese = [
        s for s in scenarios if any(q["category"] in zh_recall.CHINESE for q in s["questions"])
    ]
    assert len(with_chinese) >= 10
    for s in scenarios:
        splits = Counter(q["split"] for q in s["questions"])
        assert abs(splits["tune"] - splits["test"]) <= 2, (s["scenario"], splits)
    for cat in zh_recall.CATEGORIES:
        splits = Counter(q["split"] for q in qs if q["category"] == cat)
        assert abs(splits["tune"] - splits["test"]) <= 1, (cat, splits)
    # the rule is written into the data itself, not only into the harness
    assert all("nobody tunes on the test half" in s["note"] for s in scenarios)
    assert "NOBODY TUNES ON" in (zh_recall.__doc__ or "")


def test_paraphrases_share_few_characters() -> None:
    para = [q for q in questions(zh_recall.load_scenarios()) if q["category"] == "paraphrase"]
    assert para and max(q["overlap"] for q in para) <= zh_recall.PARAPHRASE_MAX_OVERLAP
    # the issue's own pair: only 茶 in common, function characters do not count
    assert zh_recall.content_chars("我平时爱品哪种绿茶？") == set("平时爱品种绿茶")
    assert round(zh_recall.char_overlap("我平时爱品哪种绿茶？", "我喜欢喝龙井茶。"), 3) == 0.083
    assert zh_recall.char_overlap("What is it?", "我喜欢喝龙井茶。") == 0.0


def test_validate_reports_what_is_broken() -> None:
    good = zh_recall.load_scenarios(names=["s01"])
    bad = copy.deepcopy(good)
    qs = bad[0]["questions"]
    para = next(q for q in qs if q["category"] == "paraphrase")
    para["question"] = bad[0]["memories"][para["answers"][0]]["text"]  # a copy, not a paraphrase
    latest = next(q for q in qs if q["category"] == "latest")
    latest["answers"], latest["stale"] = latest["stale"], latest["answers"]
    qs[0]["answers"] = [len(bad[0]["memories"])]
    problems = "\n".join(zh_recall.validate(bad))
    assert "recorded overlap" in problems and "paraphrase overlap" in problems
    assert "the update comes before" in problems
    assert "out of range" in problems


def test_harness_runs_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "zh.json"
    argv = ["--scenarios", "s03", "--split", "tune", "--modes", "hybrid,bm25", "--no-progress"]
    argv += ["--set", "candidate_pool=40", "--out", str(out)]
    assert zh_recall.main(argv) == 0
    result = json.loads(out.read_text("utf-8"))
    s03 = zh_recall.load_scenarios(names=["s03"])[0]
    tune = [q for q in s03["questions"] if q["split"] == "tune"]
    assert result["data"]["questions_run"] == len(tune)
    assert {r["id"] for r in result["per_question"]} == {q["id"] for q in tune}
    assert result["settings"]["candidate_pool"] == 40  # --set reached Settings
    stored = sorted(i for idx in result["per_scenario"]["s03"]["status"].values() for i in idx)
    assert stored == list(range(len(s03["memories"])))
    summary = result["splits"]["tune"]
    for mode in ("hybrid", "bm25"):
        overall = summary[mode]["overall"]
        assert overall["n"] == len(tune)
        assert 0 <= overall["hit@1"] <= overall["hit@5"] <= overall["hit@10"] <= 1
    assert "target" in out.with_suffix(".md").read_text("utf-8")
