"""What tracing costs when it is off: the no-op `span()` alone, and search latency against the
search use case of a revision without spans, in one process.

1. Micro: `with span(...) as step: step.set(...)` with tracing off, and `carry(fn)`, timed
   with timeit (best of 5 runs of 1,000,000 calls).
2. Search: seed N synthetic memories, then run 2*Q distinct queries (no result-cache hits, every
   query embedded), alternating A B B A between this tree's `graphmem.usecases.search.search`
   and the same module as it is at `--base` (read with `git show`, loaded beside it; everything
   else is shared: the same process, stores, model and caches). The rest of the diff (spans in
   the write path) does not run during a search, so this isolates what the search's spans
   cost. Reports p50 and mean per side, and the load average, since the machine may be shared.

Usage: python bench/tracing_overhead.py [--base main] [--memories 1000] [--queries 400]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path
from types import ModuleType

from graphmem import MemoryService, Settings
from graphmem.domain.requests import SearchRequest
from graphmem.infra import tracing
from graphmem.settings import TracingSettings
from graphmem.usecases import search as branch

ROOT = Path(__file__).resolve().parents[1]
WORDS = {
    "names": ["Ann", "Bea", "Carl", "Dmitri", "Eve", "Farid", "Gita", "Hugo", "Ines", "Jun"],
    "things": ["bike", "piano", "garden", "laptop", "kayak", "violin", "car", "boat", "tent"],
    "places": ["Lisbon", "Oslo", "Porto", "Kyoto", "Lima", "Quito", "Riga", "Tunis", "Accra"],
    "verbs": ["keeps", "sold", "repaired", "borrowed", "painted", "lost", "found", "cleaned"],
}


def micro() -> dict[str, float]:
    """Nanoseconds per call with tracing off."""

    def noop() -> None:
        pass

    def step() -> None:
        with tracing.span("graphmem.search.vector", pool=50) as s:
            s.set(hits=3)

    def carry() -> None:
        tracing.carry(noop)

    n = 1_000_000
    return {
        f.__name__: round(min(timeit.repeat(f, number=n, repeat=5)) / n * 1e9, 1)
        for f in (noop, step, carry)
    }


def base_module(rev: str, tmp: Path) -> ModuleType:
    source = subprocess.run(
        ["git", "show", f"{rev}:graphmem/usecases/search.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    path = tmp / "base_search.py"
    path.write_text(source, "utf-8")
    spec = importlib.util.spec_from_file_location("base_search", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def searches(base: ModuleType, memories: int, queries: int, tmp: Path) -> dict[str, object]:
    rng = random.Random(7)

    def pick(k: str) -> str:
        return rng.choice(WORDS[k])

    texts = [
        f"{pick('names')} {pick('verbs')} the {pick('things')} in {pick('places')} on day {i}"
        for i in range(memories)
    ]
    asked = [
        f"who {pick('verbs')} the {pick('things')} in {pick('places')} {i}"
        for i in range(2 * queries + 40)
    ]
    svc = MemoryService(Settings(data_dir=tmp / "data", tracing=TracingSettings(mode="off")))
    try:
        for i in range(0, memories, 200):
            svc.write_many("u", [{"content": t} for t in texts[i : i + 200]])
        for q in asked[:40]:  # warm up: model, caches, pools
            branch.search(svc.context, "u", SearchRequest(query=q))
        sides: dict[str, ModuleType] = {"base": base, "branch": branch}
        took: dict[str, list[float]] = {"base": [], "branch": []}
        order = ["base", "branch", "branch", "base"]
        for k, q in enumerate(asked[40:]):
            side = order[k % 4]
            start = time.perf_counter()
            sides[side].search(svc.context, "u", SearchRequest(query=q))
            took[side].append((time.perf_counter() - start) * 1000)
    finally:
        svc.close()
    return {
        side: {
            "n": len(t),
            "p50_ms": round(statistics.median(t), 3),
            "mean_ms": round(statistics.fmean(t), 3),
        }
        for side, t in took.items()
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="main", help="the revision to compare against")
    ap.add_argument("--memories", type=int, default=1000)
    ap.add_argument("--queries", type=int, default=400, help="per side")
    args = ap.parse_args()
    if tracing.enabled():
        sys.exit("tracing is on in this process; this measures it off")
    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory() as d:
        report = {
            "span_off_ns": micro(),
            "search": searches(
                base_module(args.base, Path(d)), args.memories, args.queries, Path(d)
            ),
            "memories": args.memories,
            "base": args.base,
            "cpus": os.cpu_count(),
            "load_start": [round(x, 2) for x in load_start],
            "load_end": [round(x, 2) for x in os.getloadavg()],
        }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
