"""Chinese recall set: hit@k of graphmem search on memory streams written in Mandarin, no LLM.

The set (bench/zh_recall/s*.json) was written by hand before any tuning, without looking at
any system's output. Each scenario is one user's memory stream (15-40 memories, a few in
English or with English names mixed in, distractors that share characters with the questions
but do not answer them) and its questions, each in one category:

  direct          the question restates its memory's words
  paraphrase      few shared characters (Jaccard of content CJK characters <= 0.2, recorded
                  per question as `overlap`): "我平时爱品哪种绿茶？" for "我喜欢喝龙井茶。"
  multihop        the question names its target through a bridge memory ("我老婆在哪个科室
                  上班？": the wife's name is in one memory, her department in another);
                  `answers` is the target, `bridge` the bridge
  latest          a value written, then updated later in the stream ("搬到了深圳"); the answer
                  is the update, `stale` the value it replaced
  crosslang-en-q  an English question about a Chinese memory
  crosslang-zh-q  a Chinese question about an English memory

Every question carries `split`: tune or test, about half each in every scenario. NOBODY TUNES ON
THE TEST HALF: settings, stop words, weights or models are chosen on `--split tune` only, and
the test half is run for the figure that is reported, once the choice is made.

Per scenario a fresh MemoryService on a temporary directory gets the memories one `write_many`
call each, in order, in one session, a minute apart (the agent path, as bench/locomo.py
--ingest single does), with the memory's index in metadata. Every question is then searched
once per mode (top-10, track_access off, query and result caches off) and scored on the index
of its answer memories:

  hit@k  an answer memory among the top k (k = 1, 5, 10)
  MRR    1 / rank of the first answer memory within the top 10 (0 if none)

Modes are bench/locomo.py's (bm25, vector, hybrid, hybrid-nograph, ..., and bm25-ref: the plain
reference BM25 of bench/bm25_ref.py over the scenario's memories as the store holds them), and
any `--variant NAME:KEY=VALUE` mode: hybrid with those Settings fields changed for its searches
only, reported beside hybrid question by question (bench/_variants.py).
`--context-turns N` asks every question after N memories of its own stream that are none of its
answers, bridges or stale values (bench/context_queries.py): a long dialogue-context query;
the quoted memories are left out of the rankings that are scored.
`--set KEY=VALUE` overrides any Settings field (e.g. --set embedding_model=... for another
embedder).

Usage: python bench/zh_recall.py [--split tune|test|all] [--modes hybrid,vector,bm25,hybrid-nograph]
       [--set KEY=VALUE] [--scenarios s01,s02] [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402
    RESULTS_DIR,
    command_line,
    fmt,
    machine_info,
    make_settings,
    median,
    parse_sets,
    peak_rss_mb,
    percentile,
    search_options,
    settings_fields,
    settings_snapshot,
)
from _variants import add_argument as add_variant_argument  # noqa: E402
from _variants import applied, paired_table, parse_variants  # noqa: E402
from bm25_ref import from_store  # noqa: E402
from context_queries import context_query  # noqa: E402
from locomo import BUILTIN_MODES, REF_MODE, SUMMARY_MODES, seed_ids  # noqa: E402

DATA_DIR = Path(__file__).resolve().parent / "zh_recall"
# LoCoMo's modes, less those that switch a setting per search (recall on summaries)
MODES = {m: v for m, v in BUILTIN_MODES.items() if m not in SUMMARY_MODES} | {REF_MODE: (None, {})}
CATEGORIES = ("direct", "paraphrase", "multihop", "latest", "crosslang-en-q", "crosslang-zh-q")
CHINESE = CATEGORIES[:4]
CROSSLANG = CATEGORIES[4:]
SPLITS = ("tune", "test")
KS = (1, 5, 10)
TOP_K = max(KS)
METRICS = [f"hit@{k}" for k in KS] + ["mrr"]
DEFAULT_MODES = "hybrid,vector,bm25,hybrid-nograph"
PARAPHRASE_MAX_OVERLAP = 0.2
# issue targets, printed beside the figures
TARGETS = {
    "chinese": {"hit@1": 0.75, "hit@5": 0.95},
    "crosslang": {"hit@5": 0.9},
}
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

# Function characters left out of the overlap: pronouns, particles, question words, the
# commonest auxiliaries. What is left is what a keyword match could hold on to.
STOP_CHARS = frozenset(
    "我你他她它们的了是在有和与也都就吗呢吧啊呀嘛么什哪谁个这那些一不没很还又要会能把被给"
    "对从到跟为过着得地自己怎样几多少儿最"
)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


def content_chars(text: str) -> set[str]:
    """The CJK characters of `text` that carry content (STOP_CHARS removed)."""
    return {c for c in _CJK.findall(text) if c not in STOP_CHARS}


def char_overlap(a: str, b: str) -> float:
    """Jaccard of the content CJK characters of two texts (0 when either has none)."""
    x, y = content_chars(a), content_chars(b)
    return len(x & y) / len(x | y) if x and y else 0.0


# ------------------------------------------------------------------------------ data
def load_scenarios(data_dir: Path = DATA_DIR, names: list[str] | None = None) -> list[dict]:
    """The scenario files of `data_dir` (s*.json), in name order; `names` keeps only those."""
    paths = sorted(data_dir.glob("s*.json"))
    scenarios = [json.loads(p.read_text("utf-8")) for p in paths]
    if names:
        unknown = sorted(set(names) - {s["scenario"] for s in scenarios})
        if unknown:
            raise SystemExit(f"unknown scenarios: {', '.join(unknown)}")
        scenarios = [s for s in scenarios if s["scenario"] in names]
    return scenarios


def validate(scenarios: list[dict]) -> list[str]:
    """What is wrong with the set, one line per problem (empty: it is sound)."""
    problems: list[str] = []
    ids: set[str] = set()
    for s in scenarios:
        sid, mems = s["scenario"], s["memories"]
        if [m["i"] for m in mems] != list(range(len(mems))):
            problems.append(f"{sid}: memory indices are not 0..{len(mems) - 1} in order")
        if not 15 <= len(mems) <= 40:
            problems.append(f"{sid}: {len(mems)} memories (15-40 expected)")
        splits = {q["split"] for q in s["questions"]}
        if splits != set(SPLITS):
            problems.append(f"{sid}: splits {sorted(splits)}, both tune and test expected")
        for q in s["questions"]:
            qid = q["id"]
            if qid in ids:
                problems.append(f"{qid}: duplicate id")
            ids.add(qid)
            if q["category"] not in CATEGORIES:
                problems.append(f"{qid}: unknown category {q['category']!r}")
            if q["split"] not in SPLITS:
                problems.append(f"{qid}: unknown split {q['split']!r}")
            refs = q["answers"] + q["bridge"] + q["stale"]
            if not q["answers"]:
                problems.append(f"{qid}: no answer")
            if any(not 0 <= i < len(mems) for i in refs):
                problems.append(f"{qid}: memory index out of range")
                continue
            if set(q["answers"]) & set(q["bridge"] + q["stale"]):
                problems.append(f"{qid}: an answer is also its bridge or stale memory")
            if q["category"] == "multihop" and not q["bridge"]:
                problems.append(f"{qid}: multihop without a bridge memory")
            if q["category"] == "latest":
                if not q["stale"]:
                    problems.append(f"{qid}: latest without the stale memory it replaces")
                elif min(q["answers"]) < max(q["stale"]):
                    problems.append(f"{qid}: the update comes before the value it replaces")
            overlap = max(char_overlap(q["question"], mems[i]["text"]) for i in q["answers"])
            if abs(overlap - q["overlap"]) > 1e-3:
                problems.append(f"{qid}: recorded overlap {q['overlap']} is {overlap:.3f}")
            if q["category"] == "paraphrase" and overlap > PARAPHRASE_MAX_OVERLAP:
                problems.append(f"{qid}: paraphrase overlap {overlap:.3f} > 0.2")
            langs = {mems[i]["lang"] for i in q["answers"]}
            want = {"crosslang-en-q": "zh", "crosslang-zh-q": "en"}.get(q["category"], "zh")
            if langs != {want}:
                problems.append(f"{qid}: {q['category']} answered by {sorted(langs)} memories")
            if q["category"] == "crosslang-en-q" and content_chars(q["question"]):
                problems.append(f"{qid}: an English question with Chinese in it")
            if q["category"] != "crosslang-en-q" and not content_chars(q["question"]):
                problems.append(f"{qid}: a Chinese question without Chinese in it")
    return problems


def check_sets(overrides: dict[str, Any]) -> dict[str, Any]:
    """--set values, refused when a key is no Settings field (a typo would otherwise measure
    the defaults under another name)."""
    unknown = sorted(set(overrides) - set(settings_fields()))
    if unknown:
        raise SystemExit(f"--set: {', '.join(unknown)} is not a graphmem setting")
    return overrides


def user_of(scenario: dict) -> str:
    return f"zh-recall-{scenario['scenario']}"


# ------------------------------------------------------------------------------ scoring
def score(retrieved: list[list[int]], answers: list[int]) -> dict[str, float]:
    """`retrieved`: per rank, the memory indices of that hit (several when writes merged)."""
    want = set(answers)
    first = next((r for r, idx in enumerate(retrieved[:TOP_K]) if want & set(idx)), None)
    out = {f"hit@{k}": float(first is not None and first < k) for k in KS}
    out["mrr"] = 0.0 if first is None else 1.0 / (first + 1)
    return out


def stale_first(retrieved: list[list[int]], answers: list[int], stale: list[int]) -> bool:
    """A replaced value ranks above the update (or the update is not in the top k at all)."""
    for idx in retrieved[:TOP_K]:
        if set(answers) & set(idx):
            return False
        if set(stale) & set(idx):
            return True
    return False


def groups(category: str) -> list[str]:
    return [category, "chinese" if category in CHINESE else "crosslang", "overall"]


def summarise(rows: list[dict[str, Any]], modes: list[str], split: str) -> dict[str, Any]:
    """{mode: {category | chinese | crosslang | overall: metrics + n}} over `split` ('all'
    for every row)."""
    out: dict[str, Any] = {}
    names = [*CATEGORIES, "chinese", "crosslang", "overall"]
    for mode in modes:
        by: dict[str, list[dict[str, float]]] = defaultdict(list)
        stale: list[bool] = []
        for r in rows:
            if split != "all" and r["split"] != split:
                continue
            for g in groups(r["category"]):
                by[g].append(r["scores"][mode])
            if r["stale"]:
                stale.append(r["stale_first"][mode])
        out[mode] = {
            g: {"n": len(by[g]), **{m: sum(s[m] for s in by[g]) / len(by[g]) for m in METRICS}}
            if by[g]
            else {"n": 0}
            for g in names
        }
        out[mode]["stale_first"] = {"n": len(stale), "count": sum(stale)}
    return out


def targets_met(summary: dict[str, Any]) -> dict[str, bool]:
    """Each target of TARGETS against one mode's summary."""
    out: dict[str, bool] = {}
    for group, metrics in TARGETS.items():
        for metric, floor in metrics.items():
            s = summary[group]
            out[f"{group} {metric} >= {floor}"] = bool(s["n"]) and s[metric] >= floor
    return out


# ------------------------------------------------------------------------------ run
def ingest(svc: Any, scenario: dict) -> dict[str, list[int]]:
    """One write per memory, in order, one session, a minute apart (the agent path). Returns
    memory id -> the indices stored under it (a write merged into an earlier memory adds its
    index to that memory's)."""
    user = user_of(scenario)
    by_id: dict[str, list[int]] = defaultdict(list)
    for m in scenario["memories"]:
        item = {
            "content": m["text"],
            "created_at": START + timedelta(minutes=m["i"]),
            "metadata": {"zh_idx": m["i"]},
            "session_id": f"{scenario['scenario']}-session",
        }
        stored = svc.write_many(user, [item])[0]
        by_id[stored.merged_into or stored.id].append(m["i"])
    return dict(by_id)


def statuses(svc: Any, scenario: dict, by_id: dict[str, list[int]]) -> dict[str, list[int]]:
    """status -> memory indices, after ingest (superseded and quarantined ones are the ones a
    current-only search cannot return)."""
    found = svc.records.get(user_of(scenario), list(by_id))
    out: dict[str, list[int]] = defaultdict(list)
    for mid, idx in by_id.items():
        m = found.get(mid)
        status = "missing" if m is None else getattr(m.status, "value", str(m.status))
        out[status].extend(idx)
    return {k: sorted(v) for k, v in sorted(out.items())}


def run_scenario(
    scenario: dict,
    split: str,
    modes: list[str],
    mode_args: dict[str, tuple[Any, dict[str, Any]]],
    overrides: dict[str, Any],
    latencies: dict[str, list[float]],
    context_turns: int = 0,
    variants: dict[str, dict[str, Any]] | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A fresh service on a temporary directory: ingest, then every question of `split` once
    per mode (modes interleaved per question)."""
    from graphmem import MemoryService

    with tempfile.TemporaryDirectory(prefix="graphmem-zh-recall-") as tmp:
        settings = make_settings(**{**overrides, "data_dir": Path(tmp)})
        svc = MemoryService(settings)
        try:
            accepted = search_options(svc)
            t0 = time.perf_counter()
            by_id = ingest(svc, scenario)
            ingest_s = time.perf_counter() - t0
            status = statuses(svc, scenario, by_id)
            ref = from_store(svc, user_of(scenario))[0] if REF_MODE in modes else None
            rows = [
                ask(
                    svc,
                    scenario,
                    with_context(scenario, q, context_turns),
                    modes,
                    mode_args,
                    accepted,
                    by_id,
                    latencies,
                    ref,
                    variants,
                )
                for q in scenario["questions"]
                if split == "all" or q["split"] == split
            ]
            info = {
                "memories": len(scenario["memories"]),
                "ingest_s": round(ingest_s, 2),
                "status": status,
                "settings": settings_snapshot(settings),
            }
        finally:
            svc.close()
    return rows, info


def with_context(scenario: dict, q: dict, n: int) -> dict:
    """The question asked after n memories of its stream that do not hold what it is about."""
    if n <= 0:
        return q
    exclude = {*q["answers"], *q["bridge"], *q["stale"]}
    stream = [m["text"] for m in scenario["memories"]]
    text, quoted = context_query(stream, q["question"], q["id"], n, exclude)
    return {**q, "question": text, "quoted": quoted}


def ask(
    svc: Any,
    scenario: dict,
    q: dict,
    modes: list[str],
    mode_args: dict[str, tuple[Any, dict[str, Any]]],
    accepted: set[str],
    by_id: dict[str, list[int]],
    latencies: dict[str, list[float]],
    ref: Any = None,
    variants: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """One question once per mode, scored; `ref` is the reference BM25 for bm25-ref."""
    quoted = set(q.get("quoted", ()))
    row: dict[str, Any] = {
        "scenario": scenario["scenario"],
        **{k: q[k] for k in ("id", "category", "split", "question", "answers")},
        **{k: q[k] for k in ("bridge", "stale", "overlap")},
        "retrieved": {},
        "scores": {},
        "stale_first": {},
    }
    for mode in modes:
        weights, kwargs = mode_args[mode]
        t = time.perf_counter()
        if mode == REF_MODE:
            got = [by_id[mid] for mid, _ in ref.search(q["question"], TOP_K + len(quoted))]
        else:
            with applied(svc.settings, (variants or {}).get(mode, {})):
                res = svc.search(
                    user_of(scenario),
                    q["question"],
                    TOP_K + len(quoted),
                    weights=weights,
                    track_access=False,
                    **{k: v for k, v in kwargs.items() if k in accepted},
                )
            got = [by_id.get(h.memory.id, [h.memory.metadata.get("zh_idx")]) for h in res.hits]
        latencies[mode].append((time.perf_counter() - t) * 1000)
        # the memories the query quoted are the agent's own dialogue, not something found
        got = [idx for idx in got if not set(idx) <= quoted][:TOP_K]
        row["retrieved"][mode] = got
        row["scores"][mode] = score(got, q["answers"])
        row["stale_first"][mode] = stale_first(got, q["answers"], q["stale"])
    return row


def run(args: argparse.Namespace) -> dict[str, Any]:
    from tqdm import tqdm

    scenarios = load_scenarios(args.data, [s for s in args.scenarios.split(",") if s])
    problems = validate(scenarios)
    if problems:
        raise SystemExit("the recall set is invalid:\n  " + "\n  ".join(problems))
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        raise SystemExit(f"unknown modes {unknown}; use {', '.join(MODES)}")
    variants = parse_variants(args.variant, list(MODES))
    modes += [m for m in variants if m not in modes]
    mode_args = {m: MODES["hybrid"] if m in variants else MODES[m] for m in modes}
    # every search computed and every query embedded: no result cache, no query cache
    overrides: dict[str, Any] = {"search_cache_ttl_seconds": 0, "query_cache_size": 0}
    overrides.update(check_sets(parse_sets(args.set)))
    latencies: dict[str, list[float]] = {m: [] for m in modes}
    rows: list[dict[str, Any]] = []
    per_scenario: dict[str, Any] = {}
    t0 = time.perf_counter()
    for s in tqdm(scenarios, desc="scenarios", file=sys.stderr, disable=args.no_progress):
        got, info = run_scenario(
            s, args.split, modes, mode_args, overrides, latencies, args.context_turns, variants
        )
        rows += got
        per_scenario[s["scenario"]] = info
    wall = time.perf_counter() - t0
    settings = next(iter(per_scenario.values()))["settings"] if per_scenario else {}
    for info in per_scenario.values():
        info.pop("settings")
    shown = list(SPLITS) + ["all"] if args.split == "all" else [args.split]
    return {
        "benchmark": "zh-recall",
        "command": command_line(),
        "machine": machine_info(),
        "data": {
            "dir": args.data.name,
            "scenarios": [s["scenario"] for s in scenarios],
            "questions_run": len(rows),
            "split": args.split,
            "context_turns": args.context_turns,
        },
        "modes": modes,
        "mode_args": {m: {"weights": w, **kw} for m, (w, kw) in mode_args.items()},
        "variants": variants,
        "settings": settings,
        "targets": TARGETS,
        "wall_s": round(wall, 1),
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "per_scenario": per_scenario,
        "latency_ms": {
            m: {"p50": median(v), "p95": percentile(v, 95), "n": len(v)}
            for m, v in latencies.items()
        },
        "splits": {sp: summarise(rows, modes, sp) for sp in shown},
        "per_question": rows,
    }


# ------------------------------------------------------------------------------ report
SPLIT_LABELS = {
    "tune": "Tune half",
    "test": "Test half (never tuned on)",
    "all": "Both halves",
}


def _target(group: str, metric: str) -> str:
    floor = TARGETS.get(group, {}).get(metric)
    return "" if floor is None else f"≥ {floor}"


def variant_tables(result: dict[str, Any]) -> list[str]:
    """Each --variant mode against hybrid, question by question, per split shown: the
    Chinese questions and the cross-language ones."""
    variants = [v for v in result.get("variants") or {} if v in result["modes"]]
    if not variants or "hybrid" not in result["modes"]:
        return []
    lines: list[str] = []
    for split in result["splits"]:
        for group, cats in (("Chinese", CHINESE), ("cross-language", CROSSLANG)):
            rows = [
                q
                for q in result["per_question"]
                if q["category"] in cats and (split == "all" or q["split"] == split)
            ]
            title = f"{SPLIT_LABELS[split]}, {group} questions"
            lines += paired_table(title, rows, "hybrid", variants, METRICS)
    return lines


def markdown(result: dict[str, Any]) -> str:
    modes = result["modes"]
    lines: list[str] = []
    for split, summ in result["splits"].items():
        first = summ[modes[0]]
        n = {g: first[g]["n"] for g in ("chinese", "crosslang", "overall")}
        if not n["overall"]:
            continue
        lines.append(
            f"#### {SPLIT_LABELS[split]}: {n['chinese']} Chinese questions,"
            f" {n['crosslang']} cross-language"
        )
        lines.append("")
        cols = [(g, m) for g in ("chinese", "crosslang", "overall") for m in METRICS]
        title = {"chinese": "Chinese", "crosslang": "cross-lang", "overall": "all"}
        lines.append("| mode | " + " | ".join(f"{title[g]} {m}" for g, m in cols) + " |")
        lines.append("|" + "---|" * (len(cols) + 1))
        lines.append("| target | " + " | ".join(_target(g, m) for g, m in cols) + " |")
        for mode in modes:
            cells = [fmt(summ[mode][g].get(m)) for g, m in cols]
            lines.append(f"| {mode} | " + " | ".join(cells) + " |")
        lines.append("")
        lines.append(f"#### {SPLIT_LABELS[split]}: per category (hit@1 / hit@5 / MRR)")
        lines.append("")
        ns = [first[c]["n"] for c in CATEGORIES]
        lines.append(
            "| mode | "
            + " | ".join(f"{c} (n={k})" for c, k in zip(CATEGORIES, ns, strict=True))
            + " | stale value above the update |"
        )
        lines.append("|" + "---|" * (len(CATEGORIES) + 2))
        for mode in modes:
            cells = []
            for c in CATEGORIES:
                s = summ[mode][c]
                cells.append(
                    "–"
                    if not s["n"]
                    else f"{fmt(s['hit@1'])} / {fmt(s['hit@5'])} / {fmt(s['mrr'])}"
                )
            st = summ[mode]["stale_first"]
            lines.append(f"| {mode} | " + " | ".join(cells) + f" | {st['count']}/{st['n']} |")
        lines.append("")
        for mode in modes:
            missed = [k for k, ok in targets_met(summ[mode]).items() if not ok]
            verdict = "all targets met" if not missed else "missed: " + "; ".join(missed)
            lines.append(f"- {mode}: {verdict}")
        lines.append("")
    lines += variant_tables(result)
    lines.append("#### Search latency per mode (ms, wall clock around `svc.search`, top-10)")
    lines.append("")
    lines.append("| mode | p50 | p95 | searches |")
    lines.append("|---|---|---|---|")
    for mode in modes:
        lat = result["latency_ms"][mode]
        lines.append(f"| {mode} | {fmt(lat['p50'], 2)} | {fmt(lat['p95'], 2)} | {lat['n']} |")
    lines.append("")
    return "\n".join(lines)


def header(result: dict[str, Any]) -> str:
    d = result["data"]
    not_active = {
        sid: {k: v for k, v in info["status"].items() if k != "active"}
        for sid, info in result["per_scenario"].items()
    }
    not_active = {k: v for k, v in not_active.items() if v}
    return (
        f"Chinese recall set — {result['machine']['date']}, {result['machine']['cores']} cores,"
        f" {len(d['scenarios'])} scenarios, {d['questions_run']} questions (split"
        f" {d['split']}), embedding model {result['settings'].get('embedding_model')}.\n"
        f"Command: `{result['command']}`\n"
        f"Wall {result['wall_s']} s; peak RSS {result['peak_rss_mb']} MiB.\n"
        f"Memories not active after ingest (scenario: status: indices): {not_active or 'none'}.\n"
    )


# ------------------------------------------------------------------------------ main
def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument(
        "--split",
        choices=("tune", "test", "all"),
        default="tune",
        help="which questions to run (default tune: tune on it; run test for the figure)",
    )
    p.add_argument(
        "--modes",
        default=DEFAULT_MODES,
        help=f"comma-separated modes among {', '.join(MODES)} (default {DEFAULT_MODES})",
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a graphmem setting, e.g. --set embedding_model=NAME (repeatable)",
    )
    add_variant_argument(p)
    p.add_argument(
        "--scenarios", default="", help="comma-separated scenario ids (default: all of them)"
    )
    p.add_argument("--data", type=Path, default=DATA_DIR, help="directory of scenario files")
    p.add_argument(
        "--out",
        type=Path,
        default=None,
        help="JSON results file (default bench/results/zh-recall-<timestamp>.json); a .md with"
        " the tables is written next to it",
    )
    p.add_argument(
        "--seed-ids",
        type=int,
        default=None,
        metavar="SEED",
        help="draw memory ids from a generator seeded with SEED, so two runs rank ties alike",
    )
    p.add_argument(
        "--context-turns",
        type=int,
        default=0,
        metavar="N",
        help="ask every question after N memories of its stream (bench/context_queries.py):"
        " long dialogue-context queries; default 0, the question alone",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.seed_ids is not None:
        seed_ids(args.seed_ids)
    result = run(args)
    out = args.out or RESULTS_DIR / f"zh-recall-{datetime.now().strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1, ensure_ascii=False, default=str), "utf-8")
    text = header(result) + "\n" + markdown(result)
    out.with_suffix(".md").write_text(text, "utf-8")
    print(text)
    print(f"results: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
