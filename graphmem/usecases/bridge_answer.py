"""A question asked through a bridge: put the memory that answers it above the one that bridges.

"我老婆在哪个科室上班？" matches "我老婆叫王芳，是一名护士。" best: that memory holds what the
question names (my wife) and brings a name the question does not (王芳). The answer,
"王芳在北京协和医院的急诊科上班。", shares little with the question but that name and the rest of
what it asks (在 ... 上班), and the walk reaches it one rank below its seed (the walk never lifts
a reached memory above the memory it was reached from: associative.capped_by_seed). The bridge
is the best match; the answer is what the question wants.

So after the walk: when a hit within the next few ranks shares with the best hit a rare term
the query does not hold (the bridge: a name, "爸爸", "Raj Patel"; rare = held by few of the
candidates), and covers enough of what the query asks that the best hit does not (its
residual terms, question words left out, each weighted by its rarity among the candidates;
terms no candidate holds cannot tell them apart and weigh nothing), that hit is moved to the
top, one step above the bridge, and says so in its path and explanation. Terms, not extracted
entities: "我爸爸退休前是九江一家化工厂的工程师。" bridges to "爸爸退休后迷上了钓鱼" by 爸爸 and
退休, which no entity extractor names. Chosen on the Chinese set's tune half and LoCoMo's tune
split (docs/benchmarks.md).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from graphmem.domain.associative import SEED_MARGIN, Step, TracedHit
from graphmem.domain.text import plain_terms
from graphmem.stores.records.keyword import idf

# How far below the bridge the answer may sit, and how many hits give the terms their weights.
WITHIN = 4
POOL = 20
# The share of the residual terms' weight the answer must cover, and the least residual weight
# worth reading ("叫什么" leaves nothing to cover).
MIN_COVER = 0.3
MIN_RESIDUAL = 2.0
# The least number of residual terms the answer must hold: a word or two in common with the
# next turn of a conversation is chance (LoCoMo tune, MRR: 0.600 off, 0.593 with 2, 0.600 with 3).
MIN_TERMS = 3
# The bridge: shared with the best hit, not in the query, held by at most this many candidates.
BRIDGE_MAX_DF = 2

# Question words: what a question asks with, never what its answer says. A CJK bigram holding
# one of the question characters ("哪个" in "在哪个科室") asks too.
_ASKING = frozenset(
    "什么 哪些 几点 多少 多久 怎么 怎样 如何 为什么 是否 what which where who whom whose when how"
    " why does did do is are was".split()
)
_ASKING_CHARS = frozenset("什么哪几谁吗呢怎")


def _asks(term: str) -> bool:
    return term in _ASKING or any(c in _ASKING_CHARS for c in term)


def _multi(term: str) -> bool:
    """A word or a CJK bigram: one CJK character is too common to bridge on."""
    return len(term) > 1 or term.isascii()


def _df(texts: Iterable[set[str]]) -> Counter[str]:
    """How many candidates hold each term: with `idf` (the keyword channel's), a term most of
    them hold (的, 在, "the") weighs nothing."""
    return Counter(t for s in texts for t in s)


def answer_through_bridge(query: str, hits: list[TracedHit], explain: bool) -> bool:
    """Moves the hit that answers through the best hit (their shared rare term) above it; True
    if it did."""
    if len(hits) < 2:
        return False
    q = plain_terms(query)
    top = hits[0]
    toks = {h.memory.id: plain_terms(h.memory.content) for h in hits[:POOL]}
    df = _df(toks.values())
    n = len(toks)
    top_toks = toks[top.memory.id]
    residual = {t for t in q - top_toks if not _asks(t)}
    w = {t: idf(df[t], n) for t in residual if df[t] > 0}
    total = sum(w.values())
    if total < MIN_RESIDUAL:
        return False
    best: tuple[float, int, str] | None = None
    for rank, h in enumerate(hits[1 : WITHIN + 1], start=1):
        ht = toks[h.memory.id]
        bridge = sorted(t for t in (top_toks & ht) - q if _multi(t) and df[t] <= BRIDGE_MAX_DF)
        if not bridge:
            continue
        held = [v for t, v in w.items() if t in ht]
        cover = sum(held) / total
        if len(held) >= MIN_TERMS and cover >= MIN_COVER and (best is None or cover > best[0]):
            best = (cover, rank, bridge[0])
    if best is None:
        return False
    cover, rank, entity = best
    answer = hits.pop(rank)
    answer.score = top.score + SEED_MARGIN
    answer.scores["bridge_answer"] = round(cover, 4)
    answer.path = [Step(top.memory.id, "bridge", answer.memory.id, round(cover, 6))]
    if explain and answer.explain is not None:
        answer.explain["bridge_answer"] = {
            "bridge": top.memory.id,
            "bridge_term": entity,
            "residual_covered": round(cover, 4),
            "why": "this memory shares a rare term with the best hit that the query does not"
            " hold, and covers the rest of what the query asks",
        }
    hits.insert(0, answer)
    return True
