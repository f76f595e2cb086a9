"""A hop over words: the memories that share the best hit's words the query does not hold.

"What musical artists has Melanie seen?" matches "Melanie: Yeah, that pic was from a show I
went to." best; the answer's other half, "It was Matt Patterson, he is so talented! His voice
and songs were amazing.", shares no word with the question, no entity with the best hit, and
sits in another session, so neither channel nor the walk reaches it. What joins the two is the
best hit's own vocabulary. So beside the walk, the keyword channel is asked once more, with the
best hit's terms that the query does not hold (BM25 with the user's statistics, so a speaker's
name or a common word weighs little and a rare one a lot), and the few memories it finds are
lifted as the walk lifts a memory it reaches: graph score `weight` x their match over the best
hit's own, combined with their own match like any walked memory (associative.combine_graph) and
capped below the best hit (associative.capped_by_seed), with a `term` step in their path.

The lookup runs on the channel pool while the walk runs: the best hit is known before the walk
and stays first after it (the walk never lifts a memory above its seed). On by default
(`term_bridge_weight`); off without the graph walk. Chosen on the tuning halves
(docs/benchmarks.md, "A hop over the best hit's words").
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from concurrent.futures import Future

import numpy as np

from graphmem import associative, metrics, workers
from graphmem.associative import Step, TracedHit
from graphmem.context import Context
from graphmem.model import Memory
from graphmem.stores.records import RecordQuery
from graphmem.text import query_terms, tokens
from graphmem.tracing import carry, span
from graphmem.visibility import only_visible

log = logging.getLogger("graphmem.retrieval")


def similar(
    ctx: Context, rq: RecordQuery, query: str, best: Memory, limit: int
) -> dict[str, float]:
    """The `limit` memories best matching the best hit's terms the query does not hold, each
    with its BM25 over the best hit's own (at most 1); the best hit itself is left out."""
    asked = set(query_terms(query))
    terms = [t for t in dict.fromkeys(tokens(best.content)) if t not in asked]
    if not terms:
        return {}
    found = dict(ctx.records.keyword_search_reach(rq, terms, limit + 1)[0])
    own = found.pop(best.id, None) or max(found.values(), default=0.0)
    if own <= 0:
        return {}
    ranked = sorted(found.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
    return {m: min(1.0, s / own) for m, s in ranked}


def start(
    ctx: Context, rq: RecordQuery, query: str, best: Memory, limit: int
) -> Future[dict[str, float]]:
    """`similar` on the channel pool, so it runs beside the walk."""

    def run() -> dict[str, float]:
        with metrics.channel("term_bridge"), span("graphmem.search.term_bridge") as step:
            found = similar(ctx, rq, query, best, limit)
            step.set(hits=len(found))
            return found

    return workers.pool("channel").submit(carry(run))


def lift(
    ctx: Context,
    user_id: str,
    pending: Future[dict[str, float]],
    hits: list[TracedHit],
    own: Mapping[str, float],
    make: Callable[[Memory], TracedHit],
    admits: Callable[[Memory], bool],
    qvec: np.ndarray | None,
    vec_scores: dict[str, float],
    weight: float,
    graph_w: float,
) -> None:
    """After the walk: each memory `similar` found scores as a walked memory with graph score
    `weight` x its similarity, when that is more than it has (`own`: the hits' scores before
    the walk). Memories no channel found are read and scored first. Re-sorts `hits`."""
    try:
        found = pending.result()
    except Exception as e:  # noqa: BLE001 - without the hop, the search as it was
        log.warning("term bridge unavailable: %s", e)
        return
    if not found or not hits:
        return
    best = hits[0]
    known = {h.memory.id for h in hits}
    new = only_visible(ctx.records.get(user_id, [m for m in found if m not in known]))
    new = {i: m for i, m in new.items() if admits(m)}
    if new and qvec is not None:
        try:
            vec_scores.update(ctx.vectors.scores(qvec, user_id, list(new)))
        except Exception as e:  # noqa: BLE001
            log.warning("could not score term-bridged hits by vector: %s", e)
    added = [make(m) for m in new.values()]
    base = {**own, **{h.memory.id: h.score for h in added}}
    hits.extend(added)
    for h in hits[1:]:
        sim = found.get(h.memory.id)
        if sim is None:
            continue
        mine = base.get(h.memory.id, h.score)
        lifted = associative.capped_by_seed(
            mine, associative.combine_graph(mine, weight * sim, graph_w), best.score
        )
        if lifted > h.score:
            h.score = lifted
            h.scores["term_bridge"] = round(weight * sim, 6)
            h.path = [Step(best.memory.id, "term", h.memory.id, round(sim, 6))]
            if h.explain is not None:
                h.explain["term_bridge"] = {
                    "from": best.memory.id,
                    "similarity": round(sim, 4),
                    "why": "shares the best hit's words that the query does not hold",
                }
    hits.sort(key=lambda h: (-h.score, h.memory.id))
