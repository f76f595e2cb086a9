"""Short extractive summaries: no LLM needed, deterministic, at most MAX_SUMMARY characters.

The summary is the first sentence. Finding where that sentence ends is the hard part: a full
stop also ends abbreviations ("Dr. Okafor", "e.g.", "U.S."), initials ("J. R. R. Tolkien"),
decimals ("3.5 hours", "v2.1") and sits inside emails and URLs, and cutting there turned "My
dentist Dr. Okafor's phone number is 020 7946 0321." into "My dentist Dr.". Chinese ends a
sentence with 。！？； (no space after), but not inside a quotation that is still open.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from graphmem.domain.model import Memory
    from graphmem.embedding import Embedder

MAX_SUMMARY = 64
"""Long enough for a whole short sentence that names a contact detail (the dentist's sentence
above is 54 characters), short enough to scan in a list."""

# Words a full stop follows without ending the sentence, lower-cased, without their last dot.
# Titles and "No." come before a name or a number, "e.g."/"vs." before more of the sentence.
_NEVER_END = frozenset(
    "mr mrs ms dr prof st sr mt rev gen col capt lt sgt hon fig figs no nos vol p pp ch sec"
    " art op e.g i.e cf vs viz approx dept est u.s u.k u.n e.u".split()
)
# Words that may end a sentence too ("... at 9 a.m. Bring ..."): they end it only when the
# next word starts with a capital letter or a digit-free non-letter that opens a sentence.
_MAY_END = frozenset("etc a.m p.m inc ltd co corp jr llc plc bros".split())
_CLOSERS = "\"'’”」』）)]"
_OPENERS = {"“": "”", "「": "」", "『": "』", "（": "）"}
_CJK_END = "。！？；"
# Spans no cut may fall into: a number with its separators, an email, a URL, a secret reference.
_WHOLE = re.compile(
    r"https?://\S+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\[[a-z]+:[a-z_]+#\d+\]|\+?\d[\d ()./-]*\d"
)


def _ends_at(text: str, i: int) -> int | None:
    """Where the sentence ends if the terminator at `i` ends it (the index after it and any
    closing quotes), else None."""
    ch = text[i]
    j = i + 1
    while j < len(text) and text[j] in _CLOSERS:
        j += 1
    if ch in _CJK_END or ch in "！？":
        return j
    if j < len(text) and not text[j].isspace():
        return None  # "3.5", "v2.1", "a@b.com", "x.org/y", "?!" - not the end of anything
    if ch in "!?;":
        return j
    token = text[text.rfind(" ", 0, i) + 1 : i].lstrip("\"'“‘(（[")
    low = token.lower()
    if low in _NEVER_END:
        return None
    if len(token) == 1 and token.isalpha() and token.isupper():
        return None  # an initial: "J. R. R. Tolkien"
    if low in _MAY_END:
        rest = text[j:].lstrip()
        return j if rest[:1].isupper() else None
    return j


def first_sentence(text: str) -> str:
    """The first sentence of `text` (whitespace already collapsed), terminator included."""
    waiting: list[str] = []  # closing quotes still owed, innermost last
    for i, ch in enumerate(text):
        if ch in _OPENERS:
            waiting.append(_OPENERS[ch])
        elif waiting and ch == waiting[-1]:
            waiting.pop()
        elif ch in ".!?;。！？；" and not waiting:
            end = _ends_at(text, i)
            if end is not None:
                return text[:end].rstrip()
    return text


def _cut(sentence: str, limit: int) -> str:
    """`sentence` shortened to `limit` with an ellipsis, at a word boundary, and never inside
    a number, an email, a URL or a secret reference (half a phone number misleads)."""
    end = limit - 1
    for m in _WHOLE.finditer(sentence):
        if m.start() < end < m.end():
            end = m.start()
            break
    cut = sentence[:end]
    space = cut.rfind(" ")
    if space >= limit // 2 and end == limit - 1:
        cut = cut[:space]
    return cut.rstrip(" ,;:，、") + "…"


def summarize(text: str, limit: int = MAX_SUMMARY) -> str:
    """The first sentence, cut at a word boundary with an ellipsis if it is too long."""
    text = " ".join(text.split())
    first = first_sentence(text) or text
    if len(first) <= limit:
        return first
    return _cut(first, limit)


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

    def forget_all(self) -> int:
        """Drop every cached summary vector (their keys hold summaries users wrote): after an
        erase, here or on another replica. Returns how many there were."""
        with self._lock:
            n = len(self._cache)
            self._cache.clear()
        return n

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
