"""A plain reference BM25 for the recall benchmarks: the floor the keyword channel must reach.

Okapi BM25 (k1 = 1.2, b = 0.75, Lucene's idf log(1 + (N - df + 0.5) / (df + 0.5))) over the
memories one user holds, read back from the store after the benchmark wrote them. Tokens: Latin
words lower-cased as they are (no stemming, no stop words), and every run of CJK characters cut
into its characters and its character bigrams. Nothing else: it is what thirty lines of BM25 do,
so a keyword channel that ranks below it has lost something on the way, not failed to add it.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable

K1, B = 1.2, 0.75
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TOKEN = re.compile(rf"([{_CJK}]+)|([^\W_{_CJK}]+)")


def tokens(text: str) -> list[str]:
    """Words, and CJK unigrams + bigrams, in text order."""
    out: list[str] = []
    for cjk, word in _TOKEN.findall(unicodedata.normalize("NFKC", text).lower()):
        if word:
            out.append(word)
        else:
            out.extend(cjk)
            out.extend(cjk[i : i + 2] for i in range(len(cjk) - 1))
    return out


class BM25Ref:
    """BM25 over a fixed set of (key, text) documents; `search` ranks them for a query."""

    def __init__(self, docs: Iterable[tuple[str, str]]) -> None:
        self.keys: list[str] = []
        self.tfs: list[Counter[str]] = []
        self.lens: list[int] = []
        self.df: Counter[str] = Counter()
        for key, text in docs:
            toks = tokens(text)
            self.keys.append(key)
            self.tfs.append(Counter(toks))
            self.lens.append(len(toks))
            self.df.update(set(toks))
        self.avgdl = sum(self.lens) / len(self.lens) if self.lens else 0.0

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        """The k best (key, score) with a positive score, ties by key."""
        n = len(self.keys)
        idf = {
            t: math.log(1 + (n - self.df[t] + 0.5) / (self.df[t] + 0.5))
            for t in set(tokens(query))
            if self.df[t]
        }
        scored = []
        for key, tf, dl in zip(self.keys, self.tfs, self.lens, strict=True):
            norm = K1 * (1 - B + B * dl / max(self.avgdl, 1e-9))
            s = sum(w * tf[t] * (K1 + 1) / (tf[t] + norm) for t, w in idf.items() if tf[t])
            if s > 0:
                scored.append((key, s))
        scored.sort(key=lambda kv: (-kv[1], kv[0]))
        return scored[:k]


def from_store(svc: object, user_id: str) -> tuple[BM25Ref, dict[str, object]]:
    """The reference over the user's active memories as the store holds them (merges and
    supersessions included), and memory id -> Memory to map hits back to the benchmark's ids."""
    from graphmem.stores.records.rows import RecordQuery

    mems = {m.id: m for m in svc.records.list(RecordQuery(user_id))}  # type: ignore[attr-defined]
    return BM25Ref((mid, m.content) for mid, m in mems.items()), mems
