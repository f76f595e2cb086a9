"""Search latency while another thread writes: does a search queue behind a write transaction?

Opens the service on an existing embedded store (built by bench/scale.py --data-dir or
bench/build_store.py; it is written to, so use a copy), then times `--queries` fresh hybrid
searches twice: alone, and while a writer thread runs `write_many` batches of `--batch`
memories for the same user without pause. The writer's vectors are perturbed copies of stored
ones (the embedding model is not what is measured, and would take the CPU the searches need);
screening, extraction, linking, the records transaction and the vector upsert run for real.

Before the records store read on a connection per thread, every read went through the one
connection the writes hold for their whole transaction, so a search waited for the batch in
flight; the difference between the two blocks is that wait.

Usage: python bench/search_during_writes.py --store DIR [--queries 100] [--batch 200]
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402
    RESULTS_DIR,
    CpuMeter,
    LoadSampler,
    command_line,
    machine_info,
    median,
    percentile,
)
from synth import Generator  # noqa: E402

TOP_K = 10


def summary(ms: list[float]) -> dict[str, Any]:
    return {"p50": median(ms), "p95": percentile(ms, 95), "max": max(ms), "n": len(ms)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--store", type=Path, required=True, help="an embedded store (a copy)")
    p.add_argument("--queries", type=int, default=100)
    p.add_argument("--batch", type=int, default=200, help="memories per write_many")
    p.add_argument("--seed", type=int, default=11)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    load = LoadSampler().start()

    import numpy as np

    from graphmem import MemoryService, Settings

    svc = MemoryService(Settings(data_dir=args.store))
    user = sorted(_users(svc))[0]
    gen = Generator(seed=args.seed)
    ids = sorted(svc.records.all_ids(user))[:2000]
    base = np.stack(list(svc.vectors.vectors(ids).values()))
    rng = np.random.default_rng(args.seed)

    def perturbed(texts: list[str]) -> Any:
        picks = base[rng.integers(0, len(base), size=len(texts))]
        v = picks + rng.normal(0.0, 0.02, size=picks.shape).astype(np.float32)
        return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)

    def searches() -> list[float]:
        ms = []
        for q in gen.queries(args.queries):
            t0 = time.perf_counter()
            svc.search(user, q, TOP_K, track_access=False)
            ms.append((time.perf_counter() - t0) * 1000)
        return ms

    searches()  # warm-up: statement caches, first index pages
    meter = CpuMeter().start()
    alone = searches()
    cpu_alone = meter.stop()
    stop = threading.Event()
    written = [0]
    batches: list[float] = []

    def writer() -> None:
        items = gen.memories(args.batch * 40)
        k = 0
        while not stop.is_set() and k < len(items):
            chunk = [{"content": t, "memory_type": "fact"} for t in items[k : k + args.batch]]
            t0 = time.perf_counter()
            svc.write_many(user, chunk)
            batches.append(time.perf_counter() - t0)
            written[0] += len(chunk)
            k += args.batch

    svc.embedder.encode = perturbed  # the writer's vectors; queries still use encode_query
    t = threading.Thread(target=writer, name="writer")
    t.start()
    time.sleep(0.5)  # the first batch is in flight
    meter = CpuMeter().start()
    during = searches()
    cpu_during = meter.stop()
    stop.set()
    t.join()
    del svc.embedder.encode
    svc.close()
    result = {
        "benchmark": "search_during_writes",
        "command": command_line(),
        "machine": machine_info(),
        "graphmem_from": str(Path(sys.modules["graphmem"].__file__ or "").parent.parent),
        "store": str(args.store),
        "queries": args.queries,
        "batch": args.batch,
        "search_ms": {"alone": summary(alone), "during writes": summary(during)},
        "cpu": {"alone": cpu_alone, "during writes": cpu_during},
        "written": written[0],
        "batch_s_p50": median(batches),
        "load": load.stop(),
    }
    out = args.out or RESULTS_DIR / f"search-writes-{datetime.now():%Y%m%d-%H%M%S}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1, default=str), "utf-8")
    ld = result["load"]
    noisy = " (NOISY: load average above 1.5)" if ld["noisy"] else ""
    print(f"load average start {ld['start']} max {ld['max']}{noisy}")
    for k, v in result["search_ms"].items():
        print(f"{k:14s} p50 {v['p50']:.1f} ms  p95 {v['p95']:.1f} ms  max {v['max']:.1f} ms")
    print(f"written meanwhile: {written[0]} memories, batch p50 {result['batch_s_p50']:.2f} s")
    print(f"results: {out}")
    return 0


def _users(svc: Any) -> list[str]:
    """The store's users (the store's own, e.g. scale-user-0)."""
    rows = svc.records._fetch("SELECT DISTINCT user_id FROM memories LIMIT 10")
    return [r[0] for r in rows]


if __name__ == "__main__":
    raise SystemExit(main())
