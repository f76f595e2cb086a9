"""Memory lifecycle benchmarks: compaction at scale, and precision on a duplicate-heavy set.

  compaction   Fill a store with N synthetic memories (records rows + vectors written directly,
               as bench/scale.py's bulk path does, so no embedding of N texts), a known share of
               them near-duplicates, stale or expired. Then, each in a fresh process so peak RSS
               is that step's own: a read-only pass over the same store (scan + stored vectors,
               the floor any compaction pays: the baseline), `compact` itself, and `compact`
               again (idempotent: it must change nothing). Reports wall time, peak RSS and the
               counts, and checks them against what was planted.

  duplicates   A synthetic user with P people x F facts each, every fact stored 1 + D times
               (near-duplicate rewordings). For each person one query ("what do I know about
               X?"); precision@5 counts the distinct facts about X among the top 5 (a second
               copy of a fact already shown adds nothing, so it counts as a miss). Measured on
               the raw store (merge_on_write off) and after `compact` merged the copies.

Usage:
  python bench/lifecycle.py compaction [--memories 100000] [--users 10]
  python bench/lifecycle.py duplicates [--people 40]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import (  # noqa: E402
    RESULTS_DIR,
    command_line,
    current_rss_mb,
    machine_info,
    make_settings,
    peak_rss_mb,
)
from bench.synth import Generator  # noqa: E402

DUP_SHARE = 0.05
STALE_SHARE = 0.10
EXPIRED_SHARE = 0.05
CHUNK = 10_000


# ------------------------------------------------------------------------- compaction at scale
def fill(data_dir: Path, n: int, n_users: int, sigma: float, seed: int) -> dict[str, Any]:
    """N memories over n_users users: DUP_SHARE near-duplicates of an earlier memory (cosine
    ~0.995), STALE_SHARE not touched for 60 days, EXPIRED_SHARE tasks past their expiry."""
    import numpy as np
    from tqdm import tqdm

    from graphmem import MemoryService
    from graphmem.domain.model import Memory, MemoryType, new_id
    from graphmem.domain.summary import summarize
    from graphmem.domain.text import search_text
    from graphmem.service.projection import vector_point

    t0 = time.perf_counter()
    svc = MemoryService(make_settings(data_dir=data_dir, merge_on_write=False))
    gen = Generator(seed)
    base = svc.embedder.encode(gen.memories(500))
    rng = np.random.default_rng(seed)
    now = datetime.now(UTC)
    planted = {"duplicates": 0, "stale": 0, "expired": 0}
    bar = tqdm(total=n, unit="mem", desc="fill", file=sys.stderr)
    i = 0
    try:
        while i < n:
            k = min(CHUNK, n - i)
            user = f"user-{(i // CHUNK) % n_users}"
            texts = gen.memories(k)
            vecs = base[rng.integers(0, len(base), size=k)]
            vecs = vecs + rng.normal(0.0, sigma, size=vecs.shape).astype(np.float32)
            kind = rng.random(k)
            mems = []
            for j, text in enumerate(texts):
                m = Memory(
                    new_id(),
                    user,
                    text,
                    summary=summarize(text),
                    memory_type=MemoryType.FACT,
                    metadata={"i": i + j},
                    created_at=now - timedelta(days=int(rng.integers(0, 365))),
                    updated_at=now,
                )
                if kind[j] < DUP_SHARE and j > 0:
                    src = int(rng.integers(0, j))  # a copy of an earlier memory, same chunk
                    if kind[src] >= DUP_SHARE + STALE_SHARE + EXPIRED_SHARE:
                        vecs[j] = vecs[src] + rng.normal(0.0, 0.005, size=vecs.shape[1])
                        m.content = texts[src].rstrip(".") + "!"
                        planted["duplicates"] += 1
                elif kind[j] < DUP_SHARE + STALE_SHARE:
                    m.updated_at = now - timedelta(days=60)
                    planted["stale"] += 1
                elif kind[j] < DUP_SHARE + STALE_SHARE + EXPIRED_SHARE:
                    m.memory_type = MemoryType.TASK
                    m.expires_at = now - timedelta(hours=1)
                    planted["expired"] += 1
                mems.append(m)
            vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
            svc.records.insert(mems, [search_text(m.content) for m in mems])
            svc.vectors.upsert([vector_point(m, v) for m, v in zip(mems, vecs, strict=True)])
            svc.records.outbox_done([o.id for o in svc.records.outbox_for([m.id for m in mems])])
            i += k
            bar.update(k)
        bar.close()
        svc.vectors.optimize()
    finally:
        svc.close()
    return {
        "memories": n,
        "users": n_users,
        "planted": planted,
        "fill_s": round(time.perf_counter() - t0, 1),
    }


def run_phase(phase: str, data_dir: Path) -> dict[str, Any]:
    """One step in this process: `scan` (baseline), `compact`, or `compact-again`."""
    from graphmem import MemoryService

    t0 = time.perf_counter()
    svc = MemoryService(make_settings(data_dir=data_dir, merge_on_write=False))
    out: dict[str, Any] = {
        "open_s": round(time.perf_counter() - t0, 2),
        "rss_after_open_mb": round(current_rss_mb() or 0.0, 1),
    }
    try:
        t = time.perf_counter()
        if phase == "scan":
            after, n = 0, 0
            while page := svc.records.scan(after, 1000):
                after = page[-1][0]
                n += len(page)
                svc.vectors.vectors([m.id for _, m in page])
            out["scanned"] = n
        else:
            rep = svc.compact()
            out.update({k: v for k, v in rep.to_dict().items() if k != "changes"})
        out["wall_s"] = round(time.perf_counter() - t, 2)
    finally:
        svc.close()
    out["peak_rss_mb"] = round(peak_rss_mb(), 1)
    return out


def compaction(args: argparse.Namespace) -> dict[str, Any]:
    tmp = tempfile.TemporaryDirectory(prefix="graphmem-compact-")
    data_dir = Path(tmp.name)
    result: dict[str, Any] = {
        "benchmark": "lifecycle-compaction",
        "command": command_line(),
        "machine": machine_info(),
    }
    try:
        result["fill"] = fill(data_dir, args.memories, args.users, args.sigma, args.seed)
        for phase in ("scan", "compact", "compact-again"):
            done = subprocess.run(
                [sys.executable, __file__, "_phase", phase, str(data_dir)],
                check=True,
                capture_output=True,
                text=True,
            )
            result[phase] = json.loads(done.stdout.strip().splitlines()[-1])
            print(phase, result[phase], file=sys.stderr)
    finally:
        tmp.cleanup()
    c, p = result["compact"], result["fill"]["planted"]
    result["checks"] = {
        "expired == planted": c["expired"] == p["expired"],
        "archived == planted stale": c["archived"] == p["stale"],
        "merged >= planted duplicates": c["merged"] >= p["duplicates"],
        "second run changes nothing": all(
            result["compact-again"][k] == 0
            for k in ("expired", "archived", "merged", "decay_updated")
        ),
    }
    return result


# ------------------------------------------------------------------------- duplicate-heavy set
VARIANTS = ("{}", "{}!", "Note: {}", "{} (as mentioned)", "Reminder: {}")
FACTS = (
    "{p} lives in {city}.",
    "{p}'s favourite food is {food}.",
    "{p} is learning to play the {instrument}.",
    "{p} works as a {job} in {city2}.",
    "{p} has a pet {pet} called {petname}.",
)


def duplicate_set(people: int, dups: int, seed: int) -> tuple[list[dict[str, Any]], list[str]]:
    import random

    from bench.synth import CITIES, FOODS, NAMES

    r = random.Random(seed)
    jobs = "nurse architect baker pilot teacher chemist carpenter lawyer florist".split()
    pets = "cat dog parrot tortoise rabbit hamster".split()
    instruments = "cello piano violin drums flute banjo harp".split()
    names = r.sample(NAMES, min(people, len(NAMES)))
    items, who = [], []
    for p in names:
        for f, tmpl in enumerate(FACTS):
            fact = tmpl.format(
                p=p,
                city=r.choice(CITIES),
                food=r.choice(FOODS),
                instrument=r.choice(instruments),
                job=r.choice(jobs),
                city2=r.choice(CITIES),
                pet=r.choice(pets),
                petname=r.choice(NAMES),
            )
            copies = 1 + r.randint(0, dups)
            for v in VARIANTS[:copies]:
                items.append({"content": v.format(fact), "metadata": {"person": p, "fact": f}})
        who.append(p)
    r.shuffle(items)
    return items, who


def precision_at_5(svc: Any, user: str, people: list[str]) -> dict[str, float]:
    distinct, raw = [], []
    for p in people:
        hits = svc.search(user, f"What do I know about {p}?", 5, track_access=False).hits
        seen: set[int] = set()
        for h in hits:
            md = h.memory.metadata
            if md.get("person") == p:
                seen.add(md["fact"])
        distinct.append(len(seen) / 5)
        raw.append(sum(h.memory.metadata.get("person") == p for h in hits) / 5)
    return {
        "precision_at_5": round(sum(distinct) / len(distinct), 4),
        "any_copy_at_5": round(sum(raw) / len(raw), 4),
    }


def wrong_merges(svc: Any, user: str) -> int:
    """Merged memories whose survivor states a different fact: merges that lost information."""
    rows = {m.id: m for m in svc.list(user, include_archived=True)}

    def key(m: Any) -> tuple[Any, Any]:
        return m.metadata.get("person"), m.metadata.get("fact")

    return sum(
        1
        for m in rows.values()
        if "merged_into" in m.metadata and key(rows[m.metadata["merged_into"]]) != key(m)
    )


def write_all(svc: Any, user_id: str, items: list[dict[str, Any]], batch: int = 256) -> float:
    """Write every item in batches; returns the seconds it took."""
    t = time.perf_counter()
    for i in range(0, len(items), batch):
        svc.write_many(user_id, items[i : i + batch])
    return time.perf_counter() - t


def duplicates(args: argparse.Namespace) -> dict[str, Any]:
    from graphmem import MemoryService

    items, people = duplicate_set(args.people, args.dups, args.seed)
    with tempfile.TemporaryDirectory(prefix="graphmem-dups-") as d:
        svc = MemoryService(
            make_settings(data_dir=Path(d), merge_on_write=False, search_cache_ttl_seconds=0)
        )
        try:
            write_s = write_all(svc, "dup", items)
            before = precision_at_5(svc, "dup", people)
            t = time.perf_counter()
            rep = svc.compact()
            took = time.perf_counter() - t
            after = precision_at_5(svc, "dup", people)
            active = svc.records.count("dup", "active")
            wrong = wrong_merges(svc, "dup")
        finally:
            svc.close()
    with tempfile.TemporaryDirectory(prefix="graphmem-dups-") as d:
        svc = MemoryService(make_settings(data_dir=Path(d), search_cache_ttl_seconds=0))
        try:
            on_write_s = write_all(svc, "dup", items)
            on_write = precision_at_5(svc, "dup", people)
            on_write["active"] = svc.records.count("dup", "active")
            on_write["wrong_merges"] = wrong_merges(svc, "dup")
            on_write["write_s"] = round(on_write_s, 2)
        finally:
            svc.close()
    return {
        "benchmark": "lifecycle-duplicates",
        "command": command_line(),
        "machine": machine_info(),
        "people": len(people),
        "facts": len(people) * len(FACTS),
        "memories": len(items),
        "active_after": active,
        "before": before,
        "after": after,
        "wrong_merges": wrong,
        "write_s_merge_off": round(write_s, 2),
        "merge_on_write": on_write,
        "compact": {k: v for k, v in rep.to_dict().items() if k != "changes"},
        "compact_s": round(took, 2),
    }


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["_phase"]:
        print(json.dumps(run_phase(argv[1], Path(argv[2]))))
        return 0
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="which", required=True)
    c = sub.add_parser("compaction")
    c.add_argument("--memories", type=int, default=100_000)
    c.add_argument("--users", type=int, default=10)
    c.add_argument("--sigma", type=float, default=0.05, help="noise around the base vectors")
    c.add_argument("--seed", type=int, default=7)
    d = sub.add_parser("duplicates")
    d.add_argument("--people", type=int, default=40)
    d.add_argument("--dups", type=int, default=4, help="up to this many extra copies per fact")
    d.add_argument("--seed", type=int, default=7)
    for sp in (c, d):
        sp.add_argument("--out", type=Path, help="JSON results (default bench/results/...)")
    args = p.parse_args(argv)
    os.environ.setdefault("GRAPHMEM_TORCH_THREADS", "1")
    result = compaction(args) if args.which == "compaction" else duplicates(args)
    out = args.out or RESULTS_DIR / (
        f"lifecycle-{args.which}-{datetime.now().strftime('%Y%m%d-%H%M%S')}.json"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, default=str))
    print(
        json.dumps(
            {k: v for k, v in result.items() if k not in ("machine",)}, indent=2, default=str
        )
    )
    print(f"results: {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
