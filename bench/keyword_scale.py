"""Keyword (BM25) channel latency on an existing SQLite store, without the rest of the service.

Opening a full MemoryService on a large store rebuilds the in-memory graph first (minutes at
100k memories), which has nothing to do with keyword search. This opens only the records
adapter on the store's SQLite file and times `keyword_search` for the synthetic benchmark's
questions (bench/synth.py), as the search path calls it: the query's terms from
`graphmem.domain.text.query_terms`, the service's default candidate pool (50), active memories of
one user.

    python bench/keyword_scale.py --store DATA_DIR [--queries 200] [--user scale-user-0]
        [--context N]
    python bench/keyword_scale.py --build 1000000 --users 1000 --store DATA_DIR

--build N writes a store of its own first (records only: no vectors, no graph, no embedding),
N synthetic memories (bench/synth.py) spread round-robin over --users users named
scale-user-0, scale-user-1, ..., through the records adapter's insert path, so the full-text
index and the per-user statistics are what real writes leave. Round-robin interleaves the
tenants' rows as concurrent writers would, the shape in which a user's postings are scattered
over the whole index.

DATA_DIR is a graphmem data directory (holding graphmem.sqlite3) or the SQLite file itself. It
prints p50/p95/mean latency (wall clock, and the thread's CPU time, which other jobs on a shared
machine inflate less), the number of candidates re-scored per query, and how long fetching
them takes (the full-text queries and the join to memories); --json writes the same figures to a
file. With --exact it also scores every memory of the user in Python (exact per-user BM25 over
all of them, no candidate pool) and reports how much of that top 10 / top `limit` each search
returned: the quality the candidate pool may cost.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import percentile  # noqa: E402
from synth import Generator  # noqa: E402

from graphmem.domain.text import query_terms  # noqa: E402
from graphmem.stores.records import RecordQuery, keyword  # noqa: E402
from graphmem.stores.records.sqlite import SQLiteRecords  # noqa: E402


def exact_recall(
    records: SQLiteRecords,
    user: str,
    queries: list[list[str]],
    got: list[list[tuple[str, float]]],
    k: int,
) -> float:
    """Mean share of the exact BM25 top k (ties at the k-th score count) found by the search."""
    postings: dict[str, dict[str, int]] = defaultdict(dict)
    lengths: dict[str, int] = {}
    for mid, text in records._fetch(
        "SELECT id, search_text FROM memories WHERE user_id = ? AND status = 'active'", (user,)
    ):
        toks = text.split()
        lengths[mid] = len(toks)
        for t, tf in Counter(toks).items():
            postings[t][mid] = tf
    n = len(lengths)
    avgdl = sum(lengths.values()) / max(n, 1)
    shares = []
    for terms, hits in zip(queries, got, strict=True):
        scores: dict[str, float] = defaultdict(float)
        for t in dict.fromkeys(terms):
            for mid, tf in postings.get(t, {}).items():
                scores[mid] += keyword.bm25(tf, len(postings[t]), n, lengths[mid], avgdl)
        ref = sorted(scores.values(), reverse=True)[:k]
        if not ref:
            continue
        kth = ref[-1]
        shares.append(sum(1 for _, s in hits[:k] if s >= kth - 1e-9) / len(ref))
    return statistics.fmean(shares) if shares else 1.0


def build(path: Path, n: int, users: int, seed: int = 7, chunk: int = 10_000) -> None:
    """Write n synthetic memories for `users` users into a new records store at `path`."""
    from datetime import UTC, datetime, timedelta

    from graphmem.domain.model import Memory, MemoryType, new_id
    from graphmem.domain.text import search_text

    if path.exists():
        raise SystemExit(f"{path} exists already; --build writes a new store")
    path.parent.mkdir(parents=True, exist_ok=True)
    records = SQLiteRecords(path)
    gen = Generator(seed=seed)
    now = datetime.now(UTC)
    t0 = time.perf_counter()
    done = 0
    while done < n:
        k = min(chunk, n - done)
        mems = [
            Memory(
                id=new_id(),
                user_id=f"scale-user-{(done + j) % users}",
                content=text,
                memory_type=MemoryType.FACT,
                metadata={"i": done + j},
                created_at=now - timedelta(minutes=(done + j) * 7919 % 525_600),
                updated_at=now,
            )
            for j, text in enumerate(gen.memories(k))
        ]
        records.insert(mems, [search_text(m.content) for m in mems])
        records.outbox_done([o.id for o in records.outbox_for([m.id for m in mems])])
        done += k
        print(f"\r{done:,} / {n:,} memories, {time.perf_counter() - t0:.0f} s", end="", flush=True)
    records.close()
    print(f"\nbuilt {path} in {time.perf_counter() - t0:.0f} s")


def load() -> str:
    """The 1-minute load average against the core count: other jobs skew latency on a shared box."""
    try:
        return f"load {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"
    except OSError:
        return f"{os.cpu_count()} cores"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", required=True, help="data directory or graphmem.sqlite3 file")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--user", default="scale-user-0")
    ap.add_argument(
        "--context",
        type=int,
        default=0,
        metavar="N",
        help="precede every question with N synthetic memories' texts (a dialogue-context query)",
    )
    ap.add_argument("--limit", type=int, default=50, help="hits asked for (the service's pool)")
    ap.add_argument("--seed", type=int, default=99, help="query generator seed")
    ap.add_argument("--rounds", type=int, default=1, help="repeat the query set, keep each median")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    ap.add_argument("--build", type=int, help="first write a new store of this many memories")
    ap.add_argument("--users", type=int, default=1, help="--build: tenants sharing the store")
    ap.add_argument(
        "--exact", action="store_true", help="also compare with exact BM25 over all memories"
    )
    args = ap.parse_args()

    path = Path(args.store)
    if args.build:
        if args.build < 1 or args.users < 1 or args.users > args.build:
            ap.error("--build needs 1 <= --users <= --build")
        path = path / "graphmem.sqlite3" if path.suffix != ".sqlite3" else path
        build(path, args.build, args.users)
    if path.is_dir():
        path = path / "graphmem.sqlite3"
    if not path.is_file():
        ap.error(f"no SQLite store at {path}")
    records = SQLiteRecords(path)
    texts = Generator(seed=args.seed).queries(args.queries)
    if args.context:
        # an agent searching with its dialogue: N other memories' texts, then the question
        ctx = list(Generator(seed=args.seed + 1).memories(args.queries * args.context))
        texts = [
            "\n".join([*ctx[i * args.context : (i + 1) * args.context], q])
            for i, q in enumerate(texts)
        ]
    queries = [query_terms(q) for q in texts]
    # the exact reference scores every term of the query, whatever the search keeps of them
    every_term = [query_terms(q, 1 << 20) for q in texts]
    rq = RecordQuery(args.user)

    # Count the candidates handed to the Python re-score per search: the rows returned by the
    # outermost candidate call (`_narrow_candidates` where the adapter has it, else
    # `_candidates`), and time the full-text queries inside it.
    seen: list[int] = []
    fts_ms: list[float] = []
    depth = [0]

    def wrap(name: str) -> None:
        original = getattr(records, name, None)
        if original is None:
            return

        def counting(*a: Any, **kw: Any) -> list[tuple[str, str]]:
            depth[0] += 1
            t0 = time.perf_counter()
            try:
                rows = original(*a, **kw)
            finally:
                depth[0] -= 1
            if depth[0] == 0:
                fts_ms.append((time.perf_counter() - t0) * 1000)
                seen.append(len(rows))
            return rows

        setattr(records, name, counting)

    wrap("_candidates")
    wrap("_narrow_candidates")
    for terms in queries[:10]:  # warm the page cache and the df lookups
        records.keyword_search(rq, terms, args.limit)
    seen.clear()
    fts_ms.clear()

    rounds: list[list[float]] = []
    cpu_rounds: list[list[float]] = []
    hits: list[int] = []
    results: list[list[tuple[str, float]]] = []
    for r in range(args.rounds):
        ms: list[float] = []
        cpu: list[float] = []
        for terms in queries:
            c0 = time.thread_time()
            t0 = time.perf_counter()
            got = records.keyword_search(rq, terms, args.limit)
            ms.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.thread_time() - c0) * 1000)
            hits.append(len(got))
            if r == 0:
                results.append(got)
        rounds.append(ms)
        cpu_rounds.append(cpu)
    memories = records.count(args.user)
    recall = {}
    if args.exact:
        for k in (10, args.limit):
            recall[f"exact_top{k}_recall"] = exact_recall(
                records, args.user, every_term, results, k
            )
    records.close()

    per_query = [statistics.median(xs) for xs in zip(*rounds, strict=True)]
    cpu_query = [statistics.median(xs) for xs in zip(*cpu_rounds, strict=True)]
    out = {
        "store_memories": memories,
        "queries": len(queries),
        "rounds": args.rounds,
        "p50_ms": statistics.median(per_query),
        "p95_ms": percentile(per_query, 95),
        "mean_ms": statistics.fmean(per_query),
        "max_ms": max(per_query),
        "cpu_p50_ms": statistics.median(cpu_query),
        "cpu_p95_ms": percentile(cpu_query, 95),
        "fts_p50_ms": statistics.median(fts_ms) if fts_ms else 0.0,
        "candidates_p50": statistics.median(seen) if seen else 0,
        "candidates_mean": statistics.fmean(seen) if seen else 0.0,
        "candidates_max": max(seen, default=0),
        "hits_mean": statistics.fmean(hits) if hits else 0.0,
        "candidate_cap": keyword.CANDIDATES,
        "machine": load(),
        **recall,
    }
    print(
        f"{out['store_memories']:,} memories of {args.user}, {len(queries)} queries"
        f" x {args.rounds} round(s), {out['machine']}\n"
        f"keyword_search  p50 {out['p50_ms']:.2f} ms  p95 {out['p95_ms']:.2f} ms"
        f"  mean {out['mean_ms']:.2f} ms  max {out['max_ms']:.2f} ms\n"
        f"CPU time of this thread per search  p50 {out['cpu_p50_ms']:.2f} ms"
        f"  p95 {out['cpu_p95_ms']:.2f} ms (waiting for a busy CPU excluded)\n"
        f"candidate fetch (full-text queries and row join) p50 {out['fts_p50_ms']:.2f} ms\n"
        f"candidates per search p50 {out['candidates_p50']:.0f}"
        f"  mean {out['candidates_mean']:.0f}  max {out['candidates_max']}"
        f" (cap {keyword.CANDIDATES}); hits per search mean {out['hits_mean']:.1f}"
    )
    for key, value in recall.items():
        print(f"{key.replace('_', ' ')}: {value:.4f}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
