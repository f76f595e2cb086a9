"""Graph expansion cost on a large store, networkx beside Neo4j, in one run.

Takes a store that bench/scale.py kept (`--data-dir`, e.g. 100,000 memories of one user with
their entities and relations written by `write_many`) and, for each graph backend in turn:

1. opens the service on it (networkx: the in-process graph is rebuilt from the records, which
   is what every start of the embedded default does; neo4j: the projection is rebuilt into the
   Neo4j server named by the usual settings, GRAPHMEM_NEO4J_URL / _USER / _PASSWORD), timed;
2. warms up, then times `--queries` fresh synthetic questions twice each, with the default
   expansion (2 hops) and without it (expand_hops=0), the two modes interleaved per question
   and the search-result cache cleared before each, so both pay the same query embedding and
   channel costs and the ratio isolates the expansion;
3. records each search's top 10.

The report gives p50 / p95 per backend and mode, the expansion ratio (p50 with / p50 without)
that the graph-memory issue bounds at 2x, and how often the two backends returned the same
top 10 (they should: both run the same expansion over the same edges).

Usage: python bench/graph_scale.py --store DIR [--backends networkx,neo4j] [--queries 200]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402
    RESULTS_DIR,
    CpuMeter,
    command_line,
    machine_info,
    median,
    peak_rss_mb,
    percentile,
)
from synth import Generator  # noqa: E402

TOP_K = 10


def time_backend(
    store: Path, backend: str, user: str, queries: list[str], warm: list[str]
) -> dict[str, Any]:
    from graphmem import MemoryService, Settings
    from graphmem.usecases.backfill import rebuild_graph

    t0 = time.perf_counter()
    svc = MemoryService(Settings(data_dir=store, graph={"backend": backend}))
    out: dict[str, Any] = {"backend": backend, "open_s": round(time.perf_counter() - t0, 1)}
    try:
        if backend != "networkx":
            t0 = time.perf_counter()
            rebuild_graph(svc.records, svc.graph_store)
            out["rebuild_s"] = round(time.perf_counter() - t0, 1)
        out["graph"] = svc.graph_store.health()
        for q in warm:
            svc.search(user, q, TOP_K, track_access=False)
        lat: dict[str, list[float]] = {"expansion": [], "no expansion": []}
        tops: list[list[str]] = []
        meter = CpuMeter().start()
        for i, q in enumerate(queries):
            order = ("expansion", "no expansion") if i % 2 else ("no expansion", "expansion")
            for mode in order:
                svc.cache.invalidate(user)
                t = time.perf_counter()
                res = svc.search(
                    user, q, TOP_K, track_access=False,
                    **({} if mode == "expansion" else {"expand_hops": 0}),
                )
                lat[mode].append((time.perf_counter() - t) * 1000)
                if mode == "expansion":
                    tops.append([h.memory.id for h in res.hits])
        out["others_cpu"] = meter.stop()
        out["latency_ms"] = {
            m: {"p50": median(v), "p95": percentile(v, 95), "n": len(v)} for m, v in lat.items()
        }
        with_, without = median(lat["expansion"]), median(lat["no expansion"])
        out["expansion_ratio_p50"] = round(with_ / without, 2) if with_ and without else None
        out["tops"] = tops
    finally:
        svc.close()
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--store", type=Path, required=True, help="a data directory scale.py kept")
    p.add_argument("--user", default="scale-user-0")
    p.add_argument("--backends", default="networkx,neo4j")
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--warmup", type=int, default=50)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    qs = Generator(seed=99).queries(args.warmup + args.queries)
    warm, queries = qs[: args.warmup], qs[args.warmup :]
    result: dict[str, Any] = {
        "benchmark": "graph_scale",
        "command": command_line(),
        "machine": machine_info(),
        "loadavg_start": round(os.getloadavg()[0], 2),
        "backends": [],
    }
    for backend in [b.strip() for b in args.backends.split(",") if b.strip()]:
        r = time_backend(args.store, backend, args.user, queries, warm)
        result["backends"].append(r)
        lm = r["latency_ms"]
        print(
            f"{backend}: open {r['open_s']} s"
            + (f", rebuild {r['rebuild_s']} s" if "rebuild_s" in r else "")
            + f"; p50 with expansion {lm['expansion']['p50']:.1f} ms"
            f" (p95 {lm['expansion']['p95']:.1f}), without {lm['no expansion']['p50']:.1f} ms"
            f" (p95 {lm['no expansion']['p95']:.1f}); ratio {r['expansion_ratio_p50']}x;"
            f" other processes' CPU {r['others_cpu']}",
            flush=True,
        )
    bs = result["backends"]
    if len(bs) == 2:
        same = sum(a == b for a, b in zip(bs[0]["tops"], bs[1]["tops"], strict=True))
        result["identical_top10"] = f"{same}/{len(bs[0]['tops'])}"
        print(f"identical top 10 across backends: {result['identical_top10']}")
    result["peak_rss_mb"] = round(peak_rss_mb(), 1)
    out = args.out or RESULTS_DIR / "graph_scale.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1), "utf-8")
    print(f"results: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
