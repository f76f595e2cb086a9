"""Tune hybrid ranking on the LoCoMo tuning split (conv-26, conv-30), then confirm once on test.

The store holds all ten conversations by default, each as its own user, exactly as in
bench/locomo.py: the other conversations are other tenants whose text shares the keyword index
(that matters, see below), but none of their questions is asked while tuning. Only questions of
conv-26 and conv-30 are scored in the default `--questions tune` run, on bench/locomo.py's
metrics:

1. the service defaults, then a weight grid through the public API,
   svc.search(weights={"vector": v, "keyword": 1 - v}, expand_hops=0); recency and frequency
   stay 0 because on LoCoMo they carry no signal (every memory is years old, so recency is ~0
   for all of them, and track_access=False keeps frequency at 0);
2. where the service has graph expansion: graph weight and hops at the best weights;
   Settings.candidate_pool at the best weights (the service uses max(pool, 3 * top_k));
3. what-ifs computed here from each channel's raw top-N (the service's own keyword channel,
   `records.keyword_search`, and two Python BM25s over the same tokens: one with the user's own
   statistics, one with everybody's, i.e. what a single shared FTS5 table scores):
   - the service's linear formula over each keyword source;
   - min-max-normalised linear fusion and reciprocal-rank fusion (RRF, k=60).
   A check row shows that the simulation reproduces svc.search (expand_hops=0).

`--questions test` then scores ONLY configurations fixed in advance (from the tuning run) on the
eight test conversations: BM25, vector, the defaults (with and without graph expansion),
`--service-weights` with `--service-hops`, and (with `--user-bm25-vector`) the Python per-user
BM25 fused with the service formula.

Usage:
  python bench/tune_locomo.py                     # tuning grid on conv-26 + conv-30
  python bench/tune_locomo.py --questions test --service-weights vector=0.1,keyword=0.9 \\
      --service-hops 0                            # confirm the chosen settings on test
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402
    RESULTS_DIR,
    command_line,
    fmt,
    machine_info,
    make_settings,
    search_options,
)
from locomo import (  # noqa: E402
    CATEGORIES,
    DEFAULT_DATA,
    TOP_K,
    TUNE_SPLIT,
    aggregate,
    ingest,
    load_locomo,
    score,
    user_of,
)

RRF_K = 60
Scorer = Callable[[dict[str, Any], str], float]


class BM25:
    """Okapi BM25 (k1=1.2, b=0.75, FTS5's idf) over graphmem's own keyword tokens.

    Built from one set of memories, so its document frequencies are either one user's (what a
    per-tenant keyword index would use) or everybody's (what one shared FTS5 table uses).
    """

    def __init__(self, memories: list[Any], k1: float = 1.2, b: float = 0.75) -> None:
        from graphmem.domain.text import search_text

        self.k1, self.b = k1, b
        self.ids: set[str] = set()
        self.postings: dict[str, dict[str, int]] = {}
        self.length: dict[str, int] = {}
        for m in memories:
            toks = search_text(m.content).split()
            self.ids.add(m.id)
            self.length[m.id] = len(toks)
            for t, n in Counter(toks).items():
                self.postings.setdefault(t, {})[m.id] = n
        self.n = len(self.length)
        self.avgdl = sum(self.length.values()) / max(1, self.n)

    def idf(self, term: str) -> float:
        df = len(self.postings.get(term, {}))
        return max(1e-6, math.log((self.n - df + 0.5) / (df + 0.5)))

    def top(self, terms: list[str], limit: int, only: set[str] | None = None) -> list[tuple]:
        scores: dict[str, float] = {}
        for t in terms:
            idf = self.idf(t)
            for doc, tf in self.postings.get(t, {}).items():
                if only is not None and doc not in only:
                    continue
                norm = tf + self.k1 * (1 - self.b + self.b * self.length[doc] / self.avgdl)
                scores[doc] = scores.get(doc, 0.0) + idf * tf * (self.k1 + 1) / norm
        return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]


# ------------------------------------------------------------------------------ fusion what-ifs
def linear(wv: float, wk: float) -> Scorer:
    """The service's formula: cosine floored at 0, keyword / best keyword score of the query."""

    def f(c: dict[str, Any], i: str) -> float:
        kmax = max(c["kw"].values(), default=0.0)
        k = c["kw"].get(i, 0.0) / kmax if kmax > 0 else 0.0
        return wv * max(0.0, c["vec"].get(i, 0.0)) + wk * k

    return f


def minmax(wv: float, wk: float) -> Scorer:
    def f(c: dict[str, Any], i: str) -> float:
        vs = list(c["vec"].values())
        lo, hi = min(vs, default=0.0), max(vs, default=0.0)
        v = (c["vec"].get(i, lo) - lo) / (hi - lo) if hi > lo else 0.0
        kmax = max(c["kw"].values(), default=0.0)
        k = c["kw"].get(i, 0.0) / kmax if kmax > 0 else 0.0
        return wv * v + wk * k

    return f


def rrf(wv: float, wk: float) -> Scorer:
    def f(c: dict[str, Any], i: str) -> float:
        s = 0.0
        if i in c["vec_pos"]:
            s += wv / (RRF_K + 1 + c["vec_pos"][i])
        if i in c["kw_pos"]:
            s += wk / (RRF_K + 1 + c["kw_pos"][i])
        return s

    return f


def evaluate(questions: list, retrieve: Callable[[Any], list[str]]) -> dict[str, Any]:
    rows = [score(retrieve(q), q.evidence) for q in questions]
    out = aggregate(rows)
    for cat in sorted({q.category for q in questions}):
        sub = [r for r, q in zip(rows, questions, strict=True) if q.category == cat]
        out[f"recall@10_c{cat}"] = aggregate(sub)["recall@10"]
    return out


class Lab:
    """One ingested store plus the raw channel outputs of every question."""

    def __init__(self, svc: Any, users: list[str], questions: list) -> None:
        import numpy as np

        from graphmem.domain.text import query_terms
        from graphmem.stores.records import RecordQuery
        from graphmem.stores.vectors import VectorFilter

        self.svc = svc
        self.questions = questions
        pool = max(svc.settings.ranking.candidate_pool, TOP_K * 3)
        mems = {u: svc.list(u) for u in users}
        per_user = {u: BM25(mems[u]) for u in users}
        everyone = BM25([m for u in users for m in mems[u]])
        self.raw: dict[tuple[str, int], dict[str, Any]] = {}
        for q in questions:
            uid = user_of(q.conv)
            terms = query_terms(q.question)
            qvec = svc.embedder.encode_query(q.question)
            vec = {h.memory_id: h.score for h in svc.vectors.search(qvec, VectorFilter(uid), pool)}
            sources = {
                "service": dict(svc.records.keyword_search(RecordQuery(uid), terms, pool)),
                "user": dict(per_user[uid].top(terms, pool)),
                "global": dict(everyone.top(terms, pool, only=per_user[uid].ids)),
            }
            ids = list(dict.fromkeys([*vec, *(i for s in sources.values() for i in s)]))
            rows = svc.records.get(uid, ids)
            full_vec = dict(vec)
            for mid, v in svc.vectors.vectors([i for i in ids if i not in vec]).items():
                full_vec[mid] = float(np.dot(qvec, v))
            self.raw[(q.conv, q.index)] = {
                "vec_top": list(vec),
                "vec": full_vec,
                **sources,
                "dia": {i: str(rows[i].metadata.get("dia_id")) for i in rows},
            }

    @property
    def has_graph(self) -> bool:
        return "expand_hops" in search_options(self.svc)

    def service(self, weights: Any, hops: int | None = None) -> Callable[[Any], list[str]]:
        """svc.search with these weights; hops=None keeps the service's graph default."""
        kwargs = {"expand_hops": hops} if hops is not None and self.has_graph else {}

        def run(q: Any) -> list[str]:
            res = self.svc.search(
                user_of(q.conv), q.question, TOP_K, weights=weights, track_access=False, **kwargs
            )
            return [str(h.memory.metadata.get("dia_id")) for h in res.hits]

        return run

    def fused(self, fn: Scorer, kw_source: str) -> Callable[[Any], list[str]]:
        def run(q: Any) -> list[str]:
            c = self.raw[(q.conv, q.index)]
            kw = c[kw_source]
            # candidates: the vector top-N plus this keyword source's top-N, as in the service
            cands = [i for i in dict.fromkeys([*c["vec_top"], *kw]) if i in c["dia"]]
            ctx = {
                "vec": c["vec"],
                "kw": kw,
                "vec_pos": {i: n for n, i in enumerate(c["vec_top"])},
                "kw_pos": {i: n for n, i in enumerate(kw)},
            }
            ranked = sorted(cands, key=lambda i: (-fn(ctx, i), i))
            return [c["dia"][i] for i in ranked[:TOP_K]]

        return run


def tune(lab: Lab) -> list[dict[str, Any]]:
    qs = lab.questions
    results: list[dict[str, Any]] = []

    def add(family: str, config: Any, r: dict[str, Any]) -> None:
        results.append({"family": family, "config": config, **r})

    grid = [round(v / 10, 1) for v in range(11)]
    add("service defaults", "default", evaluate(qs, lab.service(None)))
    if lab.has_graph:
        add("service defaults", "default, expand_hops=0", evaluate(qs, lab.service(None, 0)))
    for v in grid:
        w = {"vector": v, "keyword": round(1 - v, 1)}
        add("service weights, no graph", w, evaluate(qs, lab.service(w, 0)))

    best = max(
        (x for x in results if x["family"] == "service weights, no graph"),
        key=lambda x: (x["recall@10"], x["mrr"]),
    )["config"]
    if lab.has_graph:
        defaults = dict(lab.svc.settings.ranking.weights)
        for label, base in (("the default", defaults), ("the best", best)):
            for hops in (1, 2):
                for g in (0.2, 0.4, 0.6, 0.8):
                    w = {**base, "graph": g}
                    add(
                        f"graph expansion at {label} weights",
                        {**w, "expand_hops": hops},
                        evaluate(qs, lab.service(w, hops)),
                    )
    settings = lab.svc.settings
    default_pool = settings.ranking.candidate_pool
    for pool in (60, 100, 200):
        settings.ranking.candidate_pool = pool  # read on every search
        add(
            "candidate pool, no graph",
            {"weights": best, "candidate_pool": pool},
            evaluate(qs, lab.service(best, 0)),
        )
    settings.ranking.candidate_pool = default_pool

    add(
        "check: service formula, service keyword channel",
        "vector=.75,keyword=.25",
        evaluate(qs, lab.fused(linear(0.75, 0.25), "service")),
    )
    add(
        "check: service keyword channel only",
        "keyword=1",
        evaluate(qs, lab.fused(linear(0, 1), "service")),
    )
    add(
        "check: Python BM25, everybody's stats",
        "keyword=1",
        evaluate(qs, lab.fused(linear(0, 1), "global")),
    )
    for family, fn, src in (
        ("per-user BM25, service formula", linear, "user"),
        ("everybody's BM25, service formula", linear, "global"),
        ("service keyword, min-max linear", minmax, "service"),
        ("service keyword, RRF k=60", rrf, "service"),
        ("per-user BM25, RRF k=60", rrf, "user"),
    ):
        for v in grid:
            k = round(1 - v, 1)
            add(family, {"vector": v, "keyword": k}, evaluate(qs, lab.fused(fn(v, k), src)))
    return results


def confirm(
    lab: Lab, service_weights: str, service_hops: int | None, user_vector: float | None
) -> list[dict[str, Any]]:
    qs = lab.questions
    rows: list[tuple[str, Any, Callable[[Any], list[str]]]] = [
        ("service: bm25", {"keyword": 1}, lab.service({"keyword": 1}, 0)),
        ("service: vector", {"vector": 1}, lab.service({"vector": 1}, 0)),
        ("service: defaults", "default", lab.service(None)),
        ("service: default weights, no graph", "expand_hops=0", lab.service(None, 0)),
        (
            "service: tuned",
            f"{service_weights}; expand_hops={service_hops}",
            lab.service(service_weights, service_hops),
        ),
    ]
    if user_vector is not None:
        k = round(1 - user_vector, 3)
        rows.append(
            (
                "per-user BM25 (Python), service formula",
                {"vector": user_vector, "keyword": k},
                lab.fused(linear(user_vector, k), "user"),
            )
        )
    return [{"family": f, "config": c, **evaluate(qs, run)} for f, c, run in rows]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DEFAULT_DATA)
    p.add_argument("--out", type=Path, default=None)
    p.add_argument(
        "--store",
        choices=("all", "tune"),
        default="all",
        help="conversations to ingest: 'all' (default) mirrors bench/locomo.py's store; 'tune'"
        " ingests the two tuning conversations alone",
    )
    p.add_argument("--questions", choices=("tune", "test"), default="tune")
    p.add_argument("--service-weights", default=None, help="with --questions test")
    p.add_argument(
        "--service-hops", type=int, default=None, help="with --questions test (default: service's)"
    )
    p.add_argument("--user-bm25-vector", type=float, default=None, help="with --questions test")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    if args.questions == "test":
        if args.store != "all":
            raise SystemExit("--questions test needs --store all")
        if args.service_weights is None:
            raise SystemExit("--questions test needs --service-weights")

    from graphmem import MemoryService

    turns_by_conv, questions, _ = load_locomo(
        args.data, None if args.store == "all" else list(TUNE_SPLIT), captions=False
    )
    if args.questions == "tune":
        questions = [q for q in questions if q.conv in TUNE_SPLIT]
    else:
        questions = [q for q in questions if q.conv not in TUNE_SPLIT]

    with tempfile.TemporaryDirectory(prefix="graphmem-tune-") as tmp:
        # result cache off: the same question under another setting must be recomputed
        svc = MemoryService(make_settings(data_dir=Path(tmp), search_cache_ttl_seconds=0))
        try:
            ingest(svc, turns_by_conv, not args.no_progress)
            lab = Lab(svc, [user_of(c) for c in turns_by_conv], questions)
            if args.questions == "tune":
                results = tune(lab)
            else:
                results = confirm(
                    lab, args.service_weights, args.service_hops, args.user_bm25_vector
                )
        finally:
            svc.close()

    out = args.out or RESULTS_DIR / f"tune-{datetime.now().strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    convs = sorted({q.conv for q in questions})
    doc = {
        "benchmark": "locomo-tuning",
        "command": command_line(),
        "machine": machine_info(),
        "questions_from": convs,
        "store": args.store,
        "questions": len(questions),
        "results": results,
    }
    out.write_text(json.dumps(doc, indent=1, default=str), "utf-8")

    cats = sorted({q.category for q in questions})
    lines = [
        f"Questions from {', '.join(convs)} ({len(questions)}); store holds"
        f" {'all ten conversations' if args.store == 'all' else 'the tuning conversations only'}",
        "",
        "| family | config | recall@10 | hit@5 | all@10 | MRR | "
        + " | ".join(f"R@10 {CATEGORIES[c]}" for c in cats)
        + " |",
        "|" + "---|" * (6 + len(cats)),
    ]
    for x in results:
        cfg = x["config"] if isinstance(x["config"], str) else json.dumps(x["config"])
        lines.append(
            f"| {x['family']} | `{cfg}` | {fmt(x['recall@10'])} | {fmt(x['hit@5'])}"
            f" | {fmt(x['all@10'])} | {fmt(x['mrr'])} | "
            + " | ".join(fmt(x.get(f"recall@10_c{c}")) for c in cats)
            + " |"
        )
    md = "\n".join(lines) + "\n"
    out.with_suffix(".md").write_text(md, "utf-8")
    print(md)
    print(f"results: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
