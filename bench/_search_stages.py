"""Where one search spends its time: wall clock and CPU per stage, for bench/scale.py.

A search's stages are timed from outside, without changing graphmem: the spans the search
use-case already marks its steps with (graphmem.infra.tracing.span, a no-op unless tracing is on)
are swapped for recording ones in graphmem.usecases.search, and the store calls that have no
span of their own (the records re-read, the vector scores of hits the vector search did not
return, the result cache) are wrapped on the live objects. Everything is put back afterwards.

Stages are timed on the thread that runs the search, so they do not overlap and add up to the
search's wall time: the keyword channel runs on a worker thread beside the query embedding and
the vector search, and what it costs the search is the time the search then waits for it
("keyword (waited for)"); its own wall and CPU are reported apart. What no stage covers
(request parsing, filters, sorting, Python between the stages) is "unaccounted". CPU is the
searching thread's (time.thread_time); the process CPU per search (every thread: the keyword
worker, ONNX Runtime, Qdrant) is given for the total. Serialisation is the JSON an MCP or HTTP
answer is made of (`json.dumps(result.to_dict())`), timed after the search.

The stage sum is checked against the end-to-end figure of the same queries' mode measured
without the instrumentation (`check`): the wrappers cost a few microseconds per call, so the two
agree within noise unless a stage is missed or double-counted.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

# span name (graphmem.usecases.search) -> stage label
SPAN_STAGES = {
    "graphmem.search.embed_query": "query embedding",
    "graphmem.search.vector": "vector search",
    "graphmem.search.fuse": "fusion (scoring the candidates)",
    "graphmem.search.walk": "graph walk",
}
KEYWORD_SPAN = "graphmem.search.keyword"
WORKER = "keyword channel (worker thread, beside embedding + vector)"
UNACCOUNTED = "unaccounted (parsing, filters, sorting, Python between stages)"
SERIALISE = "serialisation (json.dumps of to_dict)"
ORDER = (
    "result cache",
    "query embedding",
    "vector search",
    "keyword (waited for)",
    "records re-read",
    "fusion (scoring the candidates)",
    "graph walk",
    "vector scores of hits not in the vector top",
    UNACCOUNTED,
)


class _Off:
    """The span the recorder gives for steps it does not time."""

    def __enter__(self) -> _Off:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def set(self, **attrs: Any) -> None:
        return None


class StageClock:
    """Per-search (wall, CPU) accumulators by stage, on the searching thread."""

    def __init__(self) -> None:
        self.searches: list[dict[str, tuple[float, float]]] = []
        self.worker: list[tuple[float, float]] = []
        self._now: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
        self._main = threading.get_ident()
        self._undo: list[Callable[[], None]] = []

    def add(self, label: str, wall: float, cpu: float) -> None:
        if threading.get_ident() == self._main:
            acc = self._now[label]
            acc[0] += wall
            acc[1] += cpu
        elif label == WORKER:
            self.worker.append((wall, cpu))

    @contextmanager
    def timed(self, label: str) -> Iterator[None]:
        w0, c0 = time.perf_counter(), time.thread_time()
        try:
            yield
        finally:
            self.add(label, time.perf_counter() - w0, time.thread_time() - c0)

    def wrap(self, obj: Any, name: str, label: str) -> None:
        """Time `obj.name` (a method or module function) as `label`; skipped if absent."""
        if obj is None or not callable(getattr(obj, name, None)):
            return
        orig = getattr(obj, name)
        own = name in vars(obj)

        def timed(*a: Any, **k: Any) -> Any:
            with self.timed(label):
                return orig(*a, **k)

        setattr(obj, name, timed)
        self._undo.append(lambda: setattr(obj, name, orig) if own else delattr(obj, name))

    def patch_spans(self, module: Any) -> None:
        """Replace `module.span` with one that times the search's steps, and `module._keyword`
        with one whose future times the wait for it."""
        if not hasattr(module, "span"):
            return
        orig_span = module.span

        def span(name: str, /, **attrs: Any) -> Any:
            if name in SPAN_STAGES:
                return _Step(self, SPAN_STAGES[name])
            if name == KEYWORD_SPAN:
                return _Step(self, WORKER)
            return _Off()

        module.span = span
        self._undo.append(lambda: setattr(module, "span", orig_span))
        orig_keyword = getattr(module, "_keyword", None)
        if orig_keyword is None:
            return

        def keyword(*a: Any, **k: Any) -> Any:
            return _TimedFuture(orig_keyword(*a, **k), self)

        module._keyword = keyword
        self._undo.append(lambda: setattr(module, "_keyword", orig_keyword))

    def begin(self) -> None:
        self._now = defaultdict(lambda: [0.0, 0.0])

    def end(self, wall: float, cpu: float, process_cpu: float, serialise: tuple[float, float]):
        stages = {k: (v[0], v[1]) for k, v in self._now.items()}
        inside_w = sum(v[0] for v in stages.values())
        inside_c = sum(v[1] for v in stages.values())
        stages[UNACCOUNTED] = (wall - inside_w, cpu - inside_c)
        stages[SERIALISE] = serialise
        stages["total"] = (wall, cpu)
        stages["process CPU (all threads)"] = (0.0, process_cpu)
        self.searches.append(stages)

    def undo(self) -> None:
        for fn in reversed(self._undo):
            fn()
        self._undo.clear()


class _Step:
    """A recording span: times its block as one stage (`set` is accepted and ignored)."""

    __slots__ = ("_c0", "_clock", "_label", "_w0")

    def __init__(self, clock: StageClock, label: str) -> None:
        self._clock, self._label = clock, label

    def __enter__(self) -> _Step:
        self._w0, self._c0 = time.perf_counter(), time.thread_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self._clock.add(self._label, time.perf_counter() - self._w0, time.thread_time() - self._c0)

    def set(self, **attrs: Any) -> None:
        return None


class _TimedFuture:
    """The keyword channel's future: `result()` is timed as the search's wait for it."""

    def __init__(self, inner: Any, clock: StageClock) -> None:
        self._inner, self._clock = inner, clock

    def result(self, timeout: float | None = None) -> Any:
        with self._clock.timed("keyword (waited for)"):
            return self._inner.result(timeout)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _median(xs: list[float]) -> float | None:
    if not xs:
        return None
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def measure(
    svc: Any,
    users: list[str],
    queries: list[str],
    top_k: int,
    kwargs: dict[str, Any],
    plain_ms: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Search `queries` with every stage timed; per stage the p50 and mean wall and the mean
    CPU in ms per search, the keyword worker apart, and the check against `plain_ms` (the
    same mode's latency summary without instrumentation)."""
    from graphmem.usecases import search as searching

    clock = StageClock()
    clock.patch_spans(searching)
    ctx = getattr(svc, "context", None)
    clock.wrap(svc.records, "get", "records re-read")
    clock.wrap(svc.vectors, "scores", "vector scores of hits not in the vector top")
    clock.wrap(getattr(ctx, "cache", None), "get", "result cache")
    clock.wrap(getattr(ctx, "cache", None), "set", "result cache")
    emb = svc.embedder
    hits0, misses0 = getattr(emb, "cache_hits", 0), getattr(emb, "cache_misses", 0)
    load0 = os.getloadavg()[0]
    try:
        for k, q in enumerate(queries):
            clock.begin()
            p0 = time.process_time()
            w0, c0 = time.perf_counter(), time.thread_time()
            result = svc.search(users[k % len(users)], q, top_k, track_access=False, **kwargs)
            wall, cpu = time.perf_counter() - w0, time.thread_time() - c0
            pcpu = time.process_time() - p0
            s0, sc0 = time.perf_counter(), time.thread_time()
            json.dumps(result.to_dict(), default=str)
            ser = (time.perf_counter() - s0, time.thread_time() - sc0)
            clock.end(wall, cpu, pcpu, ser)
    finally:
        clock.undo()
    n = len(clock.searches)
    labels = [*ORDER, SERIALISE, "total", "process CPU (all threads)"]
    seen = {k for s in clock.searches for k in s}
    stages: dict[str, dict[str, float | None]] = {}
    for label in [x for x in labels if x in seen]:
        walls = [s[label][0] * 1000 if label in s else 0.0 for s in clock.searches]
        cpus = [s[label][1] * 1000 if label in s else 0.0 for s in clock.searches]
        cpu_only = label == "process CPU (all threads)"
        stages[label] = {
            "wall_p50_ms": None if cpu_only else _median(walls),
            "wall_mean_ms": None if cpu_only else sum(walls) / n,
            "cpu_mean_ms": sum(cpus) / n,
        }
    if clock.worker:
        stages[WORKER] = {
            "wall_p50_ms": _median([w * 1000 for w, _ in clock.worker]),
            "wall_mean_ms": sum(w for w, _ in clock.worker) * 1000 / n,
            "cpu_mean_ms": sum(c for _, c in clock.worker) * 1000 / n,
        }
    parts = [x for x in ORDER if x in stages and x != UNACCOUNTED]
    summed = sum(stages[x]["wall_mean_ms"] or 0.0 for x in parts)
    total = stages["total"]["wall_mean_ms"] or 0.0
    check: dict[str, Any] = {
        "stages_sum_mean_ms": summed,
        "end_to_end_mean_ms": total,
        "unaccounted_share": (total - summed) / total if total else None,
    }
    if plain_ms and plain_ms.get("mean"):
        plain = plain_ms["mean"]
        check["uninstrumented_mean_ms"] = plain
        check["instrumented_over_plain"] = total / plain
        # a missed or double-counted stage shows as a gap far beyond the wrappers' cost
        check["matches"] = abs(total - plain) <= max(1.0, 0.15 * plain)
    return {
        "searches": n,
        "stages": stages,
        "check": check,
        "query_embedding_cache": {
            "hits": getattr(emb, "cache_hits", 0) - hits0,
            "misses": getattr(emb, "cache_misses", 0) - misses0,
        },
        "loadavg": [round(load0, 2), round(os.getloadavg()[0], 2)],
    }


def markdown_rows(by_size: list[tuple[int, dict[str, Any]]]) -> list[str]:
    """A table: one row per stage, wall p50 / mean and CPU mean per size."""
    if not by_size:
        return []
    labels = list(dict.fromkeys(k for _, b in by_size for k in b["stages"]))
    head = "| stage | " + " | ".join(
        f"{size:,} wall p50 | wall mean | CPU mean" for size, _ in by_size
    )
    L = [head + " |", "|---|" + "---|---|---|" * len(by_size)]
    for label in labels:
        cells = []
        for _, b in by_size:
            st = b["stages"].get(label, {})
            cells += [
                _f(st.get("wall_p50_ms")),
                _f(st.get("wall_mean_ms")),
                _f(st.get("cpu_mean_ms")),
            ]
        L.append(f"| {label} | " + " | ".join(cells) + " |")
    L.append("")
    for size, b in by_size:
        c = b["check"]
        line = (
            f"- {size:,}: stages add up to {c['stages_sum_mean_ms']:.2f} of"
            f" {c['end_to_end_mean_ms']:.2f} ms ({(c['unaccounted_share'] or 0):.0%} unaccounted)"
        )
        if "uninstrumented_mean_ms" in c:
            line += (
                f"; without instrumentation the same mode took {c['uninstrumented_mean_ms']:.2f} ms"
                f" mean ({'matches' if c['matches'] else 'DOES NOT MATCH'})"
            )
        qc = b["query_embedding_cache"]
        line += (
            f"; query-embedding cache {qc['hits']} hits / {qc['misses']} misses;"
            f" load {b['loadavg'][0]} -> {b['loadavg'][1]}"
        )
        L.append(line)
    return L


def _f(v: float | None) -> str:
    return "–" if v is None else f"{v:.2f}"
