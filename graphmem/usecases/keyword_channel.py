"""The keyword channel of a search: BM25 over the query's own terms and, for a Chinese question,
over the English words its words translate to (graphmem.domain.glossary), run beside the vector
channel on the channel pool."""

from __future__ import annotations

from concurrent.futures import Future
from typing import NamedTuple

from graphmem.domain.glossary import english_terms
from graphmem.domain.text import query_terms
from graphmem.infra import metrics, workers
from graphmem.infra.tracing import carry, span
from graphmem.stores.records import RecordQuery
from graphmem.usecases.ports import RecordsPorts


class KeywordHits(NamedTuple):
    """The keyword channel's result: each hit's BM25, the query's reach (what calibrates them,
    graphmem.domain.ranking.keyword), and for a Chinese question the BM25 of the English memories
    its words translate to (graphmem.domain.glossary), with the number of those English terms."""

    scores: dict[str, float]
    reach: float
    across: dict[str, float]
    across_terms: int


def keyword_hits(
    ctx: RecordsPorts, rq: RecordQuery, query: str, pool: int, *, across: bool = True
) -> KeywordHits:
    """The keyword channel, as search runs it and bench/fit_fusion.py fits on it. The English
    terms of a Chinese question are searched apart and kept apart: a match in another script
    is other evidence than a match of the question's own words, and the fitted fusion weighs
    it as a feature of its own (graphmem.domain.fusion). `across` False: a fusion that does not
    weigh them, so neither the dictionary nor the second lookup is paid for."""
    found, reach = ctx.records.keyword_search_reach(rq, query_terms(query), pool)
    gloss = english_terms(query) if across else []
    other = dict(ctx.records.keyword_search_reach(rq, gloss, pool)[0]) if gloss else {}
    return KeywordHits(dict(found), reach, other, len(gloss))


def start_keyword(
    ctx: RecordsPorts, rq: RecordQuery, query: str, pool: int, *, across: bool
) -> Future[KeywordHits]:
    """Start the keyword channel on the channel pool; its result (or error) is the future's."""

    def run() -> KeywordHits:
        with metrics.channel("keyword"), span("graphmem.search.keyword", pool=pool) as step:
            found = keyword_hits(ctx, rq, query, pool, across=across)
            step.set(hits=len(found.scores))
            return found

    return workers.pool("channel").submit(carry(run))


__all__ = ["KeywordHits", "keyword_hits", "start_keyword"]
