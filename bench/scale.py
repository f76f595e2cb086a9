"""Scale benchmark: write throughput, search latency and memory at 10k / 100k (/ 1M) memories.

One embedded store (SQLite + Qdrant Edge, the defaults) grows through the requested sizes. At
each size it measures:

writes   memories/s of `svc.write_many` in batches (default 500), INCLUDING embedding, with the
         time split into embedding, the records transaction, the vector upsert and the HNSW
         builds that Qdrant Edge runs inside upsert every 20,000 points;
search   p50/p95 of `svc.search` (top-10, wall clock) per mode (hybrid = the service defaults,
         hybrid without graph expansion, vector only, keyword only) with fresh queries that
         were never searched before, so the query embedding is paid for; then the hybrid
         queries again with only their embeddings cached (search-result cache cleared), and
         once more answered from the search-result cache;
stages   where one uncached hybrid search (with and without the graph walk) spends its time:
         wall and CPU per stage (result cache, query embedding, vector search, the wait for
         the keyword channel, records re-read, fusion, graph walk, vector scores of other hits,
         serialisation; bench/_search_stages.py), the stage sum checked against the same
         mode's uninstrumented figure;
load     the machine's 1-minute load average, sampled through the run: above 1.5 the figures
         are marked noisy and no headline (target verdict) is printed;
memory   anonymous and file-backed (mapped) resident memory at each point, from
         /proc/self/smaps_rollup, and their peaks from a background sampler; anonymous memory
         is what the process owns (model, in-RAM indexes, caches, Python objects), mapped
         memory is page cache of the store's files (Qdrant Edge maps its segments) that the
         kernel can drop. getrusage's peak RSS is kept, labelled as including mappings;
start    at each size, in a fresh process: the time to open the service on the store and have
         the first search answered (the figure an MCP server that restarts is down for), with
         that process's memory.

`--existing DIR` measures a store that is already there (built by an earlier run or by
bench/build_store.py) without writing to it: start, search latency for its users, memory. With
`--limit-anon-gb` / `--timeout` such a run stops itself, with what it measured so far, when its
anonymous memory or its time passes the limit (a baseline that rebuilds a large graph in
process can otherwise take the machine down). `--existing DIR --breakdown` opens each part
(model, records, vectors, the whole service) alone in a fresh process and reports the anonymous
memory it adds.

Memories are distinct synthetic chat-style sentences (bench/synth.py, ~26 words on average),
all embedded for real up to `--real-max` (default 100,000). Sizes above that (e.g. 1,000,000)
are filled by a bulk path that writes the same kind of record rows straight into the records
store and inserts vectors into the vector store without the embedding model: each vector is one
of the first 20,000 real embeddings plus Gaussian noise (`--perturb`, per dimension), then
re-normalised. Every point is distinct and the distribution stays clustered like real text, but
such a row's text and vector no longer match, so only latency (not relevance) is meaningful
there. The bulk path is reported separately and not counted as write throughput. With
`--bulk-path service` the bulk part goes through `write_many` with only the embedding model
swapped for such vectors, so screening, entity extraction, linking and the graph projection run
as for real writes (graph expansion at that size then walks a graph real writes would build).

Finally, in the same run, a tenant-filtered top-10 over `--compare-points` real embeddings
(default 20,000, spread over `--compare-tenants` users) is timed on Qdrant Edge and on
qdrant-client's local mode (`QdrantServerVectors(url=":memory:")`), with recall against an
exact numpy search.

Usage: python bench/scale.py [--sizes 10000,100000] [--batch 500] [--queries 200]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _search_stages as search_stages  # noqa: E402
from _common import (  # noqa: E402
    NOISY_LOAD,
    RESULTS_DIR,
    CpuMeter,
    LoadSampler,
    MemorySampler,
    command_line,
    current_rss_mb,
    fmt,
    machine_info,
    median,
    memory_point,
    parse_sets,
    peak_rss_mb,
    percentile,
    search_options,
    setting_place,
    settings_fields,
    settings_kwargs,
    settings_snapshot,
    wait_for_quiet,
)
from synth import Generator  # noqa: E402

TOP_K = 10
RETRY_ABOVE = 0.25  # with --wait-quiet: redo a timed block if others used more of the CPU
TARGETS = {"p50_ms": 20.0, "p95_ms": 50.0, "writes_per_s": 400.0, "at": 100_000}
# At a million memories (issue 20): latency as above, start and anonymous memory bounded.
LARGE_TARGETS = {"at": 1_000_000, "start_s": 5.0, "anon_mb": 2048.0}
# mode -> search() keyword arguments; expand_hops is dropped where search() lacks it.
MODES: dict[str, dict[str, Any]] = {
    "hybrid": {},
    "hybrid-nograph": {"expand_hops": 0},
    "vector": {"weights": {"vector": 1.0}, "expand_hops": 0},
    "keyword": {"weights": {"keyword": 1.0}, "expand_hops": 0},
}


class Stages:
    """Wraps callables on live objects or modules to add up their wall time; undo() restores.

    Attributes that do not exist are skipped, so the breakdown follows whatever pipeline the
    installed graphmem has.
    """

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self.samples: dict[str, list[float]] = defaultdict(list)
        self._undo: list[tuple[Any, str, Any, bool]] = []

    def wrap(self, obj: Any, name: str, label: str) -> None:
        if obj is None or not callable(getattr(obj, name, None)):
            return
        orig = getattr(obj, name)
        own = name in vars(obj)  # a module function / instance attribute, not a class method

        def timed(*a: Any, **k: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return orig(*a, **k)
            finally:
                dt = time.perf_counter() - t0
                self.seconds[label] += dt
                self.calls[label] += 1
                self.samples[label].append(dt)

        setattr(obj, name, timed)
        self._undo.append((obj, name, orig, own))

    def undo(self) -> None:
        for obj, name, orig, own in reversed(self._undo):
            if own:
                setattr(obj, name, orig)
            else:
                delattr(obj, name)
        self._undo.clear()


def lat_summary(ms: list[float]) -> dict[str, Any]:
    return {
        "p50": median(ms),
        "p95": percentile(ms, 95),
        "mean": sum(ms) / len(ms) if ms else None,
        "max": max(ms) if ms else None,
        "n": len(ms),
    }


# ------------------------------------------------------------------------------ writes
def write_real(
    svc: Any, gen: Generator, users: list[str], start: int, end: int, batch: int, bar: Any
) -> dict[str, Any]:
    """Write memories [start, end) through svc.write_many; returns timings."""
    import random

    rng = random.Random(start)
    now = datetime.now(UTC)
    st = Stages()
    ctx = getattr(svc, "context", None)  # graphmem's; a peer system has none
    if ctx is not None:
        from graphmem.usecases import write as writing

        st.wrap(writing, "prepare", "validation_screening")
    st.wrap(svc.embedder, "encode", "embedding")
    st.wrap(getattr(ctx, "extractor", None), "extract_many", "extraction")
    st.wrap(getattr(ctx, "linker", None), "link", "linking")
    st.wrap(svc.records, "insert", "records_insert")
    st.wrap(svc.vectors, "optimize", "hnsw_build")
    st.wrap(svc.vectors, "upsert", "vector_upsert")  # includes hnsw_build when it runs
    st.wrap(getattr(ctx, "projector", None), "_apply_graph", "graph_projection")
    batch_s: list[float] = []
    ids: list[str] = []
    try:
        i = start
        while i < end:
            n = min(batch, end - i)
            texts = gen.memories(n)
            user = users[(i // batch) % len(users)]
            items = [
                {
                    "content": t,
                    "memory_type": "fact",
                    "created_at": now - timedelta(minutes=rng.randint(0, 525_600)),
                    "metadata": {"i": i + j},
                }
                for j, t in enumerate(texts)
            ]
            t0 = time.perf_counter()
            mems = svc.write_many(user, items)
            batch_s.append(time.perf_counter() - t0)
            ids.extend(m.id for m in mems)
            i += n
            bar.update(n)
    finally:
        st.undo()
    total = sum(batch_s)
    n = end - start
    sec = st.seconds
    hnsw = sec.get("hnsw_build", 0.0)
    stages = {
        "validation + screening": sec.get("validation_screening"),
        "embedding": sec.get("embedding", 0.0),
        "extraction": sec.get("extraction"),
        "linking": sec.get("linking"),
        "records insert": sec.get("records_insert", 0.0),
        "vector upsert": sec.get("vector_upsert", 0.0) - hnsw,
        "HNSW build": hnsw,
        "graph projection": sec.get("graph_projection"),
    }
    stages = {k: v for k, v in stages.items() if v is not None}
    stages["other"] = total - sum(stages.values())
    return {
        "path": "write_many (real embeddings)",
        "memories": n,
        "batch": batch,
        "wall_s": round(total, 2),
        "per_s": round(n / total, 1) if total else None,
        "per_s_excl_hnsw": round(n / (total - hnsw), 1) if total > hnsw else None,
        "embedding_only_per_s": round(n / stages["embedding"], 1) if stages["embedding"] else None,
        "stages_s": {k: round(v, 2) for k, v in stages.items()},
        "hnsw_builds": st.calls.get("hnsw_build", 0),
        "batch_p50_s": median(batch_s),
        "batch_max_s": max(batch_s) if batch_s else None,
        "ids": ids,
    }


def perturbed(base: Any, rng: Any, n: int, sigma: float) -> Any:
    """n unit vectors: random rows of `base` plus Gaussian noise, re-normalised."""
    import numpy as np

    picks = base[rng.integers(0, len(base), size=n)]
    vecs = picks + rng.normal(0.0, sigma, size=picks.shape).astype(np.float32)
    return (vecs / np.linalg.norm(vecs, axis=1, keepdims=True)).astype(np.float32)


def write_precomputed(
    svc: Any,
    gen: Generator,
    users: list[str],
    start: int,
    end: int,
    batch: int,
    bar: Any,
    base: Any,
    sigma: float,
) -> dict[str, Any]:
    """Fill [start, end) through svc.write_many with the embedding model swapped for perturbed
    real vectors: screening, extraction, linking, records, vectors and graph all run for real,
    so the graph and keyword statistics at this size are those of real writes."""
    import numpy as np

    rng = np.random.default_rng(start)

    def precomputed(texts: list[str]) -> Any:
        return perturbed(base, rng, len(texts), sigma)

    svc.embedder.encode = precomputed
    try:
        out = write_real(svc, gen, users, start, end, batch, bar)
    finally:
        del svc.embedder.encode  # the model's own method again
    out["path"] = "write_many with pre-computed vectors (everything but the embedding model)"
    out.pop("embedding_only_per_s", None)
    return out


def write_bulk(
    svc: Any,
    gen: Generator,
    users: list[str],
    start: int,
    end: int,
    base: Any,
    sigma: float,
    bar: Any,
    chunk: int = 10_000,
    rows: Callable[[str, int, int], list[Any]] | None = None,
) -> dict[str, Any]:
    """Fill [start, end) without the embedding model: record rows + perturbed real vectors.
    `rows(user, first, n)` makes the records (default: synthetic memories from `gen`);
    bench/docs_scale.py passes one that makes document chunks."""
    import numpy as np

    from graphmem.domain.model import Memory, MemoryType, new_id
    from graphmem.domain.summary import summarize
    from graphmem.domain.text import search_text
    from graphmem.service.projection import vector_point

    rng = np.random.default_rng(start)
    now = datetime.now(UTC)

    def memories(user: str, first: int, n: int) -> list[Any]:
        return [
            Memory(
                id=new_id(),
                user_id=user,
                content=t,
                summary=summarize(t)[:255],
                memory_type=MemoryType.FACT,
                metadata={"i": first + j, "bulk": True},
                created_at=now - timedelta(minutes=int(rng.integers(0, 525_600))),
                updated_at=now,
            )
            for j, t in enumerate(gen.memories(n))
        ]

    make = rows or memories
    t_start = time.perf_counter()
    st = Stages()
    st.wrap(svc.vectors, "optimize", "hnsw_build")
    try:
        i = start
        while i < end:
            n = min(chunk, end - i)
            user = users[(i // chunk) % len(users)]
            mems = make(user, i, n)
            vecs = perturbed(base, rng, n, sigma)
            svc.records.insert(mems, [search_text(m.content) for m in mems])
            svc.vectors.upsert([vector_point(m, v) for m, v in zip(mems, vecs, strict=True)])
            done = svc.records.outbox_for([m.id for m in mems])
            svc.records.outbox_done([o.id for o in done])
            i += n
            bar.update(n)
    finally:
        st.undo()
    total = time.perf_counter() - t_start
    return {
        "path": "bulk (records rows + perturbed vectors, no embedding)",
        "memories": end - start,
        "wall_s": round(total, 2),
        "per_s": round((end - start) / total, 1),
        "hnsw_build_s": round(st.seconds.get("hnsw_build", 0.0), 2),
        "hnsw_builds": st.calls.get("hnsw_build", 0),
        "perturb_sigma": sigma,
        "ids": [],
    }


# ------------------------------------------------------------------------------ search
def prepare_walk(svc: Any, users: list[str]) -> dict[str, float] | None:
    """Seconds to prepare each user's adjacency for the walk (graphmem.stores.graph.prepared),
    before the timed searches: the first search starts the build on a background thread and
    walks the records meanwhile, so without this the first blocks would time the build's
    contention. None where the graph has no prepared adjacency (main, or other backends)."""
    prepare = getattr(getattr(svc, "graph_store", None), "prepare", None)
    if prepare is None:
        return None
    took: dict[str, float] = {}
    for u in users[:50]:
        t0 = time.perf_counter()
        prepare(u)
        took[u] = round(time.perf_counter() - t0, 3)
    return took


def measure_search(
    svc: Any, gen: Generator, users: list[str], n_queries: int, profile: bool, quiet_s: float
) -> dict[str, Any]:
    out: dict[str, Any] = {"modes": {}, "cpu": {}, "wait_for_quiet": {}}

    def settle(label: str) -> None:
        if quiet_s:
            out["wait_for_quiet"][label] = wait_for_quiet(timeout=quiet_s)

    accepted = search_options(svc)
    modes = {m: {k: v for k, v in kw.items() if k in accepted} for m, kw in MODES.items()}
    if "expand_hops" not in accepted:
        modes.pop("hybrid-nograph")  # no graph expansion in this version: same as hybrid
    out["mode_args"] = modes

    def run(queries: list[str], kwargs: dict[str, Any]) -> list[float]:
        ms = []
        for k, q in enumerate(queries):
            t0 = time.perf_counter()
            svc.search(users[k % len(users)], q, TOP_K, track_access=False, **kwargs)
            ms.append((time.perf_counter() - t0) * 1000)
        return ms

    def measured(
        label: str,
        make_queries: Callable[[], list[str]],
        kwargs: dict,
        before: Callable[[], None] | None = None,
    ) -> list[str]:
        """Time one block; with --wait-quiet, redo it (up to 3 times) if neighbours were busy."""
        for attempt in range(1, 4):
            settle(label)
            if before is not None:
                before()
            qs = make_queries()
            meter = CpuMeter().start()
            out["modes"][label] = lat_summary(run(qs, kwargs))
            out["cpu"][label] = meter.stop()
            out["cpu"][label]["loadavg_end"] = round(os.getloadavg()[0], 2)
            out["attempts"][label] = attempt
            busy = out["cpu"][label]["others_busy"]
            if not quiet_s or busy is None or busy <= RETRY_ABOVE:
                break
        return qs

    out["attempts"] = {}
    run(gen.queries(5), {})  # warm-up (statement caches, first HNSW touch)
    out["graph_prepare_s"] = prepare_walk(svc, users)
    hybrid_queries: list[str] = []
    for mode, kwargs in modes.items():
        # fresh queries: never searched, so never in the query-embedding cache
        qs = measured(f"{mode} (uncached)", lambda: gen.queries(n_queries), kwargs)
        if mode == "hybrid":
            hybrid_queries = qs
    # the same queries again: with the search-result cache cleared, only the query embedding
    # is cached; then once more, answered from the result cache (where the service has one)
    cache = getattr(svc, "cache", None)

    def clear_results() -> None:
        for u in users if cache is not None else ():
            cache.invalidate(u)

    measured("hybrid (query embedding cached)", lambda: hybrid_queries, {}, clear_results)
    holder, ttl = setting_place(svc.settings, "search_cache_ttl_seconds")
    if cache is not None and getattr(holder, ttl, 0) > 0:
        # each query is searched once untimed (fills the cache), then timed right away, so the
        # cache TTL cannot expire in between however slow the first search is
        label = "hybrid (search-result cache hit)"
        settle(label)
        hits0 = getattr(svc, "cache_hits", None)
        ms: list[float] = []
        meter = CpuMeter().start()
        for k, q in enumerate(gen.queries(n_queries)):
            user = users[k % len(users)]
            svc.search(user, q, TOP_K, track_access=False)
            t0 = time.perf_counter()
            svc.search(user, q, TOP_K, track_access=False)
            ms.append((time.perf_counter() - t0) * 1000)
        out["cpu"][label] = meter.stop()
        out["modes"][label] = lat_summary(ms)
        if hits0 is not None:
            out["modes"][label]["cache_hits"] = svc.cache_hits - hits0

    # stage breakdown on fresh queries: hybrid, and hybrid without graph expansion; wall and
    # CPU per stage, checked against the same mode's uninstrumented figure (bench/_search_stages)
    # The embedding-cached block moved the cache version on before each search, which made the
    # walk's adjacency stale: prepare it again, so the stages time the walk the uncached
    # blocks timed.
    out["graph_prepare_stages_s"] = prepare_walk(svc, users)
    for name in [m for m in ("hybrid", "hybrid-nograph") if m in modes]:
        settle(f"stages {name}")
        out[f"stages_{name}"] = search_stages.measure(
            svc,
            users,
            gen.queries(n_queries),
            TOP_K,
            modes[name],
            out["modes"].get(f"{name} (uncached)"),
        )

    if profile:
        prof = cProfile.Profile()
        qs = gen.queries(50)
        prof.enable()
        run(qs, {})
        prof.disable()
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(25)
        out["cprofile_50_hybrid_searches"] = buf.getvalue()
    return out


# ------------------------------------------------------------------------------ Edge vs local
def compare_vector_stores(
    svc: Any, ids: list[str], gen: Generator, n_points: int, tenants: int, n_queries: int
) -> dict[str, Any]:
    import numpy as np

    from graphmem.stores.vectors import VectorFilter, VectorPoint
    from graphmem.stores.vectors.edge import EdgeVectors
    from graphmem.stores.vectors.qdrant import QdrantServerVectors

    got: dict[str, Any] = {}
    for i in range(0, min(len(ids), n_points), 1000):
        got.update(svc.vectors.vectors(ids[i : i + 1000]))
    keys = [i for i in ids[:n_points] if i in got]
    base = np.stack([got[k] for k in keys]).astype(np.float32)
    made = 0
    if len(keys) < n_points:  # not enough real vectors: perturbed copies fill up
        rng = np.random.default_rng(0)
        extra = base[rng.integers(0, len(base), size=n_points - len(keys))]
        extra = extra + rng.normal(0, 0.02, size=extra.shape).astype(np.float32)
        extra /= np.linalg.norm(extra, axis=1, keepdims=True)
        base = np.concatenate([base, extra])
        made = len(extra)
        import uuid

        keys += [str(uuid.uuid4()) for _ in range(made)]
    owner = [f"tenant-{j % tenants}" for j in range(n_points)]
    now = time.time()
    points = [
        VectorPoint(k, base[j], owner[j], "fact", "active", now, None) for j, k in enumerate(keys)
    ]
    qv = svc.embedder.encode(gen.queries(n_queries))
    owner_arr = np.array(owner)
    exact: list[set[str]] = []
    for j in range(n_queries):
        mask = owner_arr == f"tenant-{j % tenants}"
        sims = base[mask] @ qv[j]
        top = np.argsort(-sims)[:TOP_K]
        sub = [k for k, m in zip(keys, mask, strict=True) if m]
        exact.append({sub[t] for t in top})

    result: dict[str, Any] = {
        "points": n_points,
        "tenants": tenants,
        "points_per_tenant": n_points // tenants,
        "synthetic_points": made,
        "queries": n_queries,
        "top_k": TOP_K,
        "stores": {},
    }
    with tempfile.TemporaryDirectory(prefix="graphmem-cmp-") as tmp:
        stores: list[tuple[str, Callable[[], Any]]] = [
            ("qdrant-edge (embedded default)", lambda: EdgeVectors(Path(tmp) / "edge", dim=384)),
            (
                "qdrant-client local mode (:memory:)",
                lambda: QdrantServerVectors(url=":memory:", api_key=None, collection="c", dim=384),
            ),
        ]
        for name, make in stores:
            store = make()
            try:
                t0 = time.perf_counter()
                for i in range(0, len(points), 1000):
                    store.upsert(points[i : i + 1000])
                upsert_s = time.perf_counter() - t0
                t0 = time.perf_counter()
                if getattr(store, "_since_optimize", 0):
                    store.optimize()
                build_s = time.perf_counter() - t0
                ms: list[float] = []
                recall: list[float] = []
                for j in range(n_queries):
                    flt = VectorFilter(f"tenant-{j % tenants}")
                    t0 = time.perf_counter()
                    hits = store.search(qv[j], flt, TOP_K)
                    ms.append((time.perf_counter() - t0) * 1000)
                    recall.append(len({h.memory_id for h in hits} & exact[j]) / TOP_K)
                result["stores"][name] = {
                    "upsert_s": round(upsert_s, 2),
                    "index_build_s": round(build_s, 2),
                    "search_ms": lat_summary(ms),
                    "recall_at_10_vs_exact": sum(recall) / len(recall),
                    "health": store.health(),
                }
            finally:
                store.close()
    return result


# ------------------------------------------------------------------------------ start
def store_users(data_dir: Path) -> tuple[list[str], int]:
    """The users of an embedded store and its number of memories, read from its SQLite file
    without opening the service (whose open is what is being timed)."""
    import sqlite3

    db = data_dir / "graphmem.sqlite3"
    if not db.exists():
        raise SystemExit(f"--existing {data_dir}: no graphmem.sqlite3 there (an embedded store?)")
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = con.execute("SELECT DISTINCT user_id FROM memories ORDER BY user_id").fetchall()
        (count,) = con.execute("SELECT count(*) FROM memories").fetchone()
    finally:
        con.close()
    if not rows:
        raise SystemExit(f"--existing {data_dir}: the store has no memories")
    return [u for (u,) in rows], int(count)


def open_and_first_search(
    data_dir: Path, overrides: dict[str, Any], user: str, query: str, sampler: MemorySampler
) -> tuple[Any, dict[str, Any]]:
    """Open the service on the store and answer one search: the start an MCP server that
    restarts is down for. Returns the open service and the timings with memory at each step."""
    t0 = time.perf_counter()
    from graphmem import MemoryService, Settings

    import_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    svc = MemoryService(Settings(data_dir=data_dir, **settings_kwargs(overrides)))
    open_s = time.perf_counter() - t0
    memory = {"after open": memory_point(sampler)}
    t0 = time.perf_counter()
    svc.search(user, query, TOP_K, track_access=False)
    first_s = time.perf_counter() - t0
    memory["after the first search"] = memory_point(sampler)
    return svc, {
        "import_s": round(import_s, 3),
        "open_s": round(open_s, 3),
        "first_search_s": round(first_s, 3),
        "start_s": round(open_s + first_s, 3),
        "peak_anon_mb": sampler.peak.get("anon"),
        "memory": memory,
    }


def measure_start(
    data_dir: Path, sets: list[str], limit_anon_gb: float | None, timeout: float | None
) -> dict[str, Any]:
    """Start in a fresh process (this script with --existing --start-only), so neither this
    process's warm caches nor its memory count; the store must not be open here meanwhile."""
    import subprocess

    with tempfile.TemporaryDirectory(prefix="graphmem-start-") as tmp:
        out = Path(tmp) / "start.json"
        cmd = [sys.executable, str(Path(__file__).resolve()), "--existing", str(data_dir)]
        cmd += ["--start-only", "--no-progress", "--out", str(out)]
        cmd += [a for kv in sets for a in ("--set", kv)]
        if limit_anon_gb is not None:
            cmd += ["--limit-anon-gb", str(limit_anon_gb)]
        if timeout is not None:
            cmd += ["--timeout", str(timeout)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if not out.exists():
            return {"aborted": f"exit {proc.returncode}: {proc.stderr.strip()[-500:]}"}
        got = json.loads(out.read_text("utf-8"))
    return got["sizes"][0]["start"] if got.get("sizes") else got.get("start", {})


def graphmem_from() -> str:
    """Which graphmem tree this run measures (the bench scripts can measure another one)."""
    import graphmem

    return str(Path(graphmem.__file__).resolve().parent.parent)


def run_existing(args: argparse.Namespace, overrides: dict[str, Any]) -> dict[str, Any]:
    """Measure a store that is already there, writing nothing: start, search, memory."""
    import threading

    data_dir: Path = args.existing
    users, count = store_users(data_dir)
    gen = Generator(seed=args.seed)
    result: dict[str, Any] = {
        "benchmark": "scale",
        "command": command_line(),
        "machine": machine_info(),
        "loadavg_start": round(os.getloadavg()[0], 2),
        "store": str(data_dir),
        "graphmem_from": graphmem_from(),
        "users": len(users),
        "top_k": TOP_K,
        "settings_overridden": overrides,
        "sizes": [],
        "memory": {"start": memory_point()},
    }
    entry: dict[str, Any] = {"size": count, "write": {"path": "existing"}}
    started = time.perf_counter()
    lock = threading.Lock()

    def abort(reason: str) -> None:
        """Stop the run where it is: what was measured so far, and why it stopped."""
        with lock:
            last = memory_point(sampler)
            start = entry.setdefault("start", {})
            start["aborted"] = reason
            start["after_s"] = round(time.perf_counter() - started, 1)
            start["last_memory"] = last
            start["peak_anon_mb"] = sampler.peak.get("anon")
            result["sizes"] = [entry]
            result["memory"]["when stopped"] = last
            finish(result, args.out)
            os._exit(3)

    limit = args.limit_anon_gb * 1024 if args.limit_anon_gb else None
    sampler = MemorySampler(
        limit_anon_mb=limit,
        on_limit=lambda m: abort(f"anonymous memory passed {args.limit_anon_gb} GB"),
    ).start()
    timer = None
    if args.timeout:
        timer = threading.Timer(args.timeout, abort, (f"still running after {args.timeout:.0f} s",))
        timer.daemon = True
        timer.start()
    svc, start = open_and_first_search(data_dir, overrides, users[0], gen.queries(1)[0], sampler)
    entry["start"] = start
    result["memory"].update({k: v for k, v in start["memory"].items()})
    try:
        result["settings"] = settings_snapshot(svc.settings)
        if args.start_only:
            result["sizes"] = [entry]
            return result
        entry["records"] = svc.records.count()
        entry["vector_index"] = svc.vectors.health()
        print(
            f"searching {entry['size']:,} memories of {len(users):,} user(s) ...", file=sys.stderr
        )
        sampler.reset_peak()
        entry["search"] = measure_search(
            svc, gen, users, args.queries, args.profile, args.wait_quiet
        )
        result["memory"]["after the searches"] = memory_point(sampler)
        entry["loadavg"] = round(os.getloadavg()[0], 2)
        result["sizes"] = [entry]
    finally:
        if timer is not None:
            timer.cancel()
        with lock:
            svc.close()
        sampler.stop()
    return result


COMPONENTS = ("nothing", "model", "records", "vectors", "service")


def run_component(args: argparse.Namespace, overrides: dict[str, Any]) -> dict[str, Any]:
    """Open one part of the service alone on the store and use it a little: the anonymous
    memory it adds is that part's (a fresh process per part, see measure_breakdown)."""
    from graphmem import Settings

    users, count = store_users(args.existing)
    settings = Settings(data_dir=args.existing, **settings_kwargs(overrides))
    gen = Generator(seed=args.seed)
    queries = gen.queries(20)
    sampler = MemorySampler().start()
    before = memory_point(sampler)
    t0 = time.perf_counter()
    what = args.component
    closer: Callable[[], None] = lambda: None  # noqa: E731
    if what == "model":
        from graphmem.embedding import shared_embedder

        emb = shared_embedder(settings.embedding.model)
        for q in queries:
            emb.encode([q])
    elif what == "records":
        from graphmem.stores import open_records

        records = open_records(settings)
        closer = records.close
        for u in users[:20]:
            records.count(u)
    elif what == "vectors":
        import numpy as np

        from graphmem.stores import open_vectors
        from graphmem.stores.vectors import VectorFilter

        vectors = open_vectors(settings, 384)
        closer = vectors.close
        rng = np.random.default_rng(0)
        for k in range(20):
            v = rng.normal(size=384).astype(np.float32)
            vectors.search(v / np.linalg.norm(v), VectorFilter(users[k % len(users)]), TOP_K)
    elif what == "service":
        from graphmem import MemoryService

        svc = MemoryService(settings)
        closer = svc.close
        for k, q in enumerate(queries):
            svc.search(users[k % len(users)], q, TOP_K, track_access=False)
    opened = time.perf_counter() - t0
    after = memory_point(sampler)
    closer()
    sampler.stop()
    return {
        "component": what,
        "size": count,
        "seconds": round(opened, 2),
        "anon_mb": after["anon_mb"],
        "anon_added_mb": round((after["anon_mb"] or 0) - (before["anon_mb"] or 0), 1),
        "peak_anon_mb": sampler.peak.get("anon"),
        "file_mb": after["file_mb"],
        "file_added_mb": round((after["file_mb"] or 0) - (before["file_mb"] or 0), 1),
    }


def measure_breakdown(args: argparse.Namespace) -> dict[str, Any]:
    """Where anonymous memory goes: each part opened alone, in a fresh process, on the store."""
    import subprocess

    users, count = store_users(args.existing)
    parts: list[dict[str, Any]] = []
    for what in COMPONENTS:
        cmd = [sys.executable, str(Path(__file__).resolve()), "--existing", str(args.existing)]
        cmd += ["--component", what, *(a for kv in args.set for a in ("--set", kv))]
        print(f"memory of {what} ...", file=sys.stderr)
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
        if proc.returncode or not lines:
            parts.append({"component": what, "error": proc.stderr.strip()[-400:]})
            continue
        parts.append(json.loads(lines[-1]))
    result = {
        "benchmark": "scale-memory-breakdown",
        "command": command_line(),
        "machine": machine_info(),
        "store": str(args.existing),
        "size": count,
        "users": len(users),
        "settings_overridden": parse_sets(args.set),
        "parts": parts,
    }
    L = [
        f"Memory by part at {count:,} memories ({len(users):,} user(s)); each part opened alone"
        " in a fresh process and used for 20 calls",
        "",
        "| part | seconds | anonymous MiB | anonymous added MiB | peak anonymous MiB |"
        " mapped MiB | mapped added MiB |",
        "|---|---|---|---|---|---|---|",
    ]
    for part in parts:
        if "error" in part:
            L.append(f"| {part['component']} | error: {part['error'][-120:]} |||||")
            continue
        L.append(
            f"| {part['component']} | {part['seconds']} | {fmt(part['anon_mb'], 0)} |"
            f" {fmt(part['anon_added_mb'], 0)} | {fmt(part['peak_anon_mb'], 0)} |"
            f" {fmt(part['file_mb'], 0)} | {fmt(part['file_added_mb'], 0)} |"
        )
    md = "\n".join(L) + "\n"
    out = args.out or RESULTS_DIR / f"scale-memory-{datetime.now().strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1, default=str), "utf-8")
    out.with_suffix(".md").write_text(md, "utf-8")
    print(md)
    return result


def finish(result: dict[str, Any], out: Path | None, load: LoadSampler | None = None) -> None:
    """Write the JSON and markdown results and print the markdown. With the run's load
    sampler, its load average goes in; past NOISY_LOAD the figures are marked noisy and the
    target verdicts are withheld (a shared machine's figures are not a headline)."""
    if load is not None:
        result["load"] = load.stop()
    result["noisy"] = bool(result.get("load", {}).get("noisy"))
    result["targets"] = check_targets(result)
    out = out or RESULTS_DIR / f"scale-{datetime.now().strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1, default=str), "utf-8")
    m = result["machine"]
    users = result["users"]
    header = (
        f"Scale — {m['date']}, {m['cores']} cores ({m['cpu']}), {users:,} user(s);"
        f" load average at start {result['loadavg_start']}; torch threads"
        f" {result.get('settings', {}).get('torch_threads', 'default')}\n"
        f"Command: `{result['command']}`\n"
    )
    if result.get("load"):
        ld = result["load"]
        header += (
            f"Load average (1 min) during the run: start {ld['start']}, median {ld['median']},"
            f" max {ld['max']}\n"
        )
    if result["noisy"]:
        header += (
            f"\n**NOISY: the load average passed {NOISY_LOAD} during the run; the figures below"
            " shared the CPU with other work and are no headline.**\n"
        )
    if result.get("graphmem_from"):
        header += f"graphmem from: {result['graphmem_from']}\n"
    md = header + "\n" + markdown(result)
    out.with_suffix(".md").write_text(md, "utf-8")
    print(md)
    for s in result["sizes"]:
        if "cprofile_50_hybrid_searches" in s.get("search", {}):
            print(s["search"]["cprofile_50_hybrid_searches"])
    print(f"results: {out}")


# ------------------------------------------------------------------------------ report
def markdown(r: dict[str, Any]) -> str:
    L: list[str] = []
    real = [s for s in r["sizes"] if not s["write"]["path"].startswith(("bulk", "existing"))]
    stage_names = list(dict.fromkeys(k for s in real for k in s["write"]["stages_s"]))
    L += [
        "#### Writes (`write_many` in batches, embedding included; seconds per stage)",
        "",
        "| phase | memories | batch | wall s | memories/s | "
        + " | ".join(stage_names)
        + " | memories/s excl. HNSW build |",
        "|---|---|---|---|---|" + "---|" * len(stage_names) + "---|",
    ]
    for s in r["sizes"]:
        w = s["write"]
        if w["path"] == "existing":
            continue
        if w["path"].startswith("bulk"):
            L.append(
                f"| to {s['size']:,} (bulk: rows + perturbed vectors, no model) |"
                f" {w['memories']:,} | – | {w['wall_s']} | ({w['per_s']}) | "
                + " | ".join("–" for _ in stage_names)
                + " | – |"
            )
            continue
        L.append(
            f"| to {s['size']:,} | {w['memories']:,} | {w['batch']} | {w['wall_s']} |"
            f" **{w['per_s']}** | "
            + " | ".join(fmt(w["stages_s"].get(k), 1) for k in stage_names)
            + f" | {w['per_s_excl_hnsw']} |"
        )
    busy = [
        f"{s['size']:,}: {s['write']['cpu']['others_busy']:.0%}"
        for s in r["sizes"]
        if s["write"].get("cpu", {}).get("others_busy") is not None
    ]
    if busy:
        L += ["", "Other processes' average CPU use during the write phases: " + ", ".join(busy)]
    L += ["", f"#### Search latency (`svc.search`, top-{TOP_K}, ms)", ""]
    L += [
        "| size | mode | p50 | p95 | mean | max | searches | other processes' CPU |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for s in r["sizes"]:
        for mode, m in s.get("search", {}).get("modes", {}).items():
            busy = s["search"].get("cpu", {}).get(mode, {}).get("others_busy")
            L.append(
                f"| {s['size']:,} | {mode} | {fmt(m['p50'], 2)} | {fmt(m['p95'], 2)} |"
                f" {fmt(m['mean'], 2)} | {fmt(m['max'], 1)} | {m['n']} |"
                f" {'–' if busy is None else f'{busy:.0%}'} |"
            )
    for key, what in (
        ("stages_hybrid", "an uncached hybrid search (defaults)"),
        ("stages_hybrid-nograph", "an uncached hybrid search without graph expansion"),
    ):
        got = [(s["size"], s["search"][key]) for s in r["sizes"] if key in s.get("search", {})]
        if got:
            L += ["", f"#### Where {what} spends its time (ms per search, wall and CPU)", ""]
            L += search_stages.markdown_rows(got)
        elif r["sizes"] and f"{key}_uncached" in r["sizes"][0].get("search", {}):
            L += _old_stages(r, f"{key}_uncached", what)  # a result file from before
    starts = [s for s in r["sizes"] if s.get("start")]
    if starts:
        L += ["", "#### Start (a fresh process: open the service, answer the first search)", ""]
        L += [
            "| size | open s | first search s | start s | anonymous MiB | mapped MiB |"
            " peak anonymous MiB | outcome |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for s in starts:
            st = s["start"]
            mem = st.get("memory", {}).get("after the first search") or st.get("last_memory", {})
            L.append(
                f"| {s['size']:,} | {fmt(st.get('open_s'), 2)} | {fmt(st.get('first_search_s'), 2)}"
                f" | **{fmt(st.get('start_s'), 2)}** | {fmt(mem.get('anon_mb'), 0)} |"
                f" {fmt(mem.get('file_mb'), 0)} | {fmt(st.get('peak_anon_mb'), 0)} |"
                f" {st.get('aborted') or 'ok'} |"
            )
    L += ["", "#### Memory (MiB)", ""]
    L += [
        "Anonymous: what the process owns (model, in-RAM indexes, caches, Python objects)."
        " Mapped: resident pages of the store's files mapped into the process (page cache the"
        " kernel can drop). Peak RSS (getrusage) includes the mappings.",
        "",
        "| point | anonymous | mapped | RSS | peak anonymous (sampled) | peak RSS incl. mappings |",
        "|---|---|---|---|---|---|",
    ]
    for label, m in r.get("memory", {}).items():
        L.append(
            f"| {label} | {fmt(m.get('anon_mb'), 0)} | {fmt(m.get('file_mb'), 0)} |"
            f" {fmt(m.get('rss_mb'), 0)} | {fmt(m.get('peak_anon_mb'), 0)} |"
            f" {fmt(m.get('peak_rss_incl_mappings_mb'), 0)} |"
        )
    c = r.get("compare")
    if c:
        L += [
            "",
            f"#### Tenant-filtered top-{c['top_k']} over {c['points']:,} points"
            f" ({c['tenants']} tenants x {c['points_per_tenant']:,}), {c['queries']} queries",
            "",
            "| vector store | upsert s | p50 ms | p95 ms | recall@10 vs exact |",
            "|---|---|---|---|---|",
        ]
        for name, s in c["stores"].items():
            L.append(
                f"| {name} | {s['upsert_s']} | {fmt(s['search_ms']['p50'], 2)} |"
                f" {fmt(s['search_ms']['p95'], 2)} | {fmt(s['recall_at_10_vs_exact'])} |"
            )
        if c.get("p50_ratio_local_over_edge"):
            L.append("")
            L.append(
                f"Local mode is {c['p50_ratio_local_over_edge']:.0f}x slower than Edge at p50"
                f" ({c['p95_ratio_local_over_edge']:.0f}x at p95)."
            )
    if r.get("targets"):
        L += ["", "#### Targets", ""]
        L += [f"- {t}" for t in r["targets"]]
    return "\n".join(L) + "\n"


def _old_stages(r: dict[str, Any], key: str, what: str) -> list[str]:
    """The wall-only stage table of result files written before the per-stage CPU."""
    L = ["", f"#### Where {what} spends its time (mean ms per search)", ""]
    names = list(dict.fromkeys(n for s in r["sizes"] for n in s["search"].get(key, {})))
    L += ["| stage | " + " | ".join(f"{s['size']:,}" for s in r["sizes"]) + " |"]
    L += ["|---|" + "---|" * len(r["sizes"])]
    for n in names:
        cells = [fmt(s["search"].get(key, {}).get(n, {}).get("mean_ms"), 2) for s in r["sizes"]]
        L.append(f"| {n} | " + " | ".join(cells) + " |")
    return L


def check_targets(r: dict[str, Any]) -> list[str]:
    if r.get("noisy"):
        return [
            f"not judged: the load average reached {r['load']['max']} (> {NOISY_LOAD}) during"
            " the run, so its figures are noisy"
        ]
    lines = []
    for at in r["sizes"]:
        big = at["size"] >= LARGE_TARGETS["at"]
        if at["size"] != TARGETS["at"] and not big:
            continue
        m = at.get("search", {}).get("modes", {}).get("hybrid (uncached)")
        for key, target in (("p50", TARGETS["p50_ms"]), ("p95", TARGETS["p95_ms"])):
            v = m[key] if m else None
            if v is None:
                continue
            verdict = "met" if v <= target else f"MISSED by {v - target:.1f} ms ({v / target:.1f}x)"
            lines.append(
                f"hybrid search {key} at {at['size']:,}: {v:.1f} ms (target <= {target:.0f} ms):"
                f" {verdict}"
            )
        st = at.get("start") or {}
        if big and st.get("start_s") is not None:
            v, target = st["start_s"], LARGE_TARGETS["start_s"]
            lines.append(
                f"service start at {at['size']:,}: {v:.2f} s (target <= {target:.0f} s):"
                f" {'met' if v <= target else 'MISSED'}"
            )
        elif big and st.get("aborted"):
            lines.append(f"service start at {at['size']:,}: MISSED ({st['aborted']})")
        anon = st.get("peak_anon_mb")
        if big and st.get("aborted"):
            lines.append(
                f"peak anonymous RSS at {at['size']:,}: not reached; {anon or 0:,.0f} MiB when"
                f" the run was stopped ({st['aborted']})"
            )
        elif big and anon is not None:
            target = LARGE_TARGETS["anon_mb"]
            lines.append(
                f"peak anonymous RSS at {at['size']:,} (start + first search): {anon:,.0f} MiB"
                f" (target <= {target:,.0f} MiB): {'met' if anon <= target else 'MISSED'}"
            )
    real = [
        s["write"] for s in r["sizes"] if not s["write"]["path"].startswith(("bulk", "existing"))
    ]
    if real:
        n = sum(w["memories"] for w in real)
        wall = sum(w["wall_s"] for w in real)
        per_s = n / wall
        verdict = (
            "met"
            if per_s >= TARGETS["writes_per_s"]
            else f"MISSED by {TARGETS['writes_per_s'] - per_s:.0f}/s"
            f" ({per_s / TARGETS['writes_per_s']:.0%} of target)"
        )
        lines.append(
            f"batched writes incl. embedding: {per_s:.0f} memories/s over {n:,}"
            f" (target >= {TARGETS['writes_per_s']:.0f}/s): {verdict}"
        )
    return lines


# ------------------------------------------------------------------------------ main
def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="10000,100000", help="comma-separated store sizes")
    p.add_argument("--batch", type=int, default=500, help="memories per write_many call")
    p.add_argument("--queries", type=int, default=200, help="fresh queries per mode and size")
    p.add_argument("--users", type=int, default=1, help="spread memories over this many users")
    p.add_argument(
        "--real-max",
        type=int,
        default=100_000,
        help="embed memories for real up to this count; beyond it use the bulk path",
    )
    p.add_argument(
        "--bulk-path",
        choices=("rows", "service"),
        default="rows",
        help="beyond --real-max: 'rows' writes record rows and vectors directly (fast, no graph);"
        " 'service' runs write_many with pre-computed vectors (graph and keyword statistics"
        " as real writes make them, only the embedding model skipped)",
    )
    p.add_argument("--perturb", type=float, default=0.02, help="bulk path: noise per dimension")
    p.add_argument("--compare-points", type=int, default=20_000)
    p.add_argument("--compare-tenants", type=int, default=10)
    p.add_argument("--compare-queries", type=int, default=100)
    p.add_argument("--no-compare", action="store_true", help="skip Edge vs local mode")
    p.add_argument("--profile", action="store_true", help="cProfile 50 searches at the last size")
    p.add_argument("--data-dir", type=Path, default=None, help="keep the store here")
    p.add_argument("--out", type=Path, default=None)
    p.add_argument(
        "--wait-quiet",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="before each write phase and each timed search block, wait up to this long until"
        " other processes use < 15%% of the CPU; default 0: do not wait",
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a graphmem setting, e.g. --set torch_threads=0 (repeatable)",
    )
    p.add_argument("--no-progress", action="store_true")
    p.add_argument(
        "--existing",
        type=Path,
        default=None,
        metavar="DIR",
        help="measure this embedded store as it is (start, search, memory); write nothing",
    )
    p.add_argument(
        "--start-only",
        action="store_true",
        help="with --existing: only open the service and answer the first search",
    )
    p.add_argument(
        "--no-start",
        action="store_true",
        help="do not time a fresh process's start at each size",
    )
    p.add_argument(
        "--limit-anon-gb",
        type=float,
        default=None,
        help="with --existing: stop (and report so) once anonymous memory passes this",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="with --existing: stop (and report so) after this long",
    )
    p.add_argument("--seed", type=int, default=7, help="of the synthetic memories and queries")
    p.add_argument(
        "--breakdown",
        action="store_true",
        help="with --existing: the anonymous memory of each part (model, records, vectors, the"
        " whole service), each opened alone in a fresh process",
    )
    p.add_argument("--component", choices=COMPONENTS, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    load = LoadSampler().start()
    sizes = sorted({int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()})
    overrides = parse_sets(args.set)
    if args.existing is not None:
        from graphmem import Settings

        fields = settings_fields()
        unknown = [k for k in overrides if fields and k not in fields]
        if unknown:
            raise SystemExit(f"--set: not a graphmem setting: {', '.join(unknown)}")
        if args.component:
            print(json.dumps(run_component(args, overrides)))
        elif args.breakdown:
            measure_breakdown(args)
        else:
            finish(run_existing(args, overrides), args.out, load)
        return 0

    import numpy as np
    from tqdm import tqdm

    from graphmem import MemoryService, Settings

    rss: dict[str, tuple[float, float | None]] = {"start": (peak_rss_mb(), current_rss_mb())}
    sampler = MemorySampler().start()
    memory: dict[str, Any] = {"start": memory_point(sampler)}
    tmp = None
    if args.data_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="graphmem-scale-")
        data_dir = Path(tmp.name)
    else:
        data_dir = args.data_dir
    gen = Generator(seed=args.seed)
    users = [f"scale-user-{i}" for i in range(max(1, args.users))]
    result: dict[str, Any] = {
        "benchmark": "scale",
        "command": command_line(),
        "machine": machine_info(),
        "loadavg_start": round(os.getloadavg()[0], 2),
        "users": len(users),
        "top_k": TOP_K,
        "sizes": [],
    }
    t0 = time.perf_counter()
    fields = settings_fields()
    unknown = [k for k in overrides if fields and k not in fields]
    if unknown:
        raise SystemExit(f"--set: not a graphmem setting: {', '.join(unknown)}")
    svc = MemoryService(Settings(data_dir=data_dir, **settings_kwargs(overrides)))
    result["service_open_s"] = round(time.perf_counter() - t0, 2)
    result["settings_overridden"] = overrides
    result["settings"] = settings_snapshot(svc.settings)
    svc.embedder.encode(["warm up the model"] * 64)  # first-call overhead is not throughput
    rss["service open + model warm"] = (peak_rss_mb(), current_rss_mb())
    memory["service open + model warm"] = memory_point(sampler)
    all_ids: list[str] = []
    progress = not args.no_progress
    try:
        count = 0
        for size in sizes:
            bar = tqdm(
                total=size - count,
                desc=f"fill to {size:,}",
                unit="mem",
                file=sys.stderr,
                disable=not progress,
            )
            phases = []
            if args.wait_quiet:
                result.setdefault("wait_for_quiet", {})[f"before fill to {size}"] = wait_for_quiet(
                    timeout=args.wait_quiet
                )
            meter = CpuMeter().start()
            real_end = min(size, max(count, args.real_max))
            if real_end > count:
                phases.append(write_real(svc, gen, users, count, real_end, args.batch, bar))
                all_ids.extend(phases[-1]["ids"])
                count = real_end
            if size > count:
                keep = all_ids[:20_000]
                got: dict[str, Any] = {}
                for i in range(0, len(keep), 1000):
                    got.update(svc.vectors.vectors(keep[i : i + 1000]))
                if not got:
                    base = svc.embedder.encode(gen.memories(2000))
                else:
                    base = np.stack(list(got.values()))
                if args.bulk_path == "service":
                    phases.append(
                        write_precomputed(
                            svc, gen, users, count, size, args.batch, bar, base, args.perturb
                        )
                    )
                else:
                    phases.append(write_bulk(svc, gen, users, count, size, base, args.perturb, bar))
                count = size
            bar.close()
            write_cpu = meter.stop()
            write = phases[0] if len(phases) == 1 else {**phases[-1], "also": phases[:-1]}
            write["cpu"] = write_cpu
            for ph in phases:
                ph.pop("ids", None)
            entry: dict[str, Any] = {
                "size": size,
                "write": write,
                "vector_index": svc.vectors.health(),
                "records": svc.records.count(),
            }
            print(f"searching at {size:,} ...", file=sys.stderr)
            entry["search"] = measure_search(
                svc, gen, users, args.queries, args.profile and size == sizes[-1], args.wait_quiet
            )
            rss[f"after {size:,}"] = (peak_rss_mb(), current_rss_mb())
            memory[f"after {size:,}"] = memory_point(sampler)
            if not args.no_start:
                print(f"timing a fresh start at {size:,} ...", file=sys.stderr)
                svc.close()
                entry["start"] = measure_start(data_dir, args.set, args.limit_anon_gb, args.timeout)
                svc = MemoryService(Settings(data_dir=data_dir, **settings_kwargs(overrides)))
            entry["loadavg"] = round(os.getloadavg()[0], 2)
            result["sizes"].append(entry)
        if not args.no_compare:
            print("comparing Qdrant Edge with qdrant-client local mode ...", file=sys.stderr)
            if args.wait_quiet:
                result.setdefault("wait_for_quiet", {})["before compare"] = wait_for_quiet(
                    timeout=args.wait_quiet
                )
            c = compare_vector_stores(
                svc, all_ids, gen, args.compare_points, args.compare_tenants, args.compare_queries
            )
            e, lo = list(c["stores"].values())
            c["p50_ratio_local_over_edge"] = lo["search_ms"]["p50"] / e["search_ms"]["p50"]
            c["p95_ratio_local_over_edge"] = lo["search_ms"]["p95"] / e["search_ms"]["p95"]
            result["compare"] = c
            rss["after the Edge / local-mode comparison"] = (peak_rss_mb(), current_rss_mb())
            memory["after the Edge / local-mode comparison"] = memory_point(sampler)
    finally:
        svc.close()
        sampler.stop()
        if tmp is not None:
            tmp.cleanup()

    result["rss_mb"] = rss
    result["memory"] = memory
    finish(result, args.out, load)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
