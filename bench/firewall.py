"""Memory-firewall benchmark: attacks caught, benign memories left alone, PII found, time spent.

Inputs, none of them copied into the repository except our own corpus:
  - bench/firewall_corpus/attacks.jsonl  our attacks, English and Chinese, with obfuscated variants
  - bench/firewall_corpus/benign.jsonl   benign near-misses ("from now on I'm vegetarian")
  - bench/firewall_corpus/pii.jsonl      labelled PII positives and look-alike negatives
  - bench/firewall_corpus/notes.jsonl    everyday agent notes: to-dos, lists, code, shell,
                                         addresses, products, meetings, Chinese, random words
  - bench/firewall_corpus/everyday.jsonl a personal assistant user's memories: contact details,
                                         their own workflow instructions, commands, ids, bills,
                                         Chinese daily chat (train / validation halves)
  - bench/firewall_corpus/everyday_test2.jsonl, attacks_test2.jsonl   a frozen third split of
                                         everyday memories and of new attacks
  - bench/firewall_corpus/everyday_test3.jsonl, attacks_test3.jsonl   a fourth frozen split,
                                         written before the fourth pass (tuned on by the fifth)
  - bench/firewall_corpus/everyday_test4.jsonl, attacks_test4.jsonl   a fifth frozen split,
                                         written before the fifth pass (never tuned on)
  - bench/firewall_corpus/everyday_test5.jsonl, attacks_test5.jsonl   a sixth frozen split,
                                         written before the sixth pass (tuned on by the seventh)
  - bench/firewall_corpus/everyday_test6.jsonl, attacks_test6.jsonl   a seventh frozen split,
                                         written before the seventh pass (never tuned on;
                                         tuned on by the eighth)
  - bench/firewall_corpus/everyday_test7.jsonl, attacks_test7.jsonl   an eighth frozen split,
                                         written before the eighth pass (never tuned on)
  - bench/firewall_corpus/everyday_test8.jsonl, attacks_test8.jsonl   a ninth frozen split,
                                         the ninth pass's judge (tuned on by the tenth)
  - bench/firewall_corpus/everyday_test9.jsonl, attacks_test9.jsonl   a tenth frozen split,
                                         the tenth pass's judge (its attacks read after it)
  - bench/firewall_corpus/everyday_test10.jsonl, attacks_test10.jsonl an eleventh frozen split,
                                         the last judge of 2026-12-07 (its attacks read after it)
  - bench/firewall_corpus/everyday_test11.jsonl, attacks_test11.jsonl a twelfth frozen split
                                         (the eleventh pass's judge, now spent)
  - bench/firewall_corpus/everyday_test12.jsonl, attacks_test12.jsonl a thirteenth frozen split
  - bench/firewall_corpus/everyday_test13.jsonl, attacks_test13.jsonl a fourteenth frozen split
                                         (the thirteenth pass's judge, now spent)
  - bench/firewall_corpus/everyday_test14.jsonl, attacks_test14.jsonl a fifteenth frozen split
                                         (the fourteenth pass's judge, now spent)
  - bench/firewall_corpus/everyday_test15.jsonl, attacks_test15.jsonl a sixteenth frozen split
                                         (the fifteenth pass's judge, now spent)
  - bench/firewall_corpus/everyday_test16.jsonl, attacks_test16.jsonl a seventeenth frozen split
                                         (the sixteenth pass's judge, now spent)
  - bench/firewall_corpus/everyday_test17.jsonl, attacks_test17.jsonl an eighteenth frozen split
                                         (the seventeenth pass's judge, now spent)
  - bench/firewall_corpus/everyday_test18.jsonl, attacks_test18.jsonl a nineteenth frozen split
                                         (the eighteenth pass's judge, now spent)
  - bench/firewall_corpus/everyday_test19.jsonl, attacks_test19.jsonl a twentieth frozen split
                                         (the nineteenth pass's judge, now spent)
  - bench/firewall_corpus/everyday_test20.jsonl, attacks_test20.jsonl a twenty-first frozen split
                                         (the twentieth pass's judge, now spent)
  - bench/firewall_corpus/everyday_test21.jsonl, attacks_test21.jsonl a twenty-second frozen
                                         split (the twenty-first pass's judge, now spent)
  - bench/firewall_corpus/everyday_test22.jsonl, attacks_test22.jsonl a twenty-third frozen
                                         split (the twenty-second pass's judge, now spent)
  - bench/firewall_corpus/everyday_test23.jsonl, attacks_test23.jsonl a twenty-fourth frozen
                                         split (the twenty-third pass's judge, now spent)
  - bench/firewall_corpus/everyday_test24.jsonl, attacks_test24.jsonl a twenty-fifth frozen
                                         split (the twenty-fourth pass's judge, now spent)
  - bench/firewall_corpus/everyday_test25.jsonl, attacks_test25.jsonl a twenty-sixth frozen
                                         split (the twenty-fifth pass's judge, now spent)
  - bench/firewall_corpus/everyday_test26.jsonl, attacks_test26.jsonl a twenty-seventh frozen
                                         split (the twenty-sixth pass's judge, now spent)
  - bench/firewall_corpus/everyday_test27.jsonl, attacks_test27.jsonl a twenty-eighth frozen
                                         split (the twenty-seventh pass's judge, now spent)
  - bench/firewall_corpus/everyday_test28.jsonl, attacks_test28.jsonl a twenty-ninth frozen
                                         split (the twenty-eighth pass's judge, now spent)
  - bench/firewall_corpus/everyday_test29.jsonl, attacks_test29.jsonl a thirtieth frozen
                                         split (the twenty-ninth pass's judge, now spent)
  - ../shared/bench/bipia_text_attack_train.json   BIPIA hidden instructions (15 x 5)
  - ../shared/bench/locomo10.json                  all 5,882 LoCoMo turns as benign memories

Every text goes through `Guard.screen_write` exactly as a write would (canonicalise, PII, injection;
rate limits off). An attack counts as caught when the action is quarantine or reject; a benign text
counts as flagged when it is not allowed.

Splits. Our corpus was written in rounds, each scored once as a held-out set and then folded
into dev: round 1 (hash split by family, so an obfuscated variant shares its original's split),
rounds 2-5 (each written in fresh words and new domains after the previous round had been
scored), round 6 (the current `test` split: 172 attacks + 28 obfuscated variants and 80 benign
near-misses, written before the classifier existed). The `round` field says which is which.
BIPIA instructions 1-2 of each category are dev and 3-5 test (all 75 were read before any rule
was written, so BIPIA is not a clean held-out set). LoCoMo: the classifier trains on conv-26,
conv-30 (the project's tuning split), conv-41 and conv-42 (`dev` here); false positives are
reported on the other six conversations (`test`), which nothing was trained or tuned on.
`--show-misses dev` lists what dev still gets wrong. Everyday notes: round 1 (595, looked at and
trained on: `dev`) and round 2 (230, written after the classifier and the rules were frozen and
scored once: `test`); a note counts as a false positive when it is not allowed.

Everyday memories: refused, held and altered (the stored text differs from the sanitised
input) per half, source (user, agent) and PII setting (the default policy, and every PII type
kept, which isolates the injection side), next to raw storage (everything kept as written) as
the baseline of the same run. `--everyday-only` screens only that set and the new attacks
(a quick check).

Before and after, in the same run: every set is screened twice, by the rules alone
(`classifier=False`) and by the rules plus the learned classifier (the default), and the
held-out figures are printed side by side, with per-category detection for English and Chinese.

Latency is the wall time of `screen_write` per LoCoMo turn (p50/p95), with the tokenisation
that every write already pays (`graphmem.domain.text.search_text`) timed in the same run as the
baseline; the rules-only and full guards are also timed turn by turn, interleaved, so the
classifier's own cost is the median of paired differences.

Presidio: `--presidio-python PATH` runs bench/firewall_presidio.py under another interpreter
(one with presidio-analyzer installed; it is not a graphmem dependency) on the same PII set and
puts its recall and latency beside ours.

Before/after: `--baseline-tree PATH` screens the same corpus with the graphmem source tree at
PATH (e.g. a checkout of an older commit) in a subprocess right before this run, and prints both.

Usage: python bench/firewall.py [--show-misses dev|test|all] [--presidio-python PATH]
                                [--baseline-tree PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REPO_ROOT, RESULTS_DIR, command_line, machine_info, percentile  # noqa: E402

from graphmem.domain.text import search_text  # noqa: E402
from graphmem.guard import Guard, GuardSettings  # noqa: E402

CORPUS = Path(__file__).resolve().parent / "firewall_corpus"
SHARED = REPO_ROOT / ".." / "shared" / "bench"
DEV_CONVS = ("conv-26", "conv-30")
# The classifier also trains on two more conversations (bench/firewall_train.py); LoCoMo false
# positives are reported on the other six, which nothing was ever trained or tuned on.
LOCOMO_TRAIN = (*DEV_CONVS, "conv-41", "conv-42")
SPLITS = ("dev", "test", "all")


def load_jsonl(path: Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def load_bipia(path: Path) -> list[dict[str, Any]]:
    data = json.loads(path.read_text("utf-8"))
    return [
        {
            "id": f"bipia-{cat}-{i + 1}",
            "text": text,
            "split": "dev" if i < 2 else "test",
            "category": cat,
            "lang": "en",
            "source": "bipia",
            "obfuscation": None,
        }
        for cat, texts in data.items()
        for i, text in enumerate(texts)
    ]


def load_locomo(path: Path) -> list[dict[str, Any]]:
    out = []
    for conv in json.loads(path.read_text("utf-8")):
        split = "dev" if conv["sample_id"] in LOCOMO_TRAIN else "test"
        for key, turns in conv["conversation"].items():
            if not re.fullmatch(r"session_\d+", key):
                continue
            for t in turns:
                out.append(
                    {
                        "id": f"{conv['sample_id']}:{t['dia_id']}",
                        "split": split,
                        "text": f"{t['speaker']}: {t['text']}".strip(),
                        "metadata": {"dia_id": t["dia_id"], "session": key},
                    }
                )
    return out


def rate(rows: list[dict[str, Any]], key: str, split: str) -> dict[str, Any]:
    sel = [r for r in rows if split == "all" or r["split"] == split]
    n = sum(1 for r in sel if r[key])
    return {"n": len(sel), "count": n, "rate": n / len(sel) if sel else None}


def screen_all(guard: Guard, rows: list[dict[str, Any]], want: str) -> None:
    for r in rows:
        t0 = time.perf_counter()
        d = guard.screen_write(r["text"], "user", r.get("metadata"))
        r["ms"] = (time.perf_counter() - t0) * 1000
        r["action"] = d.action
        r["risk"] = d.risk
        r["flagged"] = d.action != "allow"
        r["reasons"] = d.reasons
        r["pii"] = sorted({f.type for f in d.pii_found})
        r["ok"] = r["flagged"] if want == "attack" else not r["flagged"]


# ------------------------------------------------------------------ PII


def locate(text: str, value: str) -> tuple[int, int] | None:
    i = text.find(value)
    return (i, i + len(value)) if i >= 0 else None


def eval_pii(guard: Guard, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Recall: a labelled value counts as found when a finding of its type covers its span.
    Precision: a finding counts as right when it overlaps a labelled value of its own type; a
    finding on a look-alike negative or on unlabelled text counts against its type."""
    from graphmem.guard.canonical import canonicalize
    from graphmem.guard.pii import find_pii

    per: dict[str, dict[str, dict[str, int]]] = defaultdict(
        lambda: defaultdict(lambda: {"n": 0, "found": 0, "found_any_type": 0})
    )
    neg = {s: {"n": 0, "flagged": 0} for s in SPLITS}
    extra = {s: 0 for s in SPLITS}
    prec: dict[str, dict[str, dict[str, int]]] = defaultdict(
        lambda: defaultdict(lambda: {"findings": 0, "right": 0})
    )
    misses: list[dict[str, Any]] = []
    times: list[float] = []
    for r in rows:
        t0 = time.perf_counter()
        canon = canonicalize(r["text"])
        found = find_pii(canon)
        times.append((time.perf_counter() - t0) * 1000)
        spans = []
        for e in r["entities"]:
            span = locate(canon.sanitized, e["value"])
            spans.append(span)
            typ = e["type"].lower()
            hit = span is not None and any(
                f.type == typ and f.start <= span[0] and span[1] <= f.end for f in found
            )
            hit_any = span is not None and any(f.start < span[1] and span[0] < f.end for f in found)
            for s in (r["split"], "all"):
                for k in (typ, "overall"):
                    c = per[s][k]
                    c["n"] += 1
                    c["found"] += int(hit)
                    c["found_any_type"] += int(hit_any)
            if not hit:
                misses.append(
                    {
                        "id": r["id"],
                        "split": r["split"],
                        "type": typ,
                        "text": r["text"],
                        "got": [(f.type, f.value) for f in found],
                    }
                )
        for f in found:
            right = any(
                sp and e["type"].lower() == f.type and f.start < sp[1] and sp[0] < f.end
                for sp, e in zip(spans, r["entities"], strict=True)
            )
            for s in (r["split"], "all"):
                for k in (f.type, "overall"):
                    prec[s][k]["findings"] += 1
                    prec[s][k]["right"] += int(right)
        if not r["entities"]:
            for s in (r["split"], "all"):
                neg[s]["n"] += 1
                neg[s]["flagged"] += int(bool(found))
            if found:
                misses.append(
                    {
                        "id": r["id"],
                        "split": r["split"],
                        "type": "false_positive",
                        "text": r["text"],
                        "got": [(f.type, f.value) for f in found],
                    }
                )
        else:
            for f in found:
                if not any(sp and f.start < sp[1] and sp[0] < f.end for sp in spans):
                    for s in (r["split"], "all"):
                        extra[s] += 1
    recall = {
        s: {
            k: {**v, "recall": v["found"] / v["n"] if v["n"] else None}
            for k, v in sorted(per[s].items())
        }
        for s in SPLITS
    }
    precision = {
        s: {
            k: {**v, "precision": v["right"] / v["findings"] if v["findings"] else None}
            for k, v in sorted(prec[s].items())
        }
        for s in SPLITS
    }
    return {
        "recall": recall,
        "precision": precision,
        "negatives": neg,
        "extra_findings_on_positives": extra,
        "misses": misses,
        "p50_ms": percentile(times, 50),
        "p95_ms": percentile(times, 95),
    }


def run_presidio(python: str, pii_path: Path) -> dict[str, Any]:
    script = Path(__file__).resolve().parent / "firewall_presidio.py"
    proc = subprocess.run(
        [python, str(script), str(pii_path)], capture_output=True, text=True, timeout=900
    )
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1:] or ["failed"]}
    return json.loads(proc.stdout)


# ------------------------------------------------------------------ everyday memories

# `test2` (everyday_test2.jsonl) was written frozen before the third pass, `test3`
# (everyday_test3.jsonl) before the fourth, `test4` (everyday_test4.jsonl) before the fifth,
# `test5` (everyday_test5.jsonl) before the sixth, `test6` before the seventh, `test7` before
# the eighth; the fifth pass tunes on test3, the seventh on test5, the eighth on test6, and
# test4 and test7 are never tuned on.
EVERYDAY_SPLITS = (
    "train", "validation", "test2", "test3", "test4", "test5", "test6", "test7", "test8", "test9",
    "test10", "test11", "test12", "test13", "test14", "test15", "test16", "test17", "test18",
    "test19", "test20", "test21", "test22", "test23", "test24", "test25", "test26",
    "test27", "test28", "test29",
)  # fmt: skip
# The frozen splits scored after train and validation, in the order they were written.
FROZEN_SPLITS = (
    "test2", "test3", "test4", "test5", "test6", "test7", "test8", "test9", "test10", "test11",
    "test12", "test13", "test14", "test15", "test16", "test17", "test18", "test19",
    "test20", "test21", "test22", "test23", "test24", "test25", "test26", "test27",
    "test28", "test29",
)  # fmt: skip
# Splits left out of this run (`--sealed`): a frozen split is printed once, when a pass ends,
# so that nobody tunes on its figures by looking at them. A split written for the next pass is
# sealed from the start: only `--unseal` prints it.
SEALED: set[str] = set()
# The frozen attack files scored next to them, by split.
NEW_ATTACK_FILES = {
    "test2": "attacks_test2.jsonl",
    "test3": "attacks_test3.jsonl",
    "test4": "attacks_test4.jsonl",
    "test5": "attacks_test5.jsonl",
    "test6": "attacks_test6.jsonl",
    "test7": "attacks_test7.jsonl",
    "test8": "attacks_test8.jsonl",
    "test9": "attacks_test9.jsonl",
    "test10": "attacks_test10.jsonl",
    "test11": "attacks_test11.jsonl",
    "test12": "attacks_test12.jsonl",
    "test13": "attacks_test13.jsonl",
    "test14": "attacks_test14.jsonl",
    "test15": "attacks_test15.jsonl",
    "test16": "attacks_test16.jsonl",
    "test17": "attacks_test17.jsonl",
    "test18": "attacks_test18.jsonl",
    "test19": "attacks_test19.jsonl",
    "test20": "attacks_test20.jsonl",
    "test21": "attacks_test21.jsonl",
    "test22": "attacks_test22.jsonl",
    "test23": "attacks_test23.jsonl",
    "test24": "attacks_test24.jsonl",
    "test25": "attacks_test25.jsonl",
    "test26": "attacks_test26.jsonl",
    "test27": "attacks_test27.jsonl",
    "test28": "attacks_test28.jsonl",
    "test29": "attacks_test29.jsonl",
}
# An MCP write is `agent` by default, a CLI or Python write `user`: both are scored.
EVERYDAY_SOURCES = ("user", "agent")


def keep_everything_policy(settings: GuardSettings) -> dict[str, str]:
    """A PII policy that stores every type as written, whatever the policy values are called:
    the value that `apply_policy` leaves in place ("allow" today), so that "altered" under it
    measures the injection side alone."""
    from typing import get_args

    try:
        from graphmem.guard.policy import ACTIONS as values
    except ImportError:  # a tree from before the PII policy by kind
        from graphmem.guard.pii import Policy

        values = get_args(Policy)
    keep = next(v for v in ("keep", "allow") if v in values)
    return {t: keep for t in settings.pii_policy}


def screen_everyday(guard: Guard, rows: list[dict[str, Any]], source: str) -> list[dict[str, Any]]:
    """One row per item: refused, held, or stored; and whether the stored text differs from the
    sanitised input (a detail the user asked to keep replaced), read off the guard's decision."""
    from graphmem.guard.canonical import canonicalize

    depth = guard.settings.max_decode_depth
    out = []
    for r in rows:
        d = guard.screen_write(r["text"], source)
        out.append(
            {
                **r,
                "action": d.action,
                "risk": d.risk,
                "reasons": d.reasons,
                "refused": d.action == "reject",
                "held": d.action == "quarantine",
                "refused_or_held": d.action != "allow",
                "altered": d.action == "allow"
                and d.content_after_masking != canonicalize(r["text"], max_depth=depth).sanitized,
            }
        )
    return out


def everyday_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def by_split(sel: list[dict[str, Any]], key: str) -> dict[str, dict[str, Any]]:
        out = {}
        for s in (*EVERYDAY_SPLITS, "all"):
            part = [r for r in sel if s == "all" or r["split"] == s]
            n = sum(1 for r in part if r[key])
            out[s] = {"n": len(part), "count": n, "rate": n / len(part) if part else None}
        return out

    keys = ("refused", "held", "refused_or_held", "altered")
    return {
        **{k: by_split(rows, k) for k in keys},
        "by_category": {
            c: by_split([r for r in rows if r["category"] == c], "refused_or_held")
            for c in sorted({r["category"] for r in rows})
        },
        "by_lang": {
            lg: {k: by_split([r for r in rows if r["lang"] == lg], k) for k in keys}
            for lg in sorted({r["lang"] for r in rows})
        },
        "flagged": [
            {k: r[k] for k in ("id", "split", "action", "risk", "text", "reasons")}
            for r in rows
            if r["refused_or_held"]
        ],
    }


def load_everyday(corpus: Path) -> list[dict[str, Any]]:
    """The everyday set: everyday.jsonl (train and validation halves) and, where present, the
    frozen splits everyday_test2.jsonl ... everyday_test7.jsonl, except the sealed ones."""
    rows = load_jsonl(corpus / "everyday.jsonl")
    for name in (f"everyday_{s}.jsonl" for s in FROZEN_SPLITS if s not in SEALED):
        extra = corpus / name
        rows += load_jsonl(extra) if extra.exists() else []
    return rows


def eval_new_attacks(
    settings: GuardSettings, corpus: Path, split: str = "test2"
) -> dict[str, Any] | None:
    """A frozen attack file (NEW_ATTACK_FILES[split]), caught = anything but `allow`, as a user
    writes (CLI, Python: the held-out attack figures' source) and as an agent writes (MCP)."""
    path = corpus / NEW_ATTACK_FILES[split]
    if split in SEALED or not path.exists():
        return None
    guard, rows = Guard(settings), load_jsonl(path)
    out: dict[str, Any] = {}
    for source in EVERYDAY_SOURCES:
        decided = [(r, guard.screen_write(r["text"], source)) for r in rows]
        missed = [
            {"id": r["id"], "risk": d.risk, "text": r["text"]}
            for r, d in decided
            if d.action == "allow"
        ]
        out[source] = {
            "n": len(rows),
            "count": len(rows) - len(missed),
            "rate": (len(rows) - len(missed)) / len(rows) if rows else None,
            "by_lang": {
                lg: {
                    "n": sum(1 for r in rows if r["lang"] == lg),
                    "count": sum(1 for r, d in decided if r["lang"] == lg and d.action != "allow"),
                }
                for lg in sorted({r["lang"] for r in rows})
            },
            "missed": missed,
        }
    return out


def new_attacks_markdown(
    new: dict[str, Any] | None, base: dict[str, Any] | None, split: str = "test2"
) -> str:
    """New attacks caught, before (baseline tree) and after, per source."""
    if not new:
        return ""
    lines = [
        f"New attacks caught (bench/firewall_corpus/{NEW_ATTACK_FILES[split]}, frozen):",
        "",
        "| source | before | after |",
        "|---|---|---|",
    ]
    for source, d in new.items():
        b = base.get(source) if base else None
        lines.append(f"| {source} | {cell(b) if b else '–'} | {cell(d)} |")
    for r in new.get("user", {}).get("missed", []):
        lines.append(f"  missed (user) {r['risk']:.2f}  {r['id']}  {r['text'][:100]!r}")
    return "\n".join(lines)


def eval_everyday(settings: GuardSettings, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Everyday memories through the default guard, the same guard with every PII type kept
    (the injection side alone), and raw storage (everything kept as written: the baseline)."""
    guards = {
        "guard": Guard(settings),
        "guard_pii_kept": Guard(
            settings.model_copy(update={"pii_policy": keep_everything_policy(settings)})
        ),
    }
    raw = [
        {**r, "refused": False, "held": False, "refused_or_held": False, "altered": False}
        for r in rows
    ]
    out: dict[str, Any] = {"raw": everyday_summary(raw)}
    for source in EVERYDAY_SOURCES:
        for name, g in guards.items():
            out[f"{name}:{source}"] = everyday_summary(screen_everyday(g, rows, source))
    return out


def everyday_markdown(ev: dict[str, Any], base: dict[str, Any] | None = None) -> str:
    """Refused, held and altered everyday memories per split, source and PII setting; with a
    baseline tree, its figures first."""

    def c(d: dict[str, Any]) -> str:
        return f"{pct(d['rate'])} ({d['count']}/{d['n']})"

    shown = [s for s in FROZEN_SPLITS if s not in SEALED]  # a sealed split gets no column
    runs = [("raw storage (baseline)", ev["raw"])]
    if base is not None:
        runs += [(f"before: {k}", v) for k, v in base.items() if k != "raw"]
    runs += [(("after: " if base is not None else "") + k, v) for k, v in ev.items() if k != "raw"]
    lines = [
        "Everyday memories (bench/firewall_corpus/everyday.jsonl), refused + held and altered:",
        "",
        "| screening | train refused+held | validation refused+held | validation refused |"
        " validation held |"
        + "".join(f" {s} refused+held |" for s in shown)
        + " train altered | validation altered |"
        + "".join(f" {s} altered |" for s in shown),
        "|---|---|---|---|---|" + "---|---|" + "---|" * 2 * len(shown),
    ]
    for name, d in runs:
        rh, alt = d["refused_or_held"], d["altered"]
        lines.append(
            f"| {name} | {c(rh['train'])} | {c(rh['validation'])} |"
            f" {c(d['refused']['validation'])} | {c(d['held']['validation'])} |"
            + "".join(f" {c(rh[s])} |" for s in shown if s in rh)
            + f" {c(alt['train'])} | {c(alt['validation'])} |"
            + "".join(f" {c(alt[s])} |" for s in shown if s in alt)
        )
    main = ev.get("guard:agent")
    if main:
        lines += [
            "",
            "Refused + held by category and language (guard, source=agent as over MCP):",
            "",
            "| category | train | validation |" + "".join(f" {s} |" for s in shown),
            "|---|---|---|" + "---|" * len(shown),
        ]
        for cat, d in main["by_category"].items():
            lines.append(
                f"| {cat} | {c(d['train'])} | {c(d['validation'])} |"
                + "".join(f" {c(d[s])} |" for s in shown)
            )
        for lg, d in main["by_lang"].items():
            rh = d["refused_or_held"]
            lines.append(
                f"| language {lg} | {c(rh['train'])} | {c(rh['validation'])} |"
                + "".join(f" {c(rh[s])} |" for s in shown)
            )
    return "\n".join(lines)


# ------------------------------------------------------------------ report


def pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def cell(d: dict[str, Any]) -> str:
    return f"{pct(d['rate'])} ({d['count']}/{d['n']})"


def markdown(res: dict[str, Any]) -> str:
    a, b, lo, pii = res["attacks"], res["benign"], res["locomo"], res["pii"]
    lat = res["latency_ms"]
    lines = [
        "| metric | target | dev | test | all |",
        "|---|---|---|---|---|",
    ]

    def row(name: str, target: str, d: dict[str, dict[str, Any]]) -> None:
        lines.append(f"| {name} | {target} | " + " | ".join(cell(d[s]) for s in SPLITS) + " |")

    row("attacks caught, BIPIA + ours", ">= 95%", a["combined"])
    row("  ours (EN + ZH, incl. obfuscated)", "", a["ours"])
    row("  BIPIA", "", a["bipia"])
    row("benign near-misses flagged", "", b["near_miss"])
    row("LoCoMo turns flagged", "<= 1%", lo["flagged"])
    row("LoCoMo turns with PII masked", "", lo["pii_masked"])
    rec = pii["recall"]
    lines.append(
        "| PII recall (type-correct) | >= 98% | "
        + " | ".join(
            f"{pct(rec[s]['overall']['recall'])} ({rec[s]['overall']['found']}/"
            f"{rec[s]['overall']['n']})"
            for s in SPLITS
        )
        + " |"
    )
    neg = pii["negatives"]
    lines.append(
        "| PII negatives with a false finding | | "
        + " | ".join(f"{neg[s]['flagged']}/{neg[s]['n']}" for s in SPLITS)
        + " |"
    )
    lines.append(f"| screening p50 per write (LoCoMo) | <= 2 ms | | | {lat['guard_p50']:.3f} ms |")
    lines.append(f"| screening p95 per write (LoCoMo) | | | | {lat['guard_p95']:.3f} ms |")
    lines.append(
        f"| baseline: search_text p50 (same run) | | | | {lat['baseline_p50']:.3f} ms"
        f" (guard = {lat['ratio_p50']:.1f}x) |"
    )
    out = [
        "\n".join(lines),
        "",
        "Attacks caught by category (all splits):",
        "",
        "| category | dev | test | all |",
        "|---|---|---|---|",
    ]
    for cat, d in sorted(a["by_category"].items()):
        out.append(f"| {cat} | " + " | ".join(cell(d[s]) for s in SPLITS) + " |")
    out += ["", "| obfuscation | dev | test | all |", "|---|---|---|---|"]
    for cat, d in sorted(a["by_obfuscation"].items()):
        out.append(f"| {cat} | " + " | ".join(cell(d[s]) for s in SPLITS) + " |")
    out += ["", "| corpus round | dev | test | all |", "|---|---|---|---|"]
    for cat, d in sorted(a["by_round"].items()):
        out.append(f"| {cat} | " + " | ".join(cell(d[s]) for s in SPLITS) + " |")
    out += ["", "| benign near-misses flagged, by round | dev | test | all |", "|---|---|---|---|"]
    for cat, d in sorted(res["benign"]["by_round"].items()):
        out.append(f"| {cat} | " + " | ".join(cell(d[s]) for s in SPLITS) + " |")
    out += ["", "| language | dev | test | all |", "|---|---|---|---|"]
    for cat, d in sorted(a["by_lang"].items()):
        out.append(f"| {cat} | " + " | ".join(cell(d[s]) for s in SPLITS) + " |")
    out += [
        "",
        "PII recall by type (all splits):",
        "",
        "| type | dev | test | all |",
        "|---|---|---|---|",
    ]
    types = sorted(k for k in rec["all"] if k != "overall")
    for t in types:
        out.append(
            f"| {t} | "
            + " | ".join(
                f"{pct(rec[s][t]['recall'])} ({rec[s][t]['found']}/{rec[s][t]['n']})"
                if t in rec[s]
                else "–"
                for s in SPLITS
            )
            + " |"
        )
    prec = pii.get("precision")
    if prec:
        out += [
            "",
            "PII precision by type (all splits; findings that overlap a value labelled with "
            "their type):",
            "",
            "| type | dev | test | all |",
            "|---|---|---|---|",
        ]
        for t in sorted(prec["all"], key=lambda k: (k == "overall", k)):
            out.append(
                f"| {t} | "
                + " | ".join(
                    f"{pct(prec[s][t]['precision'])} ({prec[s][t]['right']}/"
                    f"{prec[s][t]['findings']})"
                    if t in prec[s]
                    else "–"
                    for s in SPLITS
                )
                + " |"
            )
    pres = res.get("presidio")
    if pres and "error" not in pres:
        out += [
            "",
            "PII: graphmem recognisers vs Presidio (all splits; Presidio "
            f"{pres['version']}, blank spaCy pipeline):",
            "",
            "| type | graphmem | Presidio |",
            "|---|---|---|",
        ]
        for t in [*types, "overall"]:
            g = rec["all"][t]
            p = pres["recall"].get(t)
            ptxt = "no recogniser" if p is None else f"{pct(p['recall'])} ({p['found']}/{p['n']})"
            out.append(f"| {t} | {pct(g['recall'])} ({g['found']}/{g['n']}) | {ptxt} |")
        sup = pres["recall"].get("supported_overall")
        if sup:
            mine = sum(rec["all"][t]["found"] for t in pres["supported"])
            n = sum(rec["all"][t]["n"] for t in pres["supported"])
            out.append(
                f"| types both cover | {pct(mine / n)} ({mine}/{n}) | "
                f"{pct(sup['recall'])} ({sup['found']}/{sup['n']}) |"
            )
        out.append(
            f"| negatives with a false finding | {neg['all']['flagged']}/{neg['all']['n']}"
            f" | {pres['negatives_flagged']}/{pres['negatives']} |"
        )
        out.append(f"| p50 per text | {pii['p50_ms']:.3f} ms | {pres['p50_ms']:.3f} ms |")
        out.append(f"| p95 per text | {pii['p95_ms']:.3f} ms | {pres['p95_ms']:.3f} ms |")
        out.append(f"| start-up | – | {pres['init_s']:.1f} s |")
    elif pres:
        out += ["", f"Presidio: {pres['error']}"]
    return "\n".join(out)


def summarise(rows: list[dict[str, Any]], key: str = "ok") -> dict[str, dict[str, Any]]:
    return {s: rate(rows, key, s) for s in SPLITS}


def group(
    rows: list[dict[str, Any]], field: str, key: str = "ok"
) -> dict[str, dict[str, dict[str, Any]]]:
    keys = sorted({str(r.get(field)) for r in rows})
    return {k: summarise([r for r in rows if str(r.get(field)) == k], key) for k in keys}


def rules_only_pass(
    guard: Guard,
    ours: list[dict[str, Any]],
    bipia: list[dict[str, Any]],
    benign: list[dict[str, Any]],
    locomo: list[dict[str, Any]],
    notes: list[dict[str, Any]],
) -> dict[str, list[dict[str, Any]]]:
    """Screen copies of every set with the classifier off: the 'before' of the same run."""
    out = {}
    for name, rows, want in (
        ("ours", ours, "attack"),
        ("bipia", bipia, "attack"),
        ("benign", benign, "benign"),
        ("locomo", locomo, "benign"),
        ("notes", notes, "benign"),
    ):
        copy = [dict(r) for r in rows]
        screen_all(guard, copy, want)
        out[name] = copy
    return out


def paired_latency(
    rules_guard: Guard, guard: Guard, rows: list[dict[str, Any]]
) -> dict[str, float | None]:
    """Per-write screening time with and without the classifier, interleaved turn by turn so
    machine noise hits both alike; the extra cost of the classifier is the difference."""
    a, b, ca, cb = [], [], [], []
    for r in rows:
        c0, t0 = time.thread_time(), time.perf_counter()
        rules_guard.screen_write(r["text"], "user", r.get("metadata"))
        c1, t1 = time.thread_time(), time.perf_counter()
        guard.screen_write(r["text"], "user", r.get("metadata"))
        c2, t2 = time.thread_time(), time.perf_counter()
        a.append((t1 - t0) * 1000)
        b.append((t2 - t1) * 1000)
        ca.append((c1 - c0) * 1000)
        cb.append((c2 - c1) * 1000)
    return {
        # CPU time of this thread: what a write costs when it is not waiting for a core
        "rules_cpu_p50": percentile(ca, 50),
        "full_cpu_p50": percentile(cb, 50),
        "full_cpu_p95": percentile(cb, 95),
        "rules_p50": percentile(a, 50),
        "rules_p95": percentile(a, 95),
        "full_p50": percentile(b, 50),
        "full_p95": percentile(b, 95),
        "extra_p50": percentile([y - x for x, y in zip(a, b, strict=True)], 50),
    }


def before_after(
    before: dict[str, list[dict[str, Any]]],
    ours: list[dict[str, Any]],
    bipia: list[dict[str, Any]],
    benign: list[dict[str, Any]],
    locomo: list[dict[str, Any]],
    notes: list[dict[str, Any]],
) -> dict[str, Any]:
    """Held-out figures, rules only vs rules + classifier, with per-category EN/ZH detail."""

    def both(rows_b: list[dict[str, Any]], rows_a: list[dict[str, Any]], key: str) -> dict:
        return {"rules": rate(rows_b, key, "test"), "full": rate(rows_a, key, "test")}

    def cats(rows_b: list[dict[str, Any]], rows_a: list[dict[str, Any]]) -> dict:
        out: dict[str, dict[str, Any]] = {}
        for cat in sorted({r["category"] for r in rows_a if r["split"] == "test"}):
            for lang in ("en", "zh"):

                def sel(rows: list[dict[str, Any]], c: str = cat, lg: str = lang) -> list:
                    return [r for r in rows if r["category"] == c and r["lang"] == lg]

                out.setdefault(cat, {})[lang] = both(sel(rows_b), sel(rows_a), "ok")
        return out

    def by_lang(rows_b: list[dict[str, Any]], rows_a: list[dict[str, Any]], key: str) -> dict:
        return {
            lg: both(
                [r for r in rows_b if r["lang"] == lg], [r for r in rows_a if r["lang"] == lg], key
            )
            for lg in ("en", "zh")
        }

    def obf(rows: list[dict[str, Any]], plain: bool) -> list[dict[str, Any]]:
        return [r for r in rows if (r.get("obfuscation") is None) == plain]

    return {
        "ours": both(before["ours"], ours, "ok"),
        "ours_plain": both(obf(before["ours"], True), obf(ours, True), "ok"),
        "ours_obfuscated": both(obf(before["ours"], False), obf(ours, False), "ok"),
        "ours_by_lang": by_lang(before["ours"], ours, "ok"),
        "bipia": both(before["bipia"], bipia, "ok"),
        "combined": both(before["ours"] + before["bipia"], ours + bipia, "ok"),
        "near_miss": both(before["benign"], benign, "flagged"),
        "near_miss_by_lang": by_lang(before["benign"], benign, "flagged"),
        "locomo_heldout": both(before["locomo"], locomo, "flagged"),
        "locomo_train": {
            "rules": rate(before["locomo"], "flagged", "dev"),
            "full": rate(locomo, "flagged", "dev"),
        },
        "locomo_all": {
            "rules": rate(before["locomo"], "flagged", "all"),
            "full": rate(locomo, "flagged", "all"),
        },
        "by_category": cats(before["ours"], ours),
        "notes_heldout": both(before["notes"], notes, "flagged"),
        "notes_dev": {
            "rules": rate(before["notes"], "flagged", "dev"),
            "full": rate(notes, "flagged", "dev"),
        },
        "notes_by_category": {
            cat: both(
                [r for r in before["notes"] if r["category"] == cat],
                [r for r in notes if r["category"] == cat],
                "flagged",
            )
            for cat in sorted({r["category"] for r in notes if r["split"] == "test"})
        },
    }


def _flagged(guard: Guard, text: str, source: str) -> bool:
    return guard.screen_write(text, source).action != "allow"


def notes_by_source(guard: Guard, notes: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Held-out notes flagged when an agent or a document wrote them: those sources add risk
    once anything fired, and MCP writes default to `agent`."""
    out = {}
    for source in ("agent", "document"):
        rows = [{"split": r["split"], "flagged": _flagged(guard, r["text"], source)} for r in notes]
        out[source] = {"full": rate(rows, "flagged", "test")}
    return out


def before_after_markdown(res: dict[str, Any]) -> str:
    ba, lat = res["before_after"], res["latency_ms"]["paired"]

    def c2(d: dict[str, Any]) -> str:
        return f"{cell(d['rules'])} | {cell(d['full'])}"

    lines = [
        "Held out, rules only vs rules + classifier (same run):",
        "",
        "| metric | target | rules only | rules + classifier |",
        "|---|---|---|---|",
        f"| attacks caught, ours round 6 + BIPIA 3-5 | >= 95% | {c2(ba['combined'])} |",
        f"|   ours, round 6 (EN + ZH) | | {c2(ba['ours'])} |",
        f"|     plain | | {c2(ba['ours_plain'])} |",
        f"|     obfuscated variants | | {c2(ba['ours_obfuscated'])} |",
        f"|     EN | | {c2(ba['ours_by_lang']['en'])} |",
        f"|     ZH | | {c2(ba['ours_by_lang']['zh'])} |",
        f"|   BIPIA 3-5 | | {c2(ba['bipia'])} |",
        f"| benign near-misses flagged, round 6 | | {c2(ba['near_miss'])} |",
        f"|   EN | | {c2(ba['near_miss_by_lang']['en'])} |",
        f"|   ZH | | {c2(ba['near_miss_by_lang']['zh'])} |",
        f"| LoCoMo turns flagged, 6 held-out conversations | <= 1% | {c2(ba['locomo_heldout'])} |",
        f"| everyday notes flagged, round 2 (held out) | <= 1% | {c2(ba['notes_heldout'])} |",
        f"| everyday notes flagged, round 1 (trained on) | | {c2(ba['notes_dev'])} |",
        f"| LoCoMo turns flagged, 4 training conversations | | {c2(ba['locomo_train'])} |",
        f"| LoCoMo turns flagged, all 10 (labelled: 4 trained on) | | {c2(ba['locomo_all'])} |",
        f"| screening p50 per write (LoCoMo, interleaved) | <= 2 ms | {lat['rules_p50']:.3f} ms"
        f" | {lat['full_p50']:.3f} ms |",
        f"| screening p95 per write | | {lat['rules_p95']:.3f} ms | {lat['full_p95']:.3f} ms |",
        f"| classifier's extra cost per write, p50 of paired differences | | |"
        f" {lat['extra_p50']:.3f} ms |",
        f"| screening CPU time per write, p50 (thread time) | | {lat['rules_cpu_p50']:.3f} ms"
        f" | {lat['full_cpu_p50']:.3f} ms (p95 {lat['full_cpu_p95']:.3f} ms) |",
        "",
        "Held-out attacks (round 6) by category and language:",
        "",
        "| category | EN rules only | EN + classifier | ZH rules only | ZH + classifier |",
        "|---|---|---|---|---|",
    ]
    for cat, d in ba["by_category"].items():
        lines.append(f"| {cat} | {c2(d['en'])} | {c2(d['zh'])} |")
    lines += [
        "",
        "Held-out everyday notes (round 2) flagged, by kind:",
        "",
        "| kind | rules only | rules + classifier |",
        "|---|---|---|",
    ]
    for cat, d in ba["notes_by_category"].items():
        lines.append(f"| {cat} | {c2(d)} |")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> dict[str, Any]:
    settings = GuardSettings(
        rate_limit_backend="off", injection_threshold=args.threshold, _env_file=None
    )
    guard = Guard(settings)
    rules_guard = Guard(settings.model_copy(update={"classifier": False}))
    load_start = os.getloadavg()[0]
    ours = load_jsonl(args.corpus / "attacks.jsonl")
    for r in ours:
        r["source"] = "ours"
    bipia = load_bipia(args.bipia)
    benign = load_jsonl(args.corpus / "benign.jsonl")
    pii_rows = load_jsonl(args.corpus / "pii.jsonl")
    locomo = load_locomo(args.locomo)
    notes_path = args.corpus / "notes.jsonl"
    notes = load_jsonl(notes_path) if notes_path.exists() else []
    for r in (*ours[:20], *locomo[:200]):  # warm caches (regex compilation, lru caches)
        guard.screen_write(r["text"])
    before = rules_only_pass(rules_guard, ours, bipia, benign, locomo, notes)
    screen_all(guard, ours, "attack")
    screen_all(guard, notes, "benign")
    screen_all(guard, bipia, "attack")
    screen_all(guard, benign, "benign")
    screen_all(guard, locomo, "benign")
    paired = paired_latency(rules_guard, guard, locomo)
    for r in locomo:
        r["pii_masked"] = bool(r["pii"])
    base = []
    for r in locomo:
        t0 = time.perf_counter()
        search_text(r["text"])
        base.append((time.perf_counter() - t0) * 1000)
    guard_ms = [r["ms"] for r in locomo]
    attacks = ours + bipia
    result: dict[str, Any] = {
        "command": command_line(),
        "machine": machine_info(),
        "threshold": args.threshold,
        "load_avg_1min_start_end": [load_start, os.getloadavg()[0]],
        "reject_threshold": settings.reject_threshold,
        "attacks": {
            "combined": summarise(attacks),
            "ours": summarise(ours),
            "bipia": summarise(bipia),
            "by_category": group(attacks, "category"),
            "by_obfuscation": group(ours, "obfuscation"),
            "by_lang": group(ours, "lang"),
            "by_round": group(ours, "round"),
            "actions": {
                k: sum(1 for r in attacks if r["action"] == k)
                for k in ("allow", "quarantine", "reject")
            },
        },
        "benign": {
            "near_miss": summarise(benign, "flagged"),
            "by_round": group(benign, "round", "flagged"),
            "by_lang": {
                k: summarise([r for r in benign if r["lang"] == k], "flagged") for k in ("en", "zh")
            },
        },
        "locomo": {
            "flagged": summarise(locomo, "flagged"),
            "pii_masked": summarise(locomo, "pii_masked"),
            "pii_types": {
                t: sum(1 for r in locomo if t in r["pii"])
                for t in sorted({t for r in locomo for t in r["pii"]})
            },
        },
        "pii": eval_pii(guard, pii_rows),
        "latency_ms": {
            "guard_p50": percentile(guard_ms, 50),
            "guard_p95": percentile(guard_ms, 95),
            "guard_p99": percentile(guard_ms, 99),
            "guard_mean": sum(guard_ms) / len(guard_ms),
            "baseline_p50": percentile(base, 50),
            "n": len(guard_ms),
            "attack_p50": percentile([r["ms"] for r in attacks], 50),
        },
    }
    everyday_path = args.corpus / "everyday.jsonl"
    if everyday_path.exists():
        result["everyday"] = eval_everyday(settings, load_everyday(args.corpus))
    result.update(all_new_attacks(settings, args.corpus))
    result["before_after"] = before_after(before, ours, bipia, benign, locomo, notes)
    result["before_after"]["notes_heldout_by_source"] = notes_by_source(guard, notes)
    result["latency_ms"]["paired"] = paired
    lat = result["latency_ms"]
    lat["ratio_p50"] = lat["guard_p50"] / lat["baseline_p50"] if lat["baseline_p50"] else None
    if args.presidio_python:
        result["presidio"] = run_presidio(args.presidio_python, args.corpus / "pii.jsonl")
    result["misses"] = {
        "attacks": [
            {k: r[k] for k in ("id", "split", "category", "risk", "text", "reasons")}
            for r in attacks
            if not r["ok"]
        ],
        "benign": [
            {k: r[k] for k in ("id", "split", "risk", "text", "reasons")}
            for r in benign + locomo + notes
            if r["flagged"]
        ],
    }
    return result


def show_misses(res: dict[str, Any], split: str) -> str:
    def keep(r: dict[str, Any]) -> bool:
        return split == "all" or r["split"] == split

    out = [f"\nMisses ({split}):"]
    for r in filter(keep, res["misses"]["attacks"]):
        out.append(f"  attack not caught  {r['risk']:.2f}  {r['id']}  {r['text'][:100]!r}")
    for r in filter(keep, res["misses"]["benign"]):
        out.append(f"  benign flagged     {r['risk']:.2f}  {r['id']}  {r['text'][:100]!r}")
        out.extend(f"      {x[:120]}" for x in r["reasons"][:4])
    for r in filter(keep, res["pii"]["misses"]):
        out.append(f"  pii {r['type']:<15} {r['id']}  {r['text'][:80]!r}  got={r['got']}")
    return "\n".join(out)


def run_baseline(args: argparse.Namespace) -> dict[str, Any]:
    """This benchmark, same corpus and arguments, with the graphmem of `args.baseline_tree`
    (its code and its shipped classifier) first on the path, in a subprocess."""
    import tempfile

    tree = args.baseline_tree.resolve()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "baseline.json"
        cmd = [sys.executable, str(Path(__file__).resolve()), "--corpus", str(args.corpus)]
        cmd += ["--bipia", str(args.bipia), "--locomo", str(args.locomo)]
        cmd += ["--threshold", str(args.threshold), "--out", str(out)]
        if args.everyday_only:
            cmd.append("--everyday-only")
        if args.sealed:
            cmd += ["--sealed", args.sealed]
        if args.unseal:
            cmd += ["--unseal", args.unseal]
        env = {**os.environ, "PYTHONPATH": str(tree)}
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=3600)
        if proc.returncode != 0:
            raise SystemExit(f"baseline run failed: {proc.stderr.strip()[-500:]}")
        return json.loads(out.read_text("utf-8"))


def compare_markdown(base: dict[str, Any], res: dict[str, Any], tree: Path) -> str:
    """Rules + classifier, baseline tree vs this tree, on the held-out sets (same run)."""
    b, a = base["before_after"], res["before_after"]
    lb, la = base["latency_ms"]["paired"], res["latency_ms"]["paired"]
    lines = [
        f"Before ({tree}) vs after (this tree), rules + classifier, same run:",
        "",
        "| metric | target | before | after |",
        "|---|---|---|---|",
    ]

    def row(name: str, target: str, key: str) -> None:
        if key in b and key in a:
            lines.append(f"| {name} | {target} | {cell(b[key]['full'])} | {cell(a[key]['full'])} |")

    row("attacks caught, ours round 6 + BIPIA 3-5", ">= 96.3%", "combined")
    row("  ours, round 6 (EN + ZH)", "", "ours")
    row("    obfuscated variants", "", "ours_obfuscated")
    row("  BIPIA 3-5", "", "bipia")
    row("everyday notes flagged, round 2 (held out)", "<= 1%", "notes_heldout")
    row("everyday notes flagged, round 1 (trained on)", "", "notes_dev")
    sb, sa = b.get("notes_heldout_by_source", {}), a.get("notes_heldout_by_source", {})
    for source in ("agent", "document"):
        if source in sb and source in sa:
            lines.append(
                f"|   round 2 written as source={source} | | {cell(sb[source]['full'])} |"
                f" {cell(sa[source]['full'])} |"
            )
    row("benign near-misses flagged, round 6", "", "near_miss")
    row("LoCoMo turns flagged, 6 held-out conversations", "<= 1%", "locomo_heldout")
    lines.append(
        f"| screening p50 per LoCoMo write (wall / thread CPU) | | {lb['full_p50']:.3f} /"
        f" {lb['full_cpu_p50']:.3f} ms | {la['full_p50']:.3f} / {la['full_cpu_p50']:.3f} ms |"
    )
    nb, na = b.get("notes_by_category", {}), a.get("notes_by_category", {})
    if nb and na:
        lines += ["", "| held-out notes flagged, by kind | before | after |", "|---|---|---|"]
        for cat in na:
            if cat in nb:
                lines.append(f"| {cat} | {cell(nb[cat]['full'])} | {cell(na[cat]['full'])} |")
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", type=Path, default=CORPUS)
    p.add_argument("--bipia", type=Path, default=SHARED / "bipia_text_attack_train.json")
    p.add_argument("--locomo", type=Path, default=SHARED / "locomo10.json")
    p.add_argument("--threshold", type=float, default=0.7, help="quarantine threshold")
    p.add_argument(
        "--show-misses",
        choices=(*SPLITS, *FROZEN_SPLITS),
        help="list what a split gets wrong",
    )
    p.add_argument("--presidio-python", help="an interpreter with presidio-analyzer installed")
    p.add_argument("--out", type=Path, help="JSON result file (default: bench/results/...)")
    p.add_argument(
        "--sealed",
        default="",
        help="frozen splits to leave out of this run, comma-separated (e.g. test7 while tuning)",
    )
    p.add_argument(
        "--unseal",
        default="",
        help="frozen splits sealed from the start to score in this run (test29: a pass's "
        "final run, once)",
    )
    p.add_argument(
        "--everyday-only",
        action="store_true",
        help="screen only everyday.jsonl (refused, held, altered), a quick check",
    )
    p.add_argument(
        "--baseline-tree",
        type=Path,
        help="a graphmem source tree to screen the same corpus with first (before/after)",
    )
    return p.parse_args(argv)


def everyday_misses(ev: dict[str, Any], split: str) -> str:
    """Everyday memories refused or held by the default guard, as an MCP (agent) write."""
    out = ["\nEveryday memories refused or held (guard, source=agent):"]
    for r in ev["guard:agent"]["flagged"]:
        if split in ("all", r["split"]) or (split == "dev" and r["split"] == "train"):
            out.append(f"  {r['action']:<10} {r['risk']:.2f}  {r['id']}  {r['text'][:100]!r}")
            out.extend(f"      {x[:120]}" for x in r["reasons"][:4])
    return "\n".join(out)


def attacks_key(split: str) -> str:
    """Where a frozen attack file's figures sit in the result JSON (test2's kept its old key)."""
    return "new_attacks" if split == "test2" else f"new_attacks_{split}"


def all_new_attacks(settings: GuardSettings, corpus: Path) -> dict[str, Any]:
    """Every frozen attack file's figures, keyed as in the result JSON."""
    return {attacks_key(s): eval_new_attacks(settings, corpus, s) for s in NEW_ATTACK_FILES}


def print_new_attacks(res: dict[str, Any], base: dict[str, Any] | None) -> None:
    """Every frozen attack file, before (baseline tree) and after."""
    for split in NEW_ATTACK_FILES:
        key = attacks_key(split)
        if res.get(key):
            nb = base.get(key) if base else None
            print("\n" + new_attacks_markdown(res[key], nb, split))


def everyday_only(args: argparse.Namespace, base: dict[str, Any] | None, out: Path) -> int:
    """The quick path: only the everyday set, with the baseline tree's figures if given."""
    settings = GuardSettings(
        rate_limit_backend="off", injection_threshold=args.threshold, _env_file=None
    )
    res = {
        "command": command_line(),
        "machine": machine_info(),
        "threshold": args.threshold,
        "everyday": eval_everyday(settings, load_everyday(args.corpus)),
        **all_new_attacks(settings, args.corpus),
        "before_after": {},
    }
    out.write_text(json.dumps(res, indent=1, ensure_ascii=False, default=str), "utf-8")
    print(everyday_markdown(res["everyday"], base.get("everyday") if base else None))
    print_new_attacks(res, base)
    if args.show_misses:
        print(everyday_misses(res["everyday"], args.show_misses))
    print(f"\n{command_line()}  ->  {out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    SEALED.update(x for x in args.sealed.split(",") if x)
    SEALED.difference_update(x for x in args.unseal.split(",") if x)
    for path in (args.bipia, args.locomo):
        if not path.exists():
            print(f"{path} not found (see bench data instructions)", file=sys.stderr)
            return 2
    base = run_baseline(args) if args.baseline_tree else None
    out = args.out or RESULTS_DIR / f"firewall-{datetime.now().strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    if args.everyday_only:
        return everyday_only(args, base, out)
    res = run(args)
    if base is not None:
        res["baseline"] = {
            "tree": str(args.baseline_tree),
            "before_after": base["before_after"],
            "everyday": base.get("everyday"),
            **{attacks_key(s): base.get(attacks_key(s)) for s in NEW_ATTACK_FILES},
        }
    out.write_text(json.dumps(res, indent=1, ensure_ascii=False, default=str), "utf-8")
    m = res["machine"]
    print(
        f"Memory firewall — {m['date']}, {m['cpu']}, {m['cores']} cores, threshold"
        f" {res['threshold']} (reject at {res['reject_threshold']}), load average"
        f" {res['load_avg_1min_start_end'][0]:.1f} -> {res['load_avg_1min_start_end'][1]:.1f}\n"
    )
    if base is not None:
        print(compare_markdown(base, res, args.baseline_tree) + "\n")
    print(before_after_markdown(res))
    if "everyday" in res:
        print("\n" + everyday_markdown(res["everyday"], base.get("everyday") if base else None))
    print_new_attacks(res, base)
    print("\nRules + classifier, every split:\n")
    print(markdown(res))
    if args.show_misses:
        print(show_misses(res, args.show_misses))
        if "everyday" in res:
            print(everyday_misses(res["everyday"], args.show_misses))
    shown = out.relative_to(REPO_ROOT) if out.is_relative_to(REPO_ROOT) else out
    print(f"\n{command_line()}  ->  {shown}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
