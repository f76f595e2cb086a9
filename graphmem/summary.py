"""Short extractive summaries: no LLM needed, deterministic, at most 50 characters."""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from graphmem.embedder import Embedder
    from graphmem.model import Memory

MAX_SUMMARY = 50
_SENTENCE_END = re.compile(r"(?<=[.!?。！？；;])\s*")


def summarize(text: str, limit: int = MAX_SUMMARY) -> str:
    """The first sentence, cut at a word boundary with an ellipsis if it is too long."""
    text = " ".join(text.split())
    first = _SENTENCE_END.split(text, maxsplit=1)[0] or text
    if len(first) <= limit:
        return first
    cut = first[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"


def summarize_many(texts: list[str], limit: int = 400) -> str:
    """A summary of several memories: each one's first sentence, joined, within `limit`."""
    parts: list[str] = []
    used = 0
    for t in texts:
        s = summarize(t, limit=120)
        if used + len(s) + 2 > limit:
            break
        parts.append(s)
        used += len(s) + 2
    return "; ".join(parts)


class SummaryVectors:
    """Embeddings of memory summaries, for recall that matches on summaries first.

    Computed on first use and kept in a bounded LRU keyed by (memory id, summary text), so an
    edited summary is re-embedded and a hot working set costs one embedding per memory.
    """

    def __init__(self, embedder: Embedder, size: int = 100_000) -> None:
        self.embedder = embedder
        self.size = size
        self._cache: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def scores(self, qvec: np.ndarray, memories: Iterable[Memory]) -> dict[str, float]:
        """Cosine of the query to each memory's summary (its content if it has none)."""
        keyed = [(m.id, m.summary or summarize(m.content)) for m in memories]
        with self._lock:
            missing = [k for k in dict.fromkeys(keyed) if k not in self._cache]
        if missing:
            vecs = self.embedder.encode([text for _, text in missing])
            with self._lock:
                for k, v in zip(missing, vecs, strict=True):
                    self._cache[k] = v
                while len(self._cache) > self.size:
                    self._cache.popitem(last=False)
        out: dict[str, float] = {}
        with self._lock:
            for k in keyed:
                v = self._cache[k]
                self._cache.move_to_end(k)
                out[k[0]] = float(np.dot(qvec, v))
        return out
