"""Facet fan-out: a list question reaches the named person's memories of the kind it asks for.

The walk (graphmem.domain.associative) starts at the query's best matches and follows edges, which
is what a single-fact question needs. A list question ("What activities does Melanie partake
in?", "她有哪些爱好？") is answered by many memories, usually in different sessions, and most
of them are neither similar to the question nor linked to its best matches: on LoCoMo's tune
split, 30 of the 65 multi-hop evidence turns the search missed were more than three hops from
every seed. Widening the walk for list questions only (20 seeds, seed sharpness 0-2, a
candidate pool of 100) did not reach them either: multi-hop recall@10 moved by -2.5 to +1.2
points, within a question or two (docs/benchmarks.md).

What joins "I'm off to go swimming with the kids" to that question is the category, so the
fan-out goes through it, as through a (person, facet) node computed at search time from the
stores every graphmem already has:

1. graphmem.domain.facets names the facets a list question asks for (none: no fan-out);
2. the keyword channel finds the user's memories that hold a member word of those facets;
3. of those, the memories of the person the question names (the speaker of a dialogue turn,
   graphmem.extractors.subjects) when it names one of the hits' speakers;
4. they are ranked by the query: its vector similarity above the model's floor (0.7) and the
   member words' BM25 over the best one's (0.3), the weights with which it was measured;
5. the best `graph_facet_fanout` of them not already among the query's best FANOUT_AFTER hits
   are placed right after those, in that order, each with a one-step path from the named
   person's best direct hit: type "facet", strength its rank score.

Only where the graph is on (hops > 0 and a graph weight above 0), like the walk it stands in
for; a search with expand_hops=0 is the hybrid search alone.

What it gains, and why not more: on the tune split the members of the facet a list question
names hold 17 of the 26 evidence turns the search left out of its top 10, so the category is
the right road; but ranked by the query they come 4th to 68th among 10 to 105 members (a
question's wording says little about which of Melanie's many camping turns is its evidence),
so five picks find one or two more answers: multi-hop recall@10 0.457 -> 0.479, all questions
0.793 -> 0.797. Ranking members by the rarity of the member word they hold, or one per member
word, did not do better (0.473-0.475).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphmem.domain import ranking
from graphmem.domain.associative import SEED_MARGIN, Step, TracedHit
from graphmem.domain.facets import Facet, facets_asked
from graphmem.domain.model import Memory
from graphmem.domain.visibility import only_visible
from graphmem.extractors.subjects import named_in, subject_of
from graphmem.stores.records import RecordQuery
from graphmem.usecases.ports import VectorPorts

log = logging.getLogger("graphmem.retrieval")

FANOUT_AFTER = 5
"""The query's own best matches keep the first places: a list question's best direct match is
usually one of its answers, and the facet's members rank by a weaker signal."""
POOL = 200
"""Member-word matches read per fan-out (the keyword channel's best, by BM25)."""
VECTOR_SHARE = 0.7
"""A member's rank score: this much its query similarity, the rest its member-word BM25."""


@dataclass(frozen=True)
class Pick:
    memory: Memory
    relevance: float  # 0-1: how well it matches the query among the facet's members
    anchor: str  # the named person's best direct hit, where the step starts
    facets: tuple[str, ...]
    person: str | None


def fan_out(
    ctx: VectorPorts,
    user_id: str,
    query: str,
    hits: Sequence[TracedHit],
    rq: RecordQuery,
    qvec: np.ndarray | None,
    admits: Callable[[Memory], bool],
    limit: int,
) -> list[Pick]:
    """The facet members to place after the query's best hits, best first ([] when the query
    is not a list question about a known facet, or nothing matches)."""
    facets = facets_asked(query)
    if not facets or limit <= 0 or not hits:
        return []
    speakers = {s for h in hits if (s := subject_of(h.memory.content)) is not None}
    named = {s for s in speakers if named_in(query, s)}
    terms = list(dict.fromkeys(t for f in facets for t in f.terms))
    found, _ = ctx.records.keyword_search_reach(rq, terms, POOL)  # traced: graphmem.search.facets
    kw = dict(found)
    top = {h.memory.id for h in hits[:FANOUT_AFTER]}
    rows = only_visible(ctx.records.get(user_id, [m for m in kw if m not in top]))
    members = [
        m for m in rows.values() if admits(m) and (not named or subject_of(m.content) in named)
    ]
    if not members:
        return []
    vec: dict[str, float] = {}
    if qvec is not None:
        try:
            vec = ctx.vectors.scores(qvec, user_id, [m.id for m in members])
        except Exception as e:  # noqa: BLE001 - rank by the member words alone
            log.warning("could not score facet members by vector: %s", e)
    floor = ctx.embedder.score_floor
    if ctx.settings.vectors.score_floor is not None:
        floor = ctx.settings.vectors.score_floor
    kw_max = max((kw[m.id] for m in members), default=0.0) or 1.0

    def rank(m: Memory) -> float:
        v = ranking.above_floor(vec.get(m.id, 0.0), floor)
        return VECTOR_SHARE * v + (1 - VECTOR_SHARE) * kw[m.id] / kw_max

    ranked = sorted(((rank(m), m) for m in members), key=lambda rm: (-rm[0], rm[1].id))
    anchor = next(
        (h.memory.id for h in hits if not named or subject_of(h.memory.content) in named),
        hits[0].memory.id,
    )
    person = ", ".join(sorted(named)) or None
    names = tuple(f.name for f in facets)
    return [Pick(m, round(r, 6), anchor, names, person) for r, m in ranked[:limit]]


def place(
    hits: list[TracedHit],
    picks: Sequence[Pick],
    make: Callable[[Memory], TracedHit],
    query: str,
    explain: bool,
) -> None:
    """Put the picks right after the query's best FANOUT_AFTER hits, in their order: each
    scores just below the last of those (a hit that already scores higher keeps its place)
    and carries its facet step. `make` scores a memory that was not a candidate yet."""
    if not picks or not hits:
        return
    bar = hits[min(FANOUT_AFTER, len(hits)) - 1].score
    by_id = {h.memory.id: h for h in hits}
    for i, p in enumerate(picks, start=1):
        h = by_id.get(p.memory.id)
        if h is None:
            h = make(p.memory)
            hits.append(h)
            by_id[p.memory.id] = h
        placed = bar - SEED_MARGIN * i
        if h.score >= placed:
            continue
        before = h.score
        h.score = placed
        h.scores["facet"] = p.relevance
        h.path = [Step(p.anchor, "facet", p.memory.id, p.relevance)]
        if explain and h.explain is not None:
            h.explain["walk"] = walk_explained(p, query, i, h.score - before)
    hits.sort(key=lambda h: (-h.score, h.memory.id))


def walk_explained(p: Pick, query: str, order: int, added: float) -> dict[str, Any]:
    """The explain entry of a facet pick, in the walk's shape (graphmem.domain.associative)."""
    whose = f"{p.person}'s " if p.person else ""
    why = (
        f"list question asking for {' / '.join(p.facets)}: {whose}memories holding a"
        f" {' / '.join(p.facets)} word, ranked by the query (#{order}); placed after the"
        f" query's best {FANOUT_AFTER} hits"
    )
    return {
        "seed": {"memory_id": p.anchor, "relevance": 1.0, "channels": []},
        "steps": [
            {
                "hop": 1,
                "from": p.anchor,
                "to": p.memory.id,
                "type": "facet",
                "direction": "forward",
                "strength": p.relevance,
                "carried": p.relevance,
                "why": why,
            }
        ],
        "graph": p.relevance,
        "added": added,
        "facet": {"facets": list(p.facets), "person": p.person, "query": query[:200]},
    }


__all__ = ["FANOUT_AFTER", "Facet", "Pick", "fan_out", "place"]
