"""LoCoMo retrieval benchmark: evidence recall of graphmem search, no LLM involved.

Every LoCoMo conversation goes into its own user namespace, one memory per dialogue turn
("Speaker: text", dated with its session's date, the turn's dia_id in metadata). Every category
1-4 question that has evidence is then searched once per mode (top-20), and the dia_ids of the
hits are scored against the question's evidence:

  recall@k  fraction of the evidence turns among the top k
  hit@k     at least one evidence turn among the top k
  all@k     every evidence turn among the top k
  MRR       1 / rank of the first evidence turn within the top 20 (0 if none)

for k = 5, 10, 20, per category and overall. Modes share one store, ingested once:
  bm25            weights={"keyword": 1}, expand_hops=0   (keyword channel only)
  vector          weights={"vector": 1}, expand_hops=0    (embedding similarity only)
  hybrid          the service's defaults (default weights and, where the service has it,
                  graph expansion)
  hybrid-nograph  default weights, expand_hops=0          (hybrid without graph expansion)
  hybrid-history  default weights, include_history=True   (temporal validity off at recall:
                  superseded turns are candidates like any other; compare with hybrid, where
                  only current turns are, unless the question asks about the past)
  bm25-ref        bench/bm25_ref.py: a plain BM25 (words; CJK characters and bigrams) over
                  the conversation's memories read back from the store, the keyword channel's
                  floor
and any extra `--weights NAME:SPEC[;hops=N]` mode (SPEC goes to search(weights=...) as is and
may carry graph=W; hops=N goes to search(expand_hops=N)), and any `--variant NAME:KEY=VALUE`
mode: hybrid with those Settings fields changed for its searches only, reported beside hybrid
question by question with a paired bootstrap on each split (bench/_variants.py).

With `--context-turns N` every question is asked after N turns of its own conversation (a window
chosen by a hash of the question, never one holding its evidence; bench/context_queries.py), as
an agent searching with the dialogue it is in would; the quoted turns are left out of the
rankings that are scored.

Searches run with track_access=False so one question cannot influence the next, with the
query-embedding cache off so every vector/hybrid search pays for embedding its query, and with
the search-result cache off (where the service has one) so every search is computed.

conv-26 and conv-30 are the tuning split; the other eight are the test split. Tables are printed
for both splits and for all selected conversations, each labelled.

Usage: python bench/locomo.py [--data PATH] [--modes bm25,vector,hybrid] [--conversations all]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402
    REPO_ROOT,
    RESULTS_DIR,
    CpuMeter,
    command_line,
    fmt,
    machine_info,
    make_settings,
    median,
    parse_sets,
    peak_rss_mb,
    percentile,
    search_options,
    setting_place,
    settings_snapshot,
    wait_for_quiet,
)
from _variants import add_argument as add_variant_argument  # noqa: E402
from _variants import applied, paired_table, parse_variants  # noqa: E402
from bm25_ref import from_store  # noqa: E402
from context_queries import context_query  # noqa: E402

DEFAULT_DATA = REPO_ROOT / ".." / "shared" / "bench" / "locomo10.json"
DATA_SHA256 = "79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4"
TUNE_SPLIT = ("conv-26", "conv-30")
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (5, 10, 20)
TOP_K = max(KS)
# mode -> (weights, extra search() keyword arguments); expand_hops is dropped where the
# service's search() has no such parameter (no graph expansion to switch off).
BUILTIN_MODES: dict[str, tuple[Any, dict[str, Any]]] = {
    "bm25": ({"keyword": 1.0}, {"expand_hops": 0}),
    "vector": ({"vector": 1.0}, {"expand_hops": 0}),
    "hybrid": (None, {}),
    "hybrid-nograph": (None, {"expand_hops": 0}),
    # validity off at recall: superseded memories compete as if nothing had superseded them
    "hybrid-history": (None, {"include_history": True}),
    # the same as hybrid, with recall matching on memory summaries first (recall_on_summaries)
    "hybrid-summaries": (None, {}),
}
SUMMARY_MODES = {"hybrid-summaries"}
# the plain reference BM25 over the memories the benchmark wrote (bench/bm25_ref.py)
REF_MODE = "bm25-ref"
COMPACTED = "@compacted"
METRICS = [f"{m}@{k}" for m in ("recall", "hit", "all") for k in KS] + ["mrr"]

_MONTH_NAMES = (
    "january february march april may june july august september october november december"
)
_MONTHS = {m: i for i, m in enumerate(_MONTH_NAMES.split(), start=1)}
_DATE_RE = re.compile(
    r"^\s*(\d{1,2}):(\d{2})\s*([ap])\.?m\.?\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$",
    re.IGNORECASE,
)
_DIA_RE = re.compile(r"^D:?(\d+):(\d+)$")
_SESSION_RE = re.compile(r"^session_(\d+)$")


# ------------------------------------------------------------------------------ data loading
def parse_session_date(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> 2023-05-08 13:56 UTC (locale-independent)."""
    m = _DATE_RE.match(text)
    if not m:
        raise ValueError(f"unrecognised session date {text!r}")
    hour, minute, ampm, day, month, year = m.groups()
    h = int(hour) % 12 + (12 if ampm.lower() == "p" else 0)
    mon = _MONTHS.get(month.lower()) or next(
        (v for k, v in _MONTHS.items() if k.startswith(month.lower()[:3])), None
    )
    if mon is None:
        raise ValueError(f"unrecognised month in {text!r}")
    return datetime(int(year), mon, int(day), h, int(minute), tzinfo=UTC)


def normalise_dia_id(raw: str) -> str | None:
    """'D8:6' -> 'D8:6'; 'D:11:26' -> 'D11:26'; 'D30:05' -> 'D30:5'; 'D' -> None."""
    m = _DIA_RE.match(raw.strip())
    return f"D{int(m.group(1))}:{int(m.group(2))}" if m else None


@dataclass
class Turn:
    dia_id: str
    content: str
    created_at: datetime
    session: int


@dataclass
class Question:
    conv: str
    index: int
    category: int
    question: str
    evidence: list[str]
    # dia_ids of the turns the query quotes (--context-turns): left out of what is scored
    quoted: tuple[str, ...] = ()


@dataclass
class DataReport:
    """What the loader had to fix or drop, so the numbers can be audited."""

    turns: int = 0
    sessions: int = 0
    questions_total: int = 0
    questions_by_category: Counter = field(default_factory=Counter)
    skipped_adversarial: int = 0
    skipped_no_evidence: list[str] = field(default_factory=list)
    evidence_split: list[str] = field(default_factory=list)  # one string holding several ids
    evidence_rewritten: list[str] = field(default_factory=list)  # e.g. D:11:26 -> D11:26
    evidence_malformed: list[str] = field(default_factory=list)  # unparseable, dropped
    evidence_missing: list[str] = field(default_factory=list)  # parseable, not in the dialogue
    evidence_duplicates: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "turns": self.turns,
            "sessions": self.sessions,
            "questions_total": self.questions_total,
            "questions_scored_by_category": {
                CATEGORIES[c]: n for c, n in sorted(self.questions_by_category.items())
            },
            "questions_scored": sum(self.questions_by_category.values()),
            "skipped_adversarial": self.skipped_adversarial,
            "skipped_no_evidence": self.skipped_no_evidence,
            "evidence_split": self.evidence_split,
            "evidence_rewritten": self.evidence_rewritten,
            "evidence_dropped_malformed": self.evidence_malformed,
            "evidence_dropped_missing": self.evidence_missing,
            "evidence_duplicates_removed": self.evidence_duplicates,
        }


def load_locomo(
    path: Path, conversations: list[str] | None, captions: bool
) -> tuple[dict[str, list[Turn]], list[Question], DataReport]:
    data = json.loads(path.read_text("utf-8"))
    rep = DataReport()
    turns_by_conv: dict[str, list[Turn]] = {}
    questions: list[Question] = []
    known_convs = [c["sample_id"] for c in data]
    if conversations:
        unknown = sorted(set(conversations) - set(known_convs))
        if unknown:
            raise SystemExit(f"unknown conversations: {', '.join(unknown)}")
    for conv in data:
        cid = conv["sample_id"]
        if conversations and cid not in conversations:
            continue
        c = conv["conversation"]
        turns: list[Turn] = []
        # Iterate the session_N keys themselves: some conversations carry extra date keys.
        sessions = sorted((int(m.group(1)), k) for k in c if (m := _SESSION_RE.match(k)) and c[k])
        for n, key in sessions:
            when = parse_session_date(c[f"session_{n}_date_time"])
            rep.sessions += 1
            for t in c[key]:
                text = f"{t['speaker']}: {t['text']}".strip()
                if captions and t.get("blip_caption"):
                    text += f" [shares a photo: {t['blip_caption']}]"
                dia = normalise_dia_id(t["dia_id"])
                if dia is None:
                    raise ValueError(f"{cid}: unparseable turn id {t['dia_id']!r}")
                turns.append(Turn(dia, text, when, n))
        rep.turns += len(turns)
        turns_by_conv[cid] = turns
        known = {t.dia_id for t in turns}
        for i, qa in enumerate(conv["qa"]):
            rep.questions_total += 1
            cat = int(qa["category"])
            if cat not in CATEGORIES:
                rep.skipped_adversarial += 1
                continue
            evidence: list[str] = []
            for raw in qa.get("evidence") or []:
                parts = [p for p in re.split(r"[;,\s]+", str(raw)) if p]
                if len(parts) > 1:
                    rep.evidence_split.append(f"{cid} q{i}: {raw!r}")
                for part in parts:
                    norm = normalise_dia_id(part)
                    if norm is None:
                        rep.evidence_malformed.append(f"{cid} q{i}: {part!r}")
                        continue
                    if norm != part:
                        rep.evidence_rewritten.append(f"{cid} q{i}: {part!r} -> {norm!r}")
                    if norm not in known:
                        rep.evidence_missing.append(f"{cid} q{i}: {norm!r}")
                        continue
                    if norm in evidence:
                        rep.evidence_duplicates += 1
                        continue
                    evidence.append(norm)
            if not evidence:
                rep.skipped_no_evidence.append(f"{cid} q{i} (category {cat})")
                continue
            rep.questions_by_category[cat] += 1
            questions.append(Question(cid, i, cat, qa["question"], evidence))
    return turns_by_conv, questions, rep


# ------------------------------------------------------------------------------ scoring
def score(retrieved: list[str], evidence: list[str]) -> dict[str, float]:
    ev = set(evidence)
    out: dict[str, float] = {}
    for k in KS:
        found = len(ev.intersection(retrieved[:k]))
        out[f"recall@{k}"] = found / len(ev)
        out[f"hit@{k}"] = float(found > 0)
        out[f"all@{k}"] = float(found == len(ev))
    first = next((i for i, d in enumerate(retrieved[:TOP_K]) if d in ev), None)
    out["mrr"] = 0.0 if first is None else 1.0 / (first + 1)
    return out


def aggregate(rows: list[dict[str, float]]) -> dict[str, float]:
    if not rows:
        return {"n": 0}
    out: dict[str, float] = {"n": len(rows)}
    for m in METRICS:
        out[m] = sum(r[m] for r in rows) / len(rows)
    return out


def summarise(
    per_question: list[dict[str, Any]], modes: list[str], convs: set[str]
) -> dict[str, dict[str, dict[str, float]]]:
    """{mode: {category name | 'overall': metrics}} over the questions of `convs`."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for mode in modes:
        by_cat: dict[str, list[dict[str, float]]] = defaultdict(list)
        for q in per_question:
            if q["conv"] not in convs:
                continue
            s = q["scores"][mode]
            by_cat[CATEGORIES[q["category"]]].append(s)
            by_cat["overall"].append(s)
        out[mode] = {name: aggregate(by_cat[name]) for name in [*CATEGORIES.values(), "overall"]}
    return out


def paired_deltas(
    per_question: list[dict[str, Any]],
    modes: list[str],
    convs: set[str],
    metric: str = "recall@10",
    resamples: int = 2000,
    category: int | None = None,
) -> dict[str, dict[str, Any]]:
    """Mean per-question difference of `metric` for every pair of modes, with a 95% paired
    bootstrap interval (questions resampled with replacement, seeded); `category` keeps only
    that question category (1 = multi-hop, the one graph expansion is for)."""
    import random

    rows = [
        q["scores"]
        for q in per_question
        if q["conv"] in convs and (category is None or q["category"] == category)
    ]
    if not rows:
        return {}
    rng = random.Random(0)
    n = len(rows)
    picks = [[rng.randrange(n) for _ in range(n)] for _ in range(resamples)]
    out: dict[str, dict[str, Any]] = {}
    for i, a in enumerate(modes):
        for b in modes[:i]:
            d = [r[a][metric] - r[b][metric] for r in rows]
            means = sorted(sum(d[k] for k in pick) / n for pick in picks)
            out[f"{a} - {b}"] = {
                "delta": sum(d) / n,
                "ci95": [means[int(0.025 * resamples)], means[int(0.975 * resamples) - 1]],
                "better": sum(x > 0 for x in d),
                "worse": sum(x < 0 for x in d),
                "n": n,
            }
    return out


# ------------------------------------------------------------------------------ report
def markdown(result: dict[str, Any]) -> str:
    modes = result["modes"]
    path = ingest_label(result.get("ingest", "batch"), bool(result.get("same_timestamps")))
    lines: list[str] = []
    split_ns: set[int] = set()
    for split, label in result["split_labels"].items():
        summ = result["splits"][split]
        n = summ[modes[0]]["overall"]["n"]
        if not n or (split == "all" and n in split_ns):
            continue  # empty, or the same questions as a split already shown
        split_ns.add(n)
        lines.append(f"#### {label} — overall ({n} questions)")
        lines.append("")
        head = "| mode | " + " | ".join(METRICS) + " |"
        lines += [head, "|" + "---|" * (len(METRICS) + 1)]
        for mode in modes:
            o = summ[mode]["overall"]
            lines.append(f"| {mode} | " + " | ".join(fmt(o[m]) for m in METRICS) + " |")
        lines.append("")
        lines.append(f"#### {label} — per category (recall@10 / hit@5 / MRR)")
        lines.append("")
        cats = [*CATEGORIES.values(), "overall"]
        ns = [summ[modes[0]][c]["n"] for c in cats]
        lines.append(
            "| mode | " + " | ".join(f"{c} (n={k})" for c, k in zip(cats, ns, strict=True)) + " |"
        )
        lines.append("|" + "---|" * (len(cats) + 1))
        for mode in modes:
            cells = []
            for c in cats:
                s = summ[mode][c]
                cells.append(
                    "–"
                    if not s["n"]
                    else f"{fmt(s['recall@10'])} / {fmt(s['hit@5'])} / {fmt(s['mrr'])}"
                )
            lines.append(f"| {mode} | " + " | ".join(cells) + " |")
        lines.append("")
    for key, title in (
        ("paired_recall10_test", f"Test split, {path} — recall@10 differences"),
        (
            "paired_recall10_test_multihop",
            f"Test split, {path}, multi-hop questions only — recall@10 differences",
        ),
    ):
        deltas = result.get(key) or {}
        if not deltas:
            continue
        lines.append(f"#### {title}, mean over questions with a 95% paired bootstrap interval")
        lines.append("")
        lines.append("| pair | Δ recall@10 | 95% interval | questions better / worse |")
        lines.append("|---|---|---|---|")
        for pair, d in deltas.items():
            lo, hi = d["ci95"]
            lines.append(
                f"| {pair} | {d['delta']:+.3f} | [{lo:+.3f}, {hi:+.3f}] |"
                f" {d['better']} / {d['worse']} |"
            )
        lines.append("")
    lines += variant_tables(result)
    lines.append("#### Search latency per mode (ms, wall clock around `svc.search`, top-20)")
    lines.append("")
    lines.append("| mode | p50 | p95 | mean | searches |")
    lines.append("|---|---|---|---|---|")
    for mode in modes:
        lat = result["latency_ms"][mode]
        lines.append(
            f"| {mode} | {fmt(lat['p50'], 2)} | {fmt(lat['p95'], 2)} | {fmt(lat['mean'], 2)}"
            f" | {lat['n']} |"
        )
    lines.append("")
    return "\n".join(lines)


def variant_tables(result: dict[str, Any]) -> list[str]:
    """Each --variant mode against hybrid, question by question, per split: all questions
    and the multi-hop ones."""
    variants = [v for v in result.get("variants") or {} if v in result["modes"]]
    if not variants or "hybrid" not in result["modes"]:
        return []
    lines: list[str] = []
    for split in ("tune", "test"):
        convs = {c for c in result["conversations"] if (c in TUNE_SPLIT) == (split == "tune")}
        for cat, label in ((None, "all questions"), (1, "multi-hop")):
            rows = [
                q
                for q in result["per_question"]
                if q["conv"] in convs and (cat is None or q["category"] == cat)
            ]
            title = f"{split.capitalize()} split, {label}"
            lines += paired_table(title, rows, "hybrid", variants, ["recall@5", "recall@10", "mrr"])
    return lines


# ------------------------------------------------------------------------------ main
def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--data",
        type=Path,
        default=DEFAULT_DATA,
        help="locomo10.json (default: ../shared/bench/locomo10.json from the repository root)",
    )
    p.add_argument(
        "--modes",
        default="bm25,vector,hybrid",
        help="comma-separated modes among bm25, vector, hybrid, hybrid-nograph and any"
        " --weights names",
    )
    p.add_argument(
        "--weights",
        action="append",
        default=[],
        metavar="NAME:SPEC",
        help="an extra mode with explicit weights, e.g. 'v7k3:vector=0.7,keyword=0.3' or"
        " 'g:vector=0.6,keyword=0.4,graph=0.4;hops=1' (SPEC is passed to search(weights=...),"
        " ;hops=N to search(expand_hops=N), ;types=related+causal to search(relation_types=...));"
        " repeatable; added to --modes",
    )
    p.add_argument(
        "--conversations",
        default="all",
        help="'all', 'test' (the eight test conversations), 'tune' (conv-26, conv-30)"
        " or a comma-separated list of sample ids",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=None,
        help="JSON results file (default bench/results/locomo-<timestamp>.json); a .md with"
        " the tables is written next to it",
    )
    p.add_argument(
        "--captions",
        action="store_true",
        help="append each shared photo's caption to its turn's text (off: text only)",
    )
    p.add_argument(
        "--candidate-pool",
        type=int,
        default=None,
        help="override Settings.candidate_pool (per-channel candidates before ranking)",
    )
    p.add_argument(
        "--query-cache",
        action="store_true",
        help="keep the query-embedding cache on (off by default so latency includes embedding)",
    )
    p.add_argument(
        "--data-dir", type=Path, default=None, help="keep the store here (default: a temp dir)"
    )
    p.add_argument(
        "--reuse-store",
        action="store_true",
        help="with --data-dir: skip ingest when the kept store already holds every turn"
        " (for comparing settings; the ingest timing is then meaningless)",
    )
    p.add_argument(
        "--wait-quiet",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="before ingesting and before searching, wait up to this long until other"
        " processes use < 15%% of the CPU (latency on a busy machine mostly measures the"
        " neighbours); default 0: do not wait",
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a graphmem setting, e.g. --set expand_hops=1 (repeatable)",
    )
    add_variant_argument(p)
    p.add_argument(
        "--peers",
        default="",
        help="comma-separated peer systems to run on the same data in the same run"
        " (bench/peers.py: mem0); scored and reported like modes",
    )
    p.add_argument(
        "--ingest",
        choices=("single", "batch"),
        default="single",
        help="single (default, the agent path): one write per turn, in order, through the"
        " service, each turn a second after the one before it in its session; batch: one"
        " write_many per conversation, every turn at its session's date",
    )
    p.add_argument(
        "--same-timestamps",
        action="store_true",
        help="write every turn at its session's date in both ingest modes (no per-turn second"
        " in single): a transcript imported with per-session dates, or a coarse clock; the graph"
        " must come out the same as with distinct timestamps",
    )
    p.add_argument(
        "--context-turns",
        type=int,
        default=0,
        metavar="N",
        help="ask every question after N turns of its conversation (bench/context_queries.py):"
        " long dialogue-context queries; default 0, the question alone",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument(
        "--seed-ids",
        type=int,
        default=None,
        metavar="SEED",
        help="draw memory ids from a generator seeded with SEED instead of at random. Equal"
        " scores are ordered by id, so two runs of the same code differ in a few hundred tied"
        " rankings; with the same seed they rank identically, which is how two code versions"
        " are shown to recall exactly the same",
    )
    p.add_argument(
        "--compact",
        action="store_true",
        help="after the searches, run `compact` on the store and search again; the second"
        f" pass is reported as MODE{COMPACTED}",
    )
    return p.parse_args(argv)


def ingest_label(ingest: str, same_timestamps: bool) -> str:
    """How the store was written, for every table title: the agent path and a batch import
    build the same graph, but a reader comparing tables must still see which one was run."""
    how = (
        "agent path (one write per turn)"
        if ingest == "single"
        else "batch ingest (one write_many per conversation)"
    )
    return how + (", turns of a session at one timestamp" if same_timestamps else "")


def select_conversations(spec: str, all_ids: list[str]) -> list[str]:
    spec = spec.strip()
    if spec in ("", "all"):
        return list(all_ids)
    if spec == "test":
        return [c for c in all_ids if c not in TUNE_SPLIT]
    if spec == "tune":
        return list(TUNE_SPLIT)
    return [c.strip() for c in spec.split(",") if c.strip()]


def run(args: argparse.Namespace) -> dict[str, Any]:

    from graphmem import MemoryService

    data_path: Path = args.data
    if not data_path.exists():
        raise SystemExit(
            f"LoCoMo data not found at {data_path}; download locomo10.json from"
            " https://github.com/snap-research/LoCoMo and pass --data PATH"
        )
    raw = data_path.read_bytes()
    sha = hashlib.sha256(raw).hexdigest()
    if sha != DATA_SHA256:
        print(f"warning: {data_path.name} sha256 {sha} differs from {DATA_SHA256}", file=sys.stderr)
    all_ids = [c["sample_id"] for c in json.loads(raw)]
    convs = select_conversations(args.conversations, all_ids)

    extra: dict[str, str] = {}
    extra_hops: dict[str, dict[str, Any]] = {}
    for spec in args.weights:
        name, sep, w = spec.partition(":")
        if not sep or not name or not w:
            raise SystemExit(f"--weights {spec!r}: expected NAME:SPEC[;hops=N][;types=a+b]")
        w, *suffixes = w.split(";")
        extra[name.strip()] = w.strip()
        for suffix in suffixes:
            key, _, val = (x.strip() for x in suffix.partition("="))
            if key == "hops" and val.isdigit():
                extra_hops.setdefault(name.strip(), {})["expand_hops"] = int(val)
            elif key == "types" and val:
                extra_hops.setdefault(name.strip(), {})["relation_types"] = val.replace("+", ",")
            else:
                raise SystemExit(f"--weights {spec!r}: a suffix must be ';hops=N' or ';types=a+b'")
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    modes += [m for m in extra if m not in modes]
    variants = parse_variants(args.variant, [*BUILTIN_MODES, REF_MODE, *extra])
    modes += [m for m in variants if m not in modes]
    mode_args: dict[str, tuple[Any, dict[str, Any]]] = {}
    for m in modes:
        if m in variants:
            mode_args[m] = BUILTIN_MODES["hybrid"]
        elif m in extra:
            mode_args[m] = (extra[m], extra_hops.get(m, {}))
        elif m in BUILTIN_MODES:
            mode_args[m] = BUILTIN_MODES[m]
        elif m == REF_MODE:
            mode_args[m] = (None, {})
        else:
            raise SystemExit(
                f"unknown mode {m!r}; use {', '.join([*BUILTIN_MODES, REF_MODE])} or"
                " --weights NAME:SPEC"
            )

    turns_by_conv, questions, rep = load_locomo(data_path, convs, args.captions)
    if args.context_turns:
        questions = with_context(questions, turns_by_conv, args.context_turns)

    tmp = None
    if args.data_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="graphmem-locomo-")
        data_dir = Path(tmp.name)
    else:
        data_dir = args.data_dir
    # the search-result cache is off: every question must be computed, once per mode
    overrides: dict[str, Any] = {"data_dir": data_dir, "search_cache_ttl_seconds": 0}
    if not args.query_cache:
        overrides["query_cache_size"] = 0
    if args.candidate_pool:
        overrides["candidate_pool"] = args.candidate_pool
    overrides.update(parse_sets(args.set))
    settings = make_settings(**overrides)
    t0 = time.perf_counter()
    svc = MemoryService(settings)
    load_s = time.perf_counter() - t0
    accepted = search_options(svc)
    mode_args = {
        m: (w, {k: v for k, v in kw.items() if k in accepted}) for m, (w, kw) in mode_args.items()
    }
    progress = not args.no_progress
    load_before = os.getloadavg()

    quiet: dict[str, Any] = {}
    cpu: dict[str, Any] = {}
    peers: list[Any] = []
    peer_info: dict[str, Any] = {}
    compaction: dict[str, Any] | None = None
    try:
        if args.wait_quiet:
            quiet["before ingest"] = wait_for_quiet(timeout=args.wait_quiet)
        meter = CpuMeter().start()
        t0 = time.perf_counter()
        if args.reuse_store and stored(svc, turns_by_conv):
            print(f"reusing the store in {data_dir}", file=sys.stderr)
        else:
            ingest(
                svc,
                turns_by_conv,
                progress,
                single=args.ingest == "single",
                same_timestamps=args.same_timestamps,
            )
        ingest_s = time.perf_counter() - t0
        cpu["ingest"] = meter.stop()
        peers, peer_info = ingest_peers(args.peers, turns_by_conv, progress)
        if args.wait_quiet:
            quiet["before search"] = wait_for_quiet(timeout=args.wait_quiet)
        meter = CpuMeter().start()

        # -------- search: every question once per mode, modes interleaved per question
        latencies: dict[str, list[float]] = {m: [] for m in [*modes, *peer_info]}
        per_question: list[dict[str, Any]] = [
            {
                "conv": q.conv,
                "qa_index": q.index,
                "category": q.category,
                "evidence": q.evidence,
                "retrieved": {},
                "scores": {},
            }
            for q in questions
        ]
        search_pass(
            svc, questions, per_question, modes, mode_args, latencies, "", progress, variants
        )
        peers_pass(peers, questions, per_question, latencies, progress)
        cpu["search"] = meter.stop()
        if args.compact:
            # -------- the same questions again after `graphmem compact` (merge, archive, ...)
            t0 = time.perf_counter()
            compaction = svc.compact().to_dict()
            compaction.pop("changes", None)
            compaction["wall_s"] = round(time.perf_counter() - t0, 2)
            for m in list(modes):
                latencies[m + COMPACTED] = []
            search_pass(
                svc,
                questions,
                per_question,
                list(modes),
                mode_args,
                latencies,
                COMPACTED,
                progress,
                variants,
            )
            modes += [m + COMPACTED for m in modes]
        health = svc.vectors.health()
        temporal = {
            status: sum(svc.records.count(user_of(c), status) for c in convs)
            for status in ("active", "superseded", "quarantined")
        }
    finally:
        svc.close()
        for peer in peers:
            peer.close()
        if tmp is not None:
            tmp.cleanup()

    graphmem_modes = modes
    modes = [*modes, *peer_info]
    test = {c for c in convs if c not in TUNE_SPLIT}
    tune = {c for c in convs if c in TUNE_SPLIT}
    splits = {
        "test": summarise(per_question, modes, test),
        "tune": summarise(per_question, modes, tune),
        "all": summarise(per_question, modes, set(convs)),
    }
    path = ingest_label(args.ingest, args.same_timestamps)
    labels = {
        "test": f"Test split ({len(test)} conversations: all except conv-26, conv-30), {path}",
        "tune": f"Tuning split ({', '.join(sorted(tune)) or 'none'}), {path}",
        "all": f"All selected ({len(convs)} conversations), {path}",
    }
    return {
        "benchmark": "locomo-retrieval",
        "command": command_line(),
        "machine": machine_info(),
        "data": {"file": data_path.name, "sha256": sha, **rep.to_dict()},
        "conversations": convs,
        "modes": modes,
        "graphmem_modes": graphmem_modes,
        "peers": peer_info,
        "mode_args": {m: {"weights": w, **kw} for m, (w, kw) in mode_args.items()},
        "variants": variants,
        "settings": {
            **settings_snapshot(settings),
            "captions": bool(args.captions),
            "context_turns": args.context_turns,
        },
        "vector_index": health,
        "turns_by_status": temporal,
        "ingest": args.ingest,
        "same_timestamps": args.same_timestamps,
        "timing_s": {"service_open": round(load_s, 2), "ingest": round(ingest_s, 2)},
        "compaction": compaction,
        "ingest_turns_per_s": round(rep.turns / ingest_s, 1) if ingest_s else None,
        "latency_ms": {
            m: {
                "p50": median(v),
                "p95": percentile(v, 95),
                "mean": sum(v) / len(v) if v else None,
                "n": len(v),
            }
            for m, v in latencies.items()
        },
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "loadavg_before_after": [round(load_before[0], 2), round(os.getloadavg()[0], 2)],
        "wait_for_quiet": quiet,
        "cpu_use": cpu,
        "paired_recall10_test": paired_deltas(per_question, modes, test),
        "paired_recall10_test_multihop": paired_deltas(per_question, modes, test, category=1),
        "split_labels": labels,
        "splits": splits,
        "per_question": per_question,
    }


def ingest_peers(
    spec: str, turns_by_conv: dict[str, list[Turn]], progress: bool
) -> tuple[list[Any], dict[str, Any]]:
    """Open and fill each peer with the same turns graphmem got; time it like graphmem's."""
    from peers import open_peer
    from tqdm import tqdm

    peers, info = [], {}
    for name in [n.strip() for n in spec.split(",") if n.strip()]:
        peer = open_peer(name)
        peers.append(peer)
        t0 = time.perf_counter()
        for cid in tqdm(
            list(turns_by_conv),
            desc=f"ingest {name}",
            unit="conv",
            file=sys.stderr,
            disable=not progress,
        ):
            peer.ingest(user_of(cid), turns_by_conv[cid])
        secs = time.perf_counter() - t0
        turns = sum(len(t) for t in turns_by_conv.values())
        info[name] = {
            **peer.info(),
            "ingest_s": round(secs, 2),
            "ingest_turns_per_s": round(turns / secs, 1) if secs else None,
        }
    return peers, info


def search_pass(
    svc: Any,
    questions: list[Any],
    rows: list[dict[str, Any]],
    modes: list[str],
    mode_args: dict[str, tuple[Any, dict[str, Any]]],
    latencies: dict[str, list[float]],
    suffix: str,
    progress: bool,
    variants: dict[str, dict[str, Any]] | None = None,
) -> None:
    """Every question once per mode, modes interleaved per question; results into `rows`
    under the mode's name plus `suffix`; a variant mode's searches run with its settings."""
    from tqdm import tqdm

    holder, summaries = setting_place(svc.settings, "recall_on_summaries")
    has_summaries = hasattr(holder, summaries)
    refs: dict[str, Any] = {}  # user -> the reference BM25 over the store as it is now
    bar = tqdm(questions, desc="search" + suffix, unit="q", file=sys.stderr, disable=not progress)
    for q, row in zip(bar, rows, strict=True):
        for mode in modes:
            if has_summaries:
                setattr(holder, summaries, mode in SUMMARY_MODES)
            if mode == REF_MODE:
                user = user_of(q.conv)
                if user not in refs:
                    refs[user] = from_store(svc, user)
                ref, mems = refs[user]
                t = time.perf_counter()
                found = ref.search(q.question, TOP_K + len(q.quoted))
                ms = (time.perf_counter() - t) * 1000
                dia = unquoted(q, [str(mems[mid].metadata.get("dia_id")) for mid, _ in found])
                record(row, latencies, mode + suffix, dia, ms, q.evidence)
                continue
            t = time.perf_counter()
            weights, kwargs = mode_args[mode]
            with applied(svc.settings, (variants or {}).get(mode, {})):
                res = svc.search(
                    user_of(q.conv),
                    q.question,
                    TOP_K + len(q.quoted),
                    weights=weights,
                    track_access=False,
                    **kwargs,
                )
            ms = (time.perf_counter() - t) * 1000
            dia = unquoted(q, [str(h.memory.metadata.get("dia_id")) for h in res.hits])
            record(row, latencies, mode + suffix, dia, ms, q.evidence)
    bar.close()
    if has_summaries:
        setattr(holder, summaries, False)


def record(
    row: dict[str, Any],
    latencies: dict[str, list[float]],
    name: str,
    dia: list[str],
    ms: float,
    evidence: Any,
) -> None:
    """One system's answer to one question: retrieved ids, latency and scores."""
    latencies[name].append(ms)
    row["retrieved"][name] = dia
    row.setdefault("latency_ms", {})[name] = round(ms, 3)
    row["scores"][name] = score(dia, evidence)


def peers_pass(
    peers: list[Any],
    questions: list[Any],
    rows: list[dict[str, Any]],
    latencies: dict[str, list[float]],
    progress: bool,
) -> None:
    """Every question once per peer, scored exactly like graphmem's modes."""
    from tqdm import tqdm

    for peer in peers:
        bar = tqdm(
            questions, desc=f"search {peer.name}", unit="q", file=sys.stderr, disable=not progress
        )
        for q, row in zip(bar, rows, strict=True):
            t = time.perf_counter()
            dia = unquoted(q, peer.search(user_of(q.conv), q.question, TOP_K + len(q.quoted)))
            ms = (time.perf_counter() - t) * 1000
            record(row, latencies, peer.name, dia, ms, q.evidence)
        bar.close()


def with_context(
    questions: list[Question], turns_by_conv: dict[str, list[Turn]], n: int
) -> list[Question]:
    """Each question asked after n turns of its conversation that hold none of its evidence."""
    out = []
    for q in questions:
        turns = turns_by_conv[q.conv]
        evidence = set(q.evidence)
        exclude = {i for i, t in enumerate(turns) if t.dia_id in evidence}
        text, quoted = context_query(
            [t.content for t in turns], q.question, f"{q.conv}:{q.index}", n, exclude
        )
        dia = tuple(turns[i].dia_id for i in quoted)
        out.append(Question(q.conv, q.index, q.category, text, q.evidence, dia))
    return out


def unquoted(q: Question, dia: list[str]) -> list[str]:
    """The top TOP_K of a ranking, less the turns the query quoted (the agent holds them)."""
    return [d for d in dia if d not in q.quoted][:TOP_K]


def user_of(conv_id: str) -> str:
    return f"locomo-{conv_id}"


def unindexed(svc: Any, turns_by_conv: dict[str, list[Turn]]) -> dict[str, tuple[int, int]]:
    """Conversations whose vector count differs from their turns: {id: (vectors, turns)}."""
    counts = {c: (svc.vectors.count(user_of(c)), len(t)) for c, t in turns_by_conv.items()}
    return {c: nt for c, nt in counts.items() if nt[0] != nt[1]}


def stored(svc: Any, turns_by_conv: dict[str, list[Turn]]) -> bool:
    """True if every conversation is already fully indexed (a kept --data-dir)."""
    return not unindexed(svc, turns_by_conv)


def ingest(
    svc: Any,
    turns_by_conv: dict[str, list[Turn]],
    progress: bool = True,
    single: bool = False,
    same_timestamps: bool = False,
) -> None:
    """One user namespace per conversation. `single` writes one turn per call, as an agent
    does, in dialogue order and a second apart within a session (an agent's clock moves between
    turns); otherwise one write_many batch per conversation at the session dates.
    `same_timestamps` dates every turn at its session's date in single mode too."""
    from tqdm import tqdm

    total = sum(map(len, turns_by_conv.values())) if single else len(turns_by_conv)
    bar = tqdm(
        total=total,
        desc="ingest",
        unit="turn" if single else "conv",
        file=sys.stderr,
        disable=not progress,
    )
    for cid, turns in turns_by_conv.items():
        items = []
        offset: dict[int, int] = {}
        for t in turns:
            step = offset[t.session] = offset.get(t.session, -1) + 1
            items.append(
                {
                    "content": t.content,
                    "created_at": t.created_at
                    + timedelta(seconds=step if single and not same_timestamps else 0),
                    "metadata": {"dia_id": t.dia_id, "session": t.session},
                    "session_id": f"session_{t.session}",
                    "memory_type": "event",
                }
            )
        if single:
            for item in items:
                svc.write_many(user_of(cid), [item])
                bar.update(1)
        else:
            svc.write_many(user_of(cid), items)
            bar.update(1)
    bar.close()
    for cid, (nv, n) in unindexed(svc, turns_by_conv).items():
        raise RuntimeError(f"{cid}: {nv} vectors indexed for {n} turns")


def seed_ids(seed: int) -> None:
    """Make every uuid4 (memory ids, and any other) come from one seeded generator, in call
    order: ingest writes one turn at a time in dialogue order, so the same data gets the same
    ids in every run."""
    import random
    import threading
    import uuid

    rng = random.Random(seed)
    lock = threading.Lock()

    def uuid4() -> uuid.UUID:
        with lock:
            return uuid.UUID(int=rng.getrandbits(128), version=4)

    uuid.uuid4 = uuid4


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.seed_ids is not None:
        seed_ids(args.seed_ids)
    result = run(args)
    out = args.out or RESULTS_DIR / f"locomo-{datetime.now().strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1, default=str), "utf-8")
    md = markdown(result)
    d = result["data"]
    same = ", same timestamps" if result.get("same_timestamps") else ""
    header = (
        f"LoCoMo retrieval — {result['machine']['date']}, {result['machine']['cores']} cores,"
        f" {d['questions_scored']} questions scored ({d['skipped_adversarial']} adversarial"
        f" skipped, {len(d['skipped_no_evidence'])} without evidence skipped);"
        f" evidence ids: {len(d['evidence_split'])} multi-id strings split,"
        f" {len(d['evidence_rewritten'])} rewritten, {len(d['evidence_dropped_malformed'])}"
        f" malformed dropped, {len(d['evidence_dropped_missing'])} non-existent dropped,"
        f" {d['evidence_duplicates_removed']} duplicates removed.\n"
        f"Command: `{result['command']}`\n"
        f"Ingest ({result['ingest']}{same}): {d['turns']} turns in {result['timing_s']['ingest']} s"
        f" ({result['ingest_turns_per_s']} turns/s incl. embedding); peak RSS"
        f" {result['peak_rss_mb']} MiB. Other processes used"
        f" {result['cpu_use']['ingest']['others_busy']} (ingest) /"
        f" {result['cpu_use']['search']['others_busy']} (search) of the CPU on average.\n"
        f"Turns by status after ingest: {result['turns_by_status']}.\n"
    )
    out.with_suffix(".md").write_text(header + "\n" + md, "utf-8")
    print(header)
    print(md)
    for key in ("evidence_rewritten", "evidence_dropped_malformed", "evidence_dropped_missing"):
        for item in d[key]:
            print(f"  {key}: {item}")
    print(f"results: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
