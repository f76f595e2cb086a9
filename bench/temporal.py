"""Knowledge-update benchmark: does recall answer with the current fact, and with the old one
when asked about the past? Temporal validity on vs off, one store, one run, no LLM.

Every synthetic user (and a second, Chinese-speaking one: one person has one home) gets filler
memories (bench/synth.py) and update chains, each written at increasing dates: home city in
English ("I live in X" -> "I moved to Y" -> "I've relocated to Z"), home city in Chinese
("我住在X" -> "我上个月搬到了Y"), employer, manager, and a report's due date corrected with
"Actually, ...". Questions per chain:

  current  "Where do I live?"                -> the latest value
  past     "Where did I live before?"        -> the value before the latest
  as_of    "Where do I live?" at a date      -> the value valid then

Modes (same questions, same store):
  validity   the defaults: current facts; past questions include superseded ones; as_of given
  off        include_history=True and no as_of: every version competes, as if nothing were
             superseded (what recall did before temporal validity)

Metrics: top-1 accuracy (the best hit states the expected value), and for current questions
stale@5 (an outdated value among the top 5).

Usage: python bench/temporal.py [--users 40] [--fillers 20] [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402
    RESULTS_DIR,
    CpuMeter,
    command_line,
    fmt,
    machine_info,
    make_settings,
    median,
)
from synth import CITIES, NAMES, Generator  # noqa: E402

ZH_CITIES = "上海 深圳 北京 杭州 成都 武汉 南京 西安 重庆 厦门 青岛 苏州".split()
ORGS = "Initech Globex Umbrella Hooli Vandelay Acme Stark Wayne Wonka Cyberdyne".split()
PROJECTS = "quarterly budget audit hiring roadmap security pricing".split()
DAYS = "Monday Tuesday Wednesday Thursday Friday".split()
START = datetime(2022, 1, 1, tzinfo=UTC)


def chains(r: random.Random) -> list[dict[str, Any]]:
    """One user's update chains: texts with their values, and the questions about them."""
    c = r.sample(CITIES, 3)
    z = r.sample(ZH_CITIES, 2)
    o = r.sample(ORGS, 2)
    n = r.sample(NAMES, 2)
    p = r.choice(PROJECTS)
    d = r.sample(DAYS, 2)
    return [
        {
            "name": "home-en",
            "texts": [f"I live in {c[0]}", f"I moved to {c[1]}", f"I've relocated to {c[2]}"],
            "values": c,
            "current": "Where do I live?",
            "past": "Where did I live before?",
        },
        {
            "name": "home-zh",
            "texts": [f"我住在{z[0]}", f"我上个月搬到了{z[1]}"],
            "values": z,
            "current": "我住在哪里？",
            "past": "我以前住在哪里？",
        },
        {
            "name": "employer",
            "texts": [f"I work at {o[0]}", f"I joined {o[1]}"],
            "values": o,
            "current": "Where do I work?",
            "past": "Where did I work before?",
        },
        {
            "name": "manager",
            "texts": [f"My manager is {n[0]}", f"My new manager is {n[1]}"],
            "values": n,
            "current": "Who is my manager?",
            "past": "Who was my manager previously?",
        },
        {
            "name": "due-date",
            "texts": [
                f"The {p} report is due on {d[0]}",
                f"Actually, the {p} report is due on {d[1]}",
            ],
            "values": d,
            "current": f"When is the {p} report due?",
            "past": f"When was the {p} report due before?",
        },
    ]


def build(users: int, fillers: int, seed: int) -> tuple[dict[str, list[dict]], list[dict]]:
    r = random.Random(seed)
    gen = Generator(seed)
    writes: dict[str, list[dict]] = {}
    questions: list[dict] = []
    for u in range(users):
        user = f"temporal-{u:03d}"
        items = [
            {"content": t, "created_at": START + timedelta(days=r.randrange(0, 900))}
            for t in gen.memories(fillers)
        ]
        zh_items = [
            {"content": t, "created_at": START + timedelta(days=r.randrange(0, 900))}
            for t in gen.memories(fillers)
        ]
        for ch in chains(r):
            # One person has one home: the Chinese chain belongs to a second user.
            owner, into = (f"{user}-zh", zh_items) if ch["name"].endswith("-zh") else (user, items)
            when = START + timedelta(days=r.randrange(0, 60))
            dates = []
            for text in ch["texts"]:
                into.append({"content": text, "created_at": when})
                dates.append(when)
                when += timedelta(days=r.randrange(90, 300))
            vals = ch["values"][: len(ch["texts"])]
            questions.append(
                {
                    "user": owner,
                    "chain": ch["name"],
                    "kind": "current",
                    "query": ch["current"],
                    "expect": vals[-1],
                    "stale": vals[:-1],
                }
            )
            questions.append(
                {
                    "user": owner,
                    "chain": ch["name"],
                    "kind": "past",
                    "query": ch["past"],
                    "expect": vals[-2],
                    "stale": [],
                }
            )
            mid = dates[0] + (dates[1] - dates[0]) / 2
            questions.append(
                {
                    "user": owner,
                    "chain": ch["name"],
                    "kind": "as_of",
                    "query": ch["current"],
                    "expect": vals[0],
                    "stale": vals[1:],
                    "as_of": mid.isoformat(),
                }
            )
        for owner, its in ((user, items), (f"{user}-zh", zh_items)):
            its.sort(key=lambda i: i["created_at"])
            writes[owner] = its
    return writes, questions


def ask(svc: Any, q: dict[str, Any], mode: str) -> list[str]:
    kwargs: dict[str, Any] = {"track_access": False}
    if mode == "off":
        kwargs["include_history"] = True
    elif q["kind"] == "as_of":
        kwargs["as_of"] = q["as_of"]
    return [h.memory.content for h in svc.search(q["user"], q["query"], 5, **kwargs).hits]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--users", type=int, default=40)
    p.add_argument("--fillers", type=int, default=20, help="unrelated memories per user")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)

    from graphmem import MemoryService

    writes, questions = build(args.users, args.fillers, args.seed)
    modes = ["validity", "off"]
    with tempfile.TemporaryDirectory(prefix="graphmem-temporal-") as tmp:
        # no result cache, no query-embedding cache: the second mode must not reuse the first's
        svc = MemoryService(
            make_settings(data_dir=Path(tmp), search_cache_ttl_seconds=0, query_cache_size=0)
        )
        try:
            meter = CpuMeter().start()
            t0 = time.perf_counter()
            for user, items in writes.items():
                svc.write_many(user, items)
            ingest_s = time.perf_counter() - t0
            status = {
                s: svc.records.count(None, s) for s in ("active", "superseded", "quarantined")
            }
            rows = []
            lat: dict[str, list[float]] = {m: [] for m in modes}
            for q in questions:
                row = dict(q)
                for mode in modes:
                    t = time.perf_counter()
                    hits = ask(svc, q, mode)
                    lat[mode].append((time.perf_counter() - t) * 1000)
                    row[mode] = {
                        "top1": bool(hits) and q["expect"] in hits[0],
                        "stale5": any(v in h for h in hits for v in q["stale"]),
                    }
                rows.append(row)
            cpu = meter.stop()
        finally:
            svc.close()

    table: dict[str, dict[str, dict[str, float]]] = {}
    for mode in modes:
        for kind in ("current", "past", "as_of"):
            sel = [r for r in rows if r["kind"] == kind]
            table.setdefault(kind, {})[mode] = {
                "n": len(sel),
                "top1": sum(r[mode]["top1"] for r in sel) / len(sel),
                "stale5": sum(r[mode]["stale5"] for r in sel) / len(sel),
            }
    chains_ = sorted({r["chain"] for r in rows})
    per_chain = {
        c: {
            m: sum(r[m]["top1"] for r in rows if r["chain"] == c and r["kind"] == "current")
            / sum(1 for r in rows if r["chain"] == c and r["kind"] == "current")
            for m in modes
        }
        for c in chains_
    }
    result = {
        "benchmark": "temporal-updates",
        "command": command_line(),
        "machine": machine_info(),
        "users": args.users,
        "memories": sum(len(v) for v in writes.values()),
        "questions": len(questions),
        "status_after_ingest": status,
        "ingest_s": round(ingest_s, 1),
        "cpu_use": cpu,
        "table": table,
        "current_top1_by_chain": per_chain,
        "latency_ms_p50": {m: median(v) for m, v in lat.items()},
        "rows": rows,
    }
    out = args.out or RESULTS_DIR / f"temporal-{datetime.now().strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1, default=str), "utf-8")
    lines = [
        f"Temporal updates — {result['machine']['date']}, {args.users} users,"
        f" {result['memories']} memories, {len(questions)} questions; after ingest {status};"
        f" other processes used {cpu['others_busy']} of the CPU.",
        f"Command: `{result['command']}`",
        "",
        "| question | n | top-1 validity | top-1 off | stale@5 validity | stale@5 off |",
        "|---|---|---|---|---|---|",
    ]
    for kind, by in table.items():
        v, o = by["validity"], by["off"]
        lines.append(
            f"| {kind} | {v['n']} | {fmt(v['top1'])} | {fmt(o['top1'])} |"
            f" {fmt(v['stale5'])} | {fmt(o['stale5'])} |"
        )
    lines += [
        "",
        "Current questions, top-1 by chain: "
        + ", ".join(f"{c} {fmt(v['validity'])} vs {fmt(v['off'])}" for c, v in per_chain.items()),
    ]
    p50 = result["latency_ms_p50"]
    lines.append("Search p50 ms: " + ", ".join(f"{m} {fmt(v, 1)}" for m, v in p50.items()))
    text = "\n".join(lines)
    out.with_suffix(".md").write_text(text + "\n", "utf-8")
    print(text)
    print(f"results: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
