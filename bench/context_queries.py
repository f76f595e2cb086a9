"""Dialogue-context queries: a benchmark question preceded by a few turns of its own stream.

An agent often searches with the conversation it is in, not with a clean question: the last
few turns, then what was just asked. That makes queries long and full of words that have
nothing to do with the answer, which is where a keyword channel that caps, drops or narrows
query terms falls behind a plain BM25. `context_query` builds such a query deterministically:
n consecutive memories of the same stream, at a window chosen by a hash of the question's key,
never one holding the question's evidence (that would hand the answer over), then the question.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection


def context_query(
    stream: list[str], question: str, key: str, n: int, exclude: Collection[int] = ()
) -> tuple[str, list[int]]:
    """`question` after n consecutive texts of `stream` (none of whose indices is in
    `exclude`), one per line, and those texts' indices; the question alone (and no indices)
    when n <= 0 or no such window exists.

    The benchmarks leave the quoted memories out of the ranking they score: the agent already
    holds the dialogue it searched with, and a search that returns it has found nothing."""
    if n <= 0:
        return question, []
    starts = [
        s for s in range(len(stream) - n + 1) if not any(i in exclude for i in range(s, s + n))
    ]
    if not starts:
        return question, []
    pick = starts[int(hashlib.sha256(key.encode()).hexdigest(), 16) % len(starts)]
    return "\n".join([*stream[pick : pick + n], question]), list(range(pick, pick + n))
