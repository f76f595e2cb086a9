"""Fit the default search's fusion weights (graphmem/domain/fusion_weights.json) on the tuning
splits.

Tuning splits only: LoCoMo conv-26 and conv-30 (agent path, one write per turn, as
bench/locomo.py --ingest single) and the Chinese set's tune half (bench/zh_recall.py --split
tune). The test halves are never read here.

Per embedder (--embedders), the script writes every tuning memory through the service, then
for every tuning question gathers the candidates exactly as the search does (the vector
channel's pool, the keyword channel's pool, the cosine of keyword-only candidates) with their
raw scores, and labels them with the question's evidence. Questions are grouped by the
language of the query (graphmem.domain.fusion.language: a LoCoMo question and an English question
about a Chinese memory are 'en'; a Chinese question is 'zh').

Per (embedder, language), for each keyword calibration on a small grid (scale x length power,
graphmem.domain.fusion.FusionModel.keyword), the feature weights are chosen among
- a logistic regression with non-negative weights over the candidates' features, and
- every point of the simplex over the features in steps of 0.1 (which holds each channel
  alone, so the choice is never worse than the best single channel on the tuning split),
by the tuning objective: mean recall@5 + recall@10 + hit@1 of the fused ranking (without the
graph walk, which runs on top of it). The winner, the objective of each channel alone and of
the previous fusion (default weights, keyword divided by the best hit) are written to the file
and printed.

Usage: python bench/fit_fusion.py [--embedders all-MiniLM-L6-v2,multilingual-e5-small]
       [--data PATH/locomo10.json] [--out graphmem/domain/fusion_weights.json]
Takes a few minutes on two cores (most of it writing LoCoMo's tuning turns per embedder).

`--add-across SHARE --embedders NAME` fits nothing: it gives the glossary's features (`across`,
`across_rank`, graphmem.domain.glossary) SHARE of NAME's Chinese model in the file, half each, and
keeps the other weights' ratios, so Chinese memories rank among themselves as before and only
English memories a Chinese question translates to come in. A free fit of all seven features
(the default run) found the English answers as well on the tune half but put a Chinese
paraphrase's answer first less often; SHARE 0.45 at keyword scale 4 was chosen over 0.2, 0.3
and 0.6 on the tune half of bench/zh_recall.py, with and without 6 dialogue turns, graph on.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REPO_ROOT, command_line, make_settings  # noqa: E402
from locomo import DEFAULT_DATA, TUNE_SPLIT, load_locomo  # noqa: E402
from locomo import ingest as locomo_ingest  # noqa: E402
from locomo import user_of as locomo_user  # noqa: E402
from zh_recall import ingest as zh_ingest  # noqa: E402
from zh_recall import load_scenarios  # noqa: E402
from zh_recall import user_of as zh_user  # noqa: E402

from graphmem.domain import fusion, ranking  # noqa: E402

DEFAULT_OUT = REPO_ROOT / "graphmem" / "domain" / fusion.WEIGHTS_FILE
DEFAULT_EMBEDDERS = "all-MiniLM-L6-v2,multilingual-e5-small"
SCALES = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)
POWERS = (0.5, 0.75, 1.0)
STEP = 10  # simplex grid: weights in multiples of 1/STEP
POOL = 60  # what the search pools per channel for a top-20 (max(candidate_pool, 3 * top_k))


@dataclass
class Query:
    """One tuning question: its candidates' raw channels and which of them are evidence."""

    source: str  # locomo or zh
    text: str
    language: str
    terms: int
    ids: list[str]
    cosine: np.ndarray
    bm25: np.ndarray
    relevant: np.ndarray  # bool per candidate
    wanted: int  # evidence count (some may not be among the candidates)
    across: np.ndarray  # BM25 on the English words of a Chinese question (graphmem.domain.glossary)
    across_terms: int


# ------------------------------------------------------------------------------ gathering
def candidates(
    svc: Any, user: str, text: str, pool: int
) -> tuple[list[str], dict, dict, tuple[dict, int]]:
    """The search's candidates for `text` with their raw cosine and BM25 (and BM25 on the
    question's English glossary words), as the search gathers them."""
    from graphmem.domain.visibility import readable_statuses
    from graphmem.stores.records import RecordQuery
    from graphmem.stores.vectors import VectorFilter
    from graphmem.usecases.keyword_channel import keyword_hits

    ctx = svc.context
    statuses = readable_statuses(("active",))
    found = keyword_hits(ctx, RecordQuery(user, None, statuses, None), text, pool)
    kw = found.scores
    qvec = ctx.embedder.encode_query(text, user)
    vec = {
        h.memory_id: h.score
        for h in ctx.vectors.search(qvec, VectorFilter(user, None, statuses, None), pool)
    }
    missing = [m for m in [*kw, *found.across] if m not in vec]
    if missing:
        vec.update(ctx.vectors.scores(qvec, user, missing))
    ids = sorted(set(vec) | set(kw) | set(found.across))
    return ids, vec, kw, (found.across, found.across_terms)


def query_of(
    source: str,
    text: str,
    ids: list[str],
    vec: dict,
    kw: dict,
    relevant: set[str],
    wanted: int,
    across: tuple[dict, int] = ({}, 0),
) -> Query:
    from graphmem.domain.text import query_terms

    return Query(
        source,
        text,
        fusion.language(text),
        len(query_terms(text)),
        ids,
        np.array([vec.get(i, 0.0) for i in ids]),
        np.array([kw.get(i, 0.0) for i in ids]),
        np.array([i in relevant for i in ids]),
        wanted,
        np.array([across[0].get(i, 0.0) for i in ids]),
        across[1],
    )


def gather_locomo(svc: Any, data: Path) -> list[Query]:
    turns, questions, _ = load_locomo(data, list(TUNE_SPLIT), False)
    locomo_ingest(svc, turns, progress=False, single=True)
    out = []
    for q in questions:
        user = locomo_user(q.conv)
        ids, vec, kw, across = candidates(svc, user, q.question, POOL)
        rows = svc.records.get(user, ids)
        relevant = {i for i in ids if i in rows and rows[i].metadata.get("dia_id") in q.evidence}
        wanted = len(set(q.evidence))
        out.append(query_of("locomo", q.question, ids, vec, kw, relevant, wanted, across))
    return out


def gather_zh(svc: Any) -> list[Query]:
    out = []
    for sc in load_scenarios():
        by_id = zh_ingest(svc, sc)
        user = zh_user(sc)
        for q in sc["questions"]:
            if q["split"] != "tune":
                continue
            ids, vec, kw, across = candidates(svc, user, q["question"], POOL)
            answers = set(q["answers"])
            relevant = {i for i in ids if answers & set(by_id.get(i, []))}
            out.append(query_of("zh", q["question"], ids, vec, kw, relevant, 1, across))
    return out


# ------------------------------------------------------------------------------ scoring
def feature_matrix(q: Query, model: fusion.FusionModel, floor: float) -> np.ndarray:
    """Candidates x FEATURES, computed by graphmem.domain.fusion exactly as the search computes
    them."""
    fuse = fusion.QueryFusion(model, q.terms, floor, q.cosine.tolist(), q.bm25.tolist())
    fuse.across({str(i): float(x) for i, x in enumerate(q.across)}, q.across_terms)
    rows = []
    for c, b, x in zip(q.cosine, q.bm25, q.across, strict=True):
        _, why = fuse.match(float(c), float(b), float(x))
        rows.append([why["features"][f] for f in fusion.FEATURES])
    return np.array(rows).reshape(-1, len(fusion.FEATURES))


def objective(qs: list[Query], scores: list[np.ndarray]) -> np.ndarray:
    """Mean recall@5 + recall@10 + hit@1 per weight column (scores: candidates x columns)."""
    total: np.ndarray | float = 0.0
    for q, s in zip(qs, scores, strict=True):
        if s.ndim == 1:
            s = s[:, None]
        # ties broken by id (the candidates are sorted by id), as the search breaks them
        order = np.argsort(-s, axis=0, kind="stable")
        rel = q.relevant[order]  # ranks x columns
        wanted = max(1, q.wanted)
        total = total + rel[:5].sum(0) / wanted + rel[:10].sum(0) / wanted + rel[:1].sum(0)
    return np.asarray(total) / max(1, len(qs))


def simplex(n: int, step: int) -> np.ndarray:
    pts = [c for c in itertools.product(range(step + 1), repeat=n) if sum(c) == step]
    return np.array(pts, dtype=float).T / step  # n x points


def logistic(xs: list[np.ndarray], ys: list[np.ndarray], iters: int = 500) -> np.ndarray:
    """Non-negative weights of a logistic regression, each query's positives and negatives
    weighted to equal mass (a question with 60 candidates counts as much as one with 10)."""
    x = np.vstack(xs)
    y = np.concatenate(ys).astype(float)
    w = np.concatenate(
        [np.where(yy, 0.5 / max(1, yy.sum()), 0.5 / max(1, (~yy).sum())) for yy in ys]
    )
    beta = np.zeros(x.shape[1])
    bias = 0.0
    lr = 2.0
    for _ in range(iters):
        p = 1 / (1 + np.exp(-(x @ beta + bias)))
        g = (p - y) * w
        beta = np.maximum(0.0, beta - lr * (x.T @ g) / len(ys))
        bias -= lr * g.sum() / len(ys)
    return beta


def fit(qs: list[Query], floor: float) -> tuple[fusion.FusionModel, dict[str, float]]:
    grid = simplex(len(fusion.FEATURES), STEP)
    best: tuple[float, fusion.FusionModel] | None = None
    for scale, power in itertools.product(SCALES, POWERS):
        probe = fusion.FusionModel(fusion.BUILTIN.weights, scale, power)
        xs = [feature_matrix(q, probe, floor) for q in qs]
        beta = logistic(xs, [q.relevant for q in qs])
        cols = np.hstack([grid, (beta / beta.sum())[:, None] if beta.sum() > 0 else grid[:, :1]])
        obj = objective(qs, [x @ cols for x in xs])
        j = int(np.argmax(obj))
        if best is None or obj[j] > best[0] + 1e-9:
            w = {f: round(float(cols[i, j]), 4) for i, f in enumerate(fusion.FEATURES)}
            how = "logistic" if j == cols.shape[1] - 1 else "grid"
            best = (float(obj[j]), fusion.FusionModel(w, scale, power, name=how))
    assert best is not None
    model = best[1]
    return model, baselines(qs, model, floor)


def baselines(qs: list[Query], model: fusion.FusionModel, floor: float) -> dict[str, float]:
    """Tuning objective of the fitted fusion, each channel alone and the previous fusion."""

    def run(f: Callable[[Query], np.ndarray]) -> float:
        return round(float(objective(qs, [f(q) for q in qs])[0]), 4)

    def previous(q: Query) -> np.ndarray:
        top = q.bm25.max(initial=0.0)
        v = np.array([ranking.above_floor(float(c), floor) for c in q.cosine])
        return 0.6 * v + 0.2 * (q.bm25 / top if top > 0 else 0 * v)

    def fitted(q: Query) -> np.ndarray:
        x = feature_matrix(q, model, floor)
        return x @ np.array([model.weights[f] for f in fusion.FEATURES])

    return {
        "fitted": run(fitted),
        "vector": run(lambda q: q.cosine),
        "keyword": run(lambda q: q.bm25),
        "previous_default": run(previous),
        "questions": len(qs),
    }


def fit_embedder(name: str, data: Path) -> dict[str, Any]:
    from graphmem import MemoryService

    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="graphmem-fit-fusion-") as tmp:
        settings = make_settings(
            data_dir=Path(tmp), embedding_model=name, search_cache_ttl_seconds=0
        )
        svc = MemoryService(settings)
        try:
            qs = gather_locomo(svc, data) + gather_zh(svc)
            floor = svc.context.embedder.score_floor
            model_name = svc.context.embedder.model_name
        finally:
            svc.close()
    out: dict[str, Any] = {}
    for lang in ("en", "zh"):
        group = [q for q in qs if q.language == lang]
        if not group:
            continue
        model, metrics = fit(group, floor)
        out[lang] = {
            "name": model.name,
            "weights": dict(model.weights),
            "keyword_scale": model.keyword_scale,
            "keyword_length_power": model.keyword_length_power,
            "metrics": metrics,
        }
        print(f"{model_name} {lang}: {json.dumps(out[lang])}", file=sys.stderr)
    print(f"{model_name}: {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return {fusion.embedder_key(model_name): out}


def add_across(args: argparse.Namespace) -> int:
    """The glossary's features given `args.add_across` of each named embedder's zh model."""
    share = args.add_across
    if not 0 < share < 1:
        sys.exit("fit_fusion: --add-across takes a share between 0 and 1")
    doc = json.loads(args.out.read_text(encoding="utf-8"))
    for name in [e.strip() for e in args.embedders.split(",") if e.strip()]:
        entry = doc["models"][fusion.embedder_key(name)]["zh"]
        kept = {f: w for f, w in entry["weights"].items() if f not in ("across", "across_rank")}
        total = sum(kept.values()) or 1.0
        weights = {f: round((1 - share) * w / total, 4) for f, w in kept.items()}
        weights.update(across=round(share / 2, 4), across_rank=round(share / 2, 4))
        entry.update(weights=weights, across_scale=args.across_scale)
        entry["name"] = f"{entry.get('name', 'fitted')}+across"
        print(f"{name} zh: {json.dumps(entry['weights'])}", file=sys.stderr)
    doc["features"] = list(fusion.FEATURES)
    doc["across"] = command_line()
    args.out.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--embedders", default=DEFAULT_EMBEDDERS)
    p.add_argument("--data", type=Path, default=DEFAULT_DATA, help="locomo10.json")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT)
    p.add_argument("--add-across", type=float, default=None, metavar="SHARE")
    p.add_argument("--across-scale", type=float, default=4.0, metavar="SCALE")
    args = p.parse_args(argv)
    if args.add_across is not None:
        return add_across(args)
    models: dict[str, Any] = {}
    for name in [e.strip() for e in args.embedders.split(",") if e.strip()]:
        models.update(fit_embedder(name, args.data))
    doc = {
        "fitted_on": "tuning splits only: LoCoMo conv-26 + conv-30 (agent path) and"
        " bench/zh_recall tune half",
        "objective": "mean recall@5 + recall@10 + hit@1 of the fused ranking, graph walk off",
        "features": list(fusion.FEATURES),
        "command": command_line(),
        "fitted_at": datetime.now(UTC).strftime("%Y-%m-%d"),
        "models": models,
    }
    args.out.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
