"""Contextual turn representations, measured offline on LoCoMo's tuning split (issue 32).

A dialogue turn is often meaningful only with the turn before it ("Yes! Last weekend." answers
"Did you go camping?"). This script asks whether giving each memory a representation built from
its neighbours in the same session of the same user raises evidence recall, without writing a
store per variant:

1. the tuning split (conv-26, conv-30) is written once through the service on the agent path,
   exactly as `bench/locomo.py --conversations tune --seed-ids 12345` writes it (one write per
   turn; kept in --data-dir and reused when it already holds every turn);
2. every memory's stored vector is read back, and its predecessor and successor in its session
   (same user, same session id, by creation time) are found;
3. each variant replaces the vector channel (`ctx.vectors.search` / `.scores`) and/or the
   keyword channel (`graphmem.usecases.search.start_keyword`) of the running service by a
   re-scoring over those vectors and BM25 scores, and every tuning question is searched again
   through the whole pipeline (fusion, graph walk, facet fan-out): modes hybrid and
   hybrid-nograph, scored as bench/locomo.py scores them (recall@5 / @10, multi-hop recall@10).

Variant keys (NAME:key=value,...):
  vprev=B  vector of a turn: normalize(own + B * predecessor's)      (0: own vector)
  vnext=B  ... + B * successor's (the reply lends its vector to the question it answers)
  vmode=replace|max   replace the cosine by the contextual one, or keep
                      max(own cosine, vw * contextual cosine)        (default replace)
  vw=W     the contextual cosine's factor under vmode=max           (default 1)
  vmode=lin  (c + B * c_prev) / sqrt(1 + B^2 + 2 B r), r = vr (default 1): the neighbours'
           cosines alone, without the two vectors' own cosine (what a search can compute
           from the index's scores); vprev only
  vpool=1  the vector pool is the own-cosine pool plus each of its hits' successors (what a
           search can gather), not the best contextual cosines over every memory
  kprev=B  BM25 of a turn += B * its predecessor's BM25 (the predecessor's terms at weight B)
  knext=B  BM25 of a turn += B * its successor's BM25
  kspk=1   kprev/knext only between two turns that both open with a speaker ("Name: ...",
           graphmem.extractors.subjects); kspk=2: two different speakers
  kask=1   kprev only from a predecessor that asks (a question mark in it)
  kpool=1  only the keyword channel's own pool is known (a turn outside it scores 0), and
           the pool grows by its hits' successors (what a search can compute)
  fanout=0 the facet fan-out keeps the plain cosine (default: it sees the contextual one too)
  wrap=1   replace the channels even with every weight 0
`base` (no keys, the store's own channels) must reproduce bench/locomo.py's hybrid /
hybrid-nograph tune figures, and `wrap:wrap=1` (this script's re-scoring with every weight 0)
must equal `base`.

What it found (docs/benchmarks.md, "A turn read with the turn before it"): almost every
variant raised tune recall@10 from 0.780 (to 0.786-0.814); the keyword channel's hits lending a
quarter of their BM25 to the next turn did best (0.810, multi-hop 0.469 -> 0.515), but built
into the search it left the test split's hybrid recall@10 at 0.719 and lowered its multi-hop
0.460 -> 0.445.

Usage:
  python bench/context_offline.py --data PATH/locomo10.json --data-dir /tmp/ctx-store \
      [--variant NAME:vprev=0.3 ...] [--grid] [--dump /tmp/ctx-dump.npz]
Nothing is printed per question; the table goes to stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import make_settings  # noqa: E402
from locomo import (  # noqa: E402
    DEFAULT_DATA,
    TUNE_SPLIT,
    Question,
    ingest,
    load_locomo,
    score,
    seed_ids,
    stored,
    user_of,
)

MODES = {"hybrid": {}, "hybrid-nograph": {"expand_hops": 0}}
TOP_K = 20
ALL = 1_000_000  # "every candidate": larger than any user's memories here


@dataclass(frozen=True)
class Variant:
    name: str
    vprev: float = 0.0
    vnext: float = 0.0
    vmode: str = "replace"
    vw: float = 1.0
    kprev: float = 0.0
    knext: float = 0.0
    fanout: bool = True
    vr: float | None = None  # vmode=lin: the cosine of a turn to its neighbour, assumed
    kspk: int = 0  # 1: lend only between turns that both have a speaker; 2: two speakers
    kask: bool = False  # lend only from a predecessor that asks (holds a question mark)
    kpool: bool = False  # the keyword channel's own pool and its hits' successors only
    vpool: bool = False  # the pool: the own-cosine pool and its successors, not every memory
    wrap: bool = False  # replace the channels even with every weight 0 (the harness's check)

    @property
    def vector(self) -> bool:
        return bool(self.vprev or self.vnext or self.wrap)

    @property
    def keyword(self) -> bool:
        return bool(self.kprev or self.knext or self.wrap)

    @classmethod
    def parse(cls, spec: str) -> Variant:
        name, _, rest = spec.partition(":")
        kw: dict[str, Any] = {}
        for part in filter(None, (p.strip() for p in rest.split(","))):
            key, _, val = part.partition("=")
            if key == "vmode":
                kw[key] = val
            elif key in ("fanout", "wrap", "vpool", "kpool", "kask"):
                kw[key] = val not in ("0", "false", "no")
            elif key == "kspk":
                kw[key] = int(val)
            elif key in ("vprev", "vnext", "vw", "kprev", "knext", "vr"):
                kw[key] = float(val)
            else:
                raise SystemExit(f"--variant {spec!r}: unknown key {key!r}")
        return cls(name, **kw)


class Turns:
    """Every tuning memory: its unit vector, its predecessor and successor in its session."""

    def __init__(self, svc: Any, users: list[str]) -> None:
        from graphmem.extractors.subjects import subject_of

        ctx = svc.context
        self.ids: list[str] = []
        self.user: dict[str, str] = {}
        self.dia: dict[str, str] = {}
        self.asks: set[str] = set()
        self.speaker: dict[str, str | None] = {}
        self.prev: dict[str, str] = {}
        self.next: dict[str, str] = {}
        for user in users:
            mems = []
            cursor = 0
            while page := ctx.records.scan(cursor, 500, user):
                cursor = page[-1][0]
                mems += [m for _, m in page]
            by_session: dict[str | None, list[Any]] = {}
            for m in mems:
                self.ids.append(m.id)
                self.user[m.id] = user
                self.dia[m.id] = str(m.metadata.get("dia_id"))
                self.speaker[m.id] = subject_of(m.content)
                if "?" in m.content or "\uff1f" in m.content:
                    self.asks.add(m.id)
                by_session.setdefault(m.session_id, []).append(m)
            for sid, ms in by_session.items():
                if sid is None:
                    continue
                ms.sort(key=lambda m: (m.created_at, m.id))
                for a, b in zip(ms, ms[1:], strict=False):
                    self.prev[b.id] = a.id
                    self.next[a.id] = b.id
        vecs = ctx.vectors.vectors(self.ids)
        self.index = {i: n for n, i in enumerate(self.ids)}
        mat = np.stack([vecs[i] for i in self.ids]).astype(np.float64)
        self.unit = mat / np.linalg.norm(mat, axis=1, keepdims=True)

    def talk(self, a: str, b: str, level: int) -> bool:
        """Are a and b turns of a dialogue (level 1: both have a speaker; 2: two speakers)?"""
        if level <= 0:
            return True
        sa, sb = self.speaker.get(a), self.speaker.get(b)
        return sa is not None and sb is not None and (level == 1 or sa != sb)

    def contextual(self, v: Variant) -> np.ndarray:
        """Every memory's contextual unit vector under `v`."""
        out = self.unit.copy()
        for n, mid in enumerate(self.ids):
            if v.vprev and mid in self.prev:
                out[n] += v.vprev * self.unit[self.index[self.prev[mid]]]
            if v.vnext and mid in self.next:
                out[n] += v.vnext * self.unit[self.index[self.next[mid]]]
        return out / np.linalg.norm(out, axis=1, keepdims=True)


class ContextVectors:
    """The vector store, its cosines replaced by a variant's (the store still filters)."""

    def __init__(self, inner: Any, turns: Turns, v: Variant) -> None:
        self.inner, self.turns, self.v = inner, turns, v
        self.ctx = turns.contextual(v)
        self.plain = False  # True while the fan-out runs with fanout=0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def _rescore(self, qvec: np.ndarray, own: dict[str, float]) -> dict[str, float]:
        if self.plain:
            return own
        q = np.asarray(qvec, dtype=np.float64)
        q = q / np.linalg.norm(q)
        t, v = self.turns, self.v
        out = {}
        for mid, c in own.items():
            n = t.index.get(mid)
            if n is None:
                out[mid] = c
                continue
            if v.vmode == "lin":
                p = t.prev.get(mid)
                if p is None:
                    out[mid] = c
                    continue
                cp = float(t.unit[t.index[p]] @ q)
                r = 1.0 if v.vr is None else v.vr
                out[mid] = (c + v.vprev * cp) / np.sqrt(1 + v.vprev**2 + 2 * v.vprev * r)
                continue
            cc = float(self.ctx[n] @ q)
            out[mid] = max(c, v.vw * cc) if v.vmode == "max" else cc
        return out

    def search(self, vector: np.ndarray, flt: Any, limit: int) -> list[Any]:
        from graphmem.stores.vectors import VectorHit

        own = {h.memory_id: h.score for h in self.inner.search(vector, flt, ALL)}
        if self.v.vpool and not self.plain:
            top = sorted(own.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
            keep = {m for m, _ in top} | {
                self.turns.next[m] for m, _ in top if m in self.turns.next
            }
            scored = sorted(
                ((m, s) for m, s in self._rescore(vector, own).items() if m in keep),
                key=lambda kv: (-kv[1], kv[0]),
            )
            return [VectorHit(m, s) for m, s in scored]
        scored = sorted(self._rescore(vector, own).items(), key=lambda kv: (-kv[1], kv[0]))
        return [VectorHit(m, s) for m, s in scored[:limit]]

    def scores(self, vector: np.ndarray, user_id: str, memory_ids: list[str]) -> dict[str, float]:
        return self._rescore(vector, self.inner.scores(vector, user_id, memory_ids))


def install(svc: Any, turns: Turns, v: Variant) -> Any:
    """Patch the running service's channels for `v`; returns the undo."""
    import graphmem.usecases.fanout as fanout_mod
    import graphmem.usecases.search as search_mod
    from graphmem.usecases.keyword_channel import KeywordHits, keyword_hits

    ctx = svc.context
    inner_vectors = ctx.vectors
    orig_start = search_mod.start_keyword
    orig_fan = fanout_mod.fan_out
    if v.vector:
        wrapped = ContextVectors(inner_vectors, turns, v)
        ctx.vectors = wrapped
        if not v.fanout:

            def plain_fan(*a: Any, **k: Any) -> Any:
                wrapped.plain = True
                try:
                    return orig_fan(*a, **k)
                finally:
                    wrapped.plain = False

            fanout_mod.fan_out = plain_fan
    if v.keyword:

        def start(c: Any, rq: Any, query: str, pool: int, *, across: bool) -> Future:
            found = keyword_hits(c, rq, query, pool if v.kpool else ALL, across=across)
            kw = found.scores
            new: dict[str, float] = {}
            within = (
                set(kw) | {turns.next[m] for m in kw if m in turns.next} if v.kpool else turns.user
            )
            for mid in within:
                if turns.user[mid] != rq.user_id:
                    continue
                s = kw.get(mid, 0.0)
                p = turns.prev.get(mid)
                if (
                    v.kprev
                    and p is not None
                    and (not v.kask or p in turns.asks)
                    and turns.talk(p, mid, v.kspk)
                ):
                    s += v.kprev * kw.get(p, 0.0)
                if v.knext and mid in turns.next and turns.talk(mid, turns.next[mid], v.kspk):
                    s += v.knext * kw.get(turns.next[mid], 0.0)
                if s > 0:
                    new[mid] = s
            best = sorted(new.items(), key=lambda kv: (-kv[1], kv[0]))[: ALL if v.kpool else pool]
            fut: Future = Future()
            fut.set_result(KeywordHits(dict(best), found.reach, found.across, found.across_terms))
            return fut

        search_mod.start_keyword = start

    def undo() -> None:
        ctx.vectors = inner_vectors
        search_mod.start_keyword = orig_start
        fanout_mod.fan_out = orig_fan

    return undo


def evaluate(svc: Any, questions: list[Question]) -> dict[str, Any]:
    """Every question once per mode; recall@5 / @10 overall and multi-hop recall@10."""
    rows: dict[str, list[dict[str, float]]] = {m: [] for m in MODES}
    multi: dict[str, list[float]] = {m: [] for m in MODES}
    retrieved: dict[str, list[list[str]]] = {m: [] for m in MODES}
    for q in questions:
        for mode, kwargs in MODES.items():
            res = svc.search(user_of(q.conv), q.question, TOP_K, track_access=False, **kwargs)
            dia = [str(h.memory.metadata.get("dia_id")) for h in res.hits]
            s = score(dia, q.evidence)
            rows[mode].append(s)
            retrieved[mode].append(dia)
            if q.category == 1:
                multi[mode].append(s["recall@10"])
    out: dict[str, Any] = {}
    for mode in MODES:
        n = len(rows[mode])
        out[mode] = {
            "r5": sum(r["recall@5"] for r in rows[mode]) / n,
            "r10": sum(r["recall@10"] for r in rows[mode]) / n,
            "mh10": sum(multi[mode]) / max(1, len(multi[mode])),
            "per_q": [r["recall@10"] for r in rows[mode]],
        }
    return out


GRID = [
    "base",
    "wrap:wrap=1",
    *(f"vprev{b}:vprev={b}" for b in (0.1, 0.2, 0.3, 0.5, 0.7)),
    *(f"vprev{b}max{w}:vprev={b},vmode=max,vw={w}" for b in (0.3, 0.5, 1.0) for w in (0.9, 1.0)),
    *(f"vnext{b}:vnext={b}" for b in (0.1, 0.2, 0.3, 0.5)),
    *(f"vnext{b}max:vnext={b},vmode=max" for b in (0.3, 0.5)),
    "vboth0.2:vprev=0.2,vnext=0.2",
    "vboth0.3:vprev=0.3,vnext=0.3",
    *(f"kprev{b}:kprev={b}" for b in (0.1, 0.2, 0.3, 0.5)),
    *(f"knext{b}:knext={b}" for b in (0.1, 0.2, 0.3, 0.5)),
    "kboth0.2:kprev=0.2,knext=0.2",
    *(f"v{b}k{c}:vprev={b},kprev={c}" for b in (0.2, 0.3, 0.5) for c in (0.2, 0.3, 0.5)),
]


def dump(path: Path, svc: Any, turns: Turns, questions: list[Question]) -> None:
    """The per-turn vectors with their neighbours, and each question's channel candidates
    (the store's own cosine over every memory, the keyword channel's BM25), for re-scoring
    elsewhere."""
    from graphmem.domain.visibility import readable_statuses
    from graphmem.stores.records import RecordQuery
    from graphmem.usecases.keyword_channel import keyword_hits

    ctx = svc.context
    statuses = readable_statuses(("active",))
    qs = []
    for q in questions:
        user = user_of(q.conv)
        qvec = ctx.embedder.encode_query(q.question, user)
        kw = keyword_hits(ctx, RecordQuery(user, None, statuses, None), q.question, ALL)
        qs.append(
            {
                "conv": q.conv,
                "category": q.category,
                "question": q.question,
                "evidence": q.evidence,
                "qvec": np.asarray(qvec, dtype=np.float32).tolist(),
                "bm25": kw.scores,
                "reach": kw.reach,
            }
        )
    np.savez_compressed(
        path,
        ids=np.array(turns.ids),
        dia=np.array([turns.dia[i] for i in turns.ids]),
        user=np.array([turns.user[i] for i in turns.ids]),
        prev=np.array([turns.index.get(turns.prev.get(i, ""), -1) for i in turns.ids]),
        vectors=turns.unit.astype(np.float32),
    )
    path.with_suffix(".questions.json").write_text(json.dumps(qs), "utf-8")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DEFAULT_DATA)
    p.add_argument("--data-dir", type=Path, required=True, help="the kept tuning store")
    p.add_argument("--seed-ids", type=int, default=12345)
    p.add_argument("--variant", action="append", default=[], metavar="NAME:SPEC")
    p.add_argument("--grid", action="store_true", help="the built-in grid of variants")
    p.add_argument("--dump", type=Path, default=None, help="write vectors and candidates here")
    p.add_argument("--out", type=Path, default=None, help="JSON of every variant's figures")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    args = p.parse_args(argv)

    from _common import parse_sets

    from graphmem import MemoryService

    seed_ids(args.seed_ids)
    turns_by_conv, questions, _ = load_locomo(args.data, list(TUNE_SPLIT), False)
    settings = make_settings(
        data_dir=args.data_dir,
        search_cache_ttl_seconds=0,
        query_cache_size=0,
        # the product's own lending (graphmem.usecases.turn_context) off: variants re-score
        # main's channels; --set keyword_context_share=0.25 measures the product with them
        **{"keyword_context_share": 0, **parse_sets(args.set)},
    )
    svc = MemoryService(settings)
    try:
        if not stored(svc, turns_by_conv):
            t0 = time.perf_counter()
            ingest(svc, turns_by_conv, progress=False, single=True)
            print(f"ingested in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
        turns = Turns(svc, [user_of(c) for c in turns_by_conv])
        if args.dump:
            dump(args.dump, svc, turns, questions)
        specs = (GRID if args.grid else ["base"]) + args.variant
        results: dict[str, Any] = {}
        print("| variant | hybrid r@5 / r@10 / multi-hop r@10 | hybrid-nograph |")
        print("|---|---|---|")
        for spec in specs:
            v = Variant.parse(spec)
            undo = install(svc, turns, v)
            try:
                res = evaluate(svc, questions)
            finally:
                undo()
            results[v.name] = res
            cells = [
                f"{res[m]['r5']:.3f} / {res[m]['r10']:.3f} / {res[m]['mh10']:.3f}" for m in MODES
            ]
            print(f"| {v.name} | {' | '.join(cells)} |", flush=True)
        if args.out:
            args.out.write_text(json.dumps(results), "utf-8")
    finally:
        svc.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
