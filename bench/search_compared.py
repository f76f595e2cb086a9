"""The inspector's filter comparison in one process: a type-filtered search and the same query
without the filter, three ways, alternating, each with a fresh query (so neither the query
embedding nor the result cache answers the first search):

- `two searches`: the filtered search and the unfiltered one, both with explain, one after the
  other (how the search page asked them before);
- `plain without explain`: the same, the unfiltered one without explain (it shows no
  explanation; without it the result cache may keep it);
- `search_compared`: `MemoryService.search_compared`, both on one view of the stores that
  reads each row and vector score once (graphmem.usecases.compare), what the page asks now.

The HTTP timings of bench/ui_pages.py carry the server's own noise on a shared machine; here
the three ways take turns on one warm service, so the load falls on each alike.

Usage:
  python bench/search_compared.py --store S100K [--rounds 60] [--memory-type fact]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent))
from _common import median, percentile  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--store", type=Path, required=True, help="an embedded store (data dir)")
    p.add_argument("--rounds", type=int, default=60)
    p.add_argument("--memory-type", default="fact")
    args = p.parse_args(argv)

    from synth import Generator
    from ui_pages import store_facts

    from graphmem.domain.requests import SearchRequest
    from graphmem.service.facade import MemoryService
    from graphmem.settings import Settings

    user = store_facts(args.store)["user"]
    svc = MemoryService(Settings(data_dir=args.store))
    queries = iter(Generator(seed=11).queries(3 * args.rounds + 1))

    def asked(q: str, **kw: str) -> SearchRequest:
        return SearchRequest(query=q, top_k=10, track_access=False, explain=True, **kw)

    svc.search_request(user, asked(next(queries)))  # the model, and the graph's adjacency
    deadline = time.monotonic() + 300
    current = getattr(svc.context.graph, "current", None)
    while current is not None and current(user) is None and time.monotonic() < deadline:
        time.sleep(0.5)
    mt = args.memory_type
    ways = {
        "two searches": lambda q: (
            svc.search_request(user, asked(q, memory_type=mt)),
            svc.search_request(user, asked(q)),
        ),
        "plain without explain": lambda q: (
            svc.search_request(user, asked(q, memory_type=mt)),
            svc.search_request(user, dataclasses.replace(asked(q), explain=False)),
        ),
        "search_compared": lambda q: svc.search_compared(user, asked(q, memory_type=mt)),
    }
    took: dict[str, list[float]] = {name: [] for name in ways}
    load = [os.getloadavg()[0]]
    for _ in range(args.rounds):
        for name, run in ways.items():
            q = next(queries)
            t0 = time.perf_counter()
            run(q)
            took[name].append((time.perf_counter() - t0) * 1000)
    load.append(os.getloadavg()[0])
    svc.close()
    print(f"{args.store}: {args.rounds} rounds, load average {load[0]:.1f} -> {load[1]:.1f}")
    for name, ms in took.items():
        print(f"  {name}: p50 {median(ms):.1f} / p95 {percentile(ms, 95):.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
