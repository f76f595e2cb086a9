"""A dialogue searched twice: as a whole, and by its last turn.

Agents often search with the conversation they are in - a few turns, one per line, then what was
just asked - not with a clean question. Every word of the earlier turns then weighs as much as
the question's: the keyword channel's terms drown in chat, and the query vector drifts to the
average of the dialogue. On the Chinese set's tune half, six turns of context took hybrid hit@1 /
hit@5 from 0.747 / 0.962 to 0.418 / 0.734, below the plain keyword channel (docs/benchmarks.md).

So a query of several lines whose last line says something (a question, a request) is searched
as a whole and by that last line, and each memory keeps the better of its two final scores: what
the last turn asks about comes back, and what only the whole dialogue reaches is still found.
Both searches are the same pipeline (channels, fusion, walk), so their scores are on one scale.
A single-line query is searched once, exactly as before.
"""

from __future__ import annotations

import re
from dataclasses import replace

from graphmem.domain.model import Hit
from graphmem.domain.requests import SearchResult

_WORD_RE = re.compile(r"[^\W\d_]+", re.UNICODE)
_CJK_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
MIN_WORDS = 3
MIN_CJK = 4
# What the whole dialogue's scores count for beside the last turn's: each search's best hit
# scores alike, so below 1 the last turn's best comes first and the dialogue's fill in after.
# Chosen on the tune splits with six turns of context (bench/zh_recall.py, bench/locomo.py
# --context-turns 6): 1.0 / 0.9 / 0.75 gave LoCoMo r@10 0.488 / 0.616 / 0.744 and Chinese hit@1
# 0.747 at each. Those benchmarks' context turns never hold the answer, which favours the last
# turn; a last turn that only points back ("what did she say about it?") is where a lower
# weight costs, so it was not taken lower.
WHOLE_WEIGHT = 0.75


def last_turn(query: str) -> str | None:
    """The last line of a multi-line query when it says something on its own (>= 3 words or
    >= 4 CJK characters), else None: a one-line query, or a last line such as "ok" or "嗯"."""
    lines = [ln.strip() for ln in query.splitlines() if ln.strip()]
    if len(lines) < 2:
        return None
    last = lines[-1]
    cjk = len(_CJK_RE.findall(last))
    words = len([w for w in _WORD_RE.findall(last) if not _CJK_RE.match(w)])
    return last if cjk >= MIN_CJK or words >= MIN_WORDS else None


def merged(whole: SearchResult, turn: SearchResult, top_k: int) -> SearchResult:
    """Each memory once, with the better of its last-turn score and WHOLE_WEIGHT times its
    whole-dialogue score, ranked by it (the last turn's on a tie); degraded stores of either
    search are reported."""
    best: dict[str, tuple[float, int, Hit]] = {}
    for order, (hits, weight) in enumerate(((turn.hits, 1.0), (whole.hits, WHOLE_WEIGHT))):
        for hit in hits:
            score = hit.score * weight
            have = best.get(hit.memory.id)
            if have is None or score > have[0]:
                best[hit.memory.id] = (score, order, hit)
    ranked = sorted(best.values(), key=lambda t: (-t[0], t[1], t[2].memory.id))[:top_k]
    hits = [replace(hit, score=score) for score, _, hit in ranked]
    degraded = sorted({*whole.degraded, *turn.degraded})
    return SearchResult(hits=hits, took_ms=0.0, degraded=degraded)


__all__ = ["last_turn", "merged"]
