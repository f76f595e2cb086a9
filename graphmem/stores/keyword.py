"""The keyword channel: BM25 with each user's own statistics.

SQLite FTS5 and MySQL FULLTEXT keep one set of statistics for the whole table, so one tenant's
memories would change another tenant's keyword scores (a name that is rare across all users but
in half of one user's memories would dominate that user's results). Instead the full-text index
only finds candidates; the score is Okapi BM25 (k1 = 1.2, b = 0.75, with Lucene's idf
log(1 + (N - df + 0.5) / (df + 0.5)), which stays positive for a user with few memories) from
`keyword_df`, a per-user document-frequency table kept in the same transaction as the memories.
Its row with term '' holds the user's document count and the row '#len' their total tokens.
Candidates are matched on the query's informative terms only (see MATCH_MAX_SHARE) and scored
on all of them.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Iterable
from typing import Any

from graphmem.stores.records import RecordQuery

K1 = 1.2
B = 0.75
DOCS = ""  # keyword_df.term of the per-user document count
LENGTH = "#len"  # keyword_df.term of the per-user total token count
CANDIDATES = 1000  # full-text matches re-scored per query, at most
# Terms in more than this share of a user's memories score every memory alike (idf near 0) but
# would make the full-text match return most of the store: they are scored, not matched on.
MATCH_MAX_SHARE = 0.25


def bm25(tf: int, df: int, n: int, dl: int, avgdl: float) -> float:
    idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
    return idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * dl / max(avgdl, 1e-9)))


class KeywordIndex:
    """Mixed into the SQL records adapters; they provide `_df_upsert` and `_candidates`."""

    _df_upsert: str  # dialect: INSERT … add to df on conflict

    def _df_change(self, cur: Any, user_id: str, texts: Iterable[str], sign: int) -> None:
        """Count (sign=1) or uncount (sign=-1) these search texts in the user's statistics."""
        counts: Counter[str] = Counter()
        docs = 0
        for text in texts:
            toks = text.split()
            counts.update(set(toks))
            counts[LENGTH] += len(toks)
            docs += 1
        if not docs:
            return
        counts[DOCS] = docs
        cur.executemany(
            self._q(self._df_upsert),  # type: ignore[attr-defined]
            [(user_id, t[:64], sign * n) for t, n in counts.items()],
        )

    def keyword_search(
        self, q: RecordQuery, terms: list[str], limit: int
    ) -> list[tuple[str, float]]:
        if not terms:
            return []
        wanted = [DOCS, LENGTH, *terms]
        rows = self._fetch(  # type: ignore[attr-defined]
            f"SELECT term, df FROM keyword_df WHERE user_id = ? AND term IN"
            f" ({self._marks(len(wanted))})",  # type: ignore[attr-defined]
            (q.user_id, *wanted),
        )
        df = {t: int(n) for t, n in rows}
        n = df.pop(DOCS, 0)
        avgdl = df.pop(LENGTH, 0) / n if n else 0.0
        useful = [t for t in terms if df.get(t, 0) > 0]
        if not useful:
            return []
        match = [t for t in useful if df[t] <= MATCH_MAX_SHARE * n] or [
            min(useful, key=lambda t: (df[t], t))
        ]
        scored = []
        for mid, text in self._candidates(q, match, CANDIDATES):  # type: ignore[attr-defined]
            toks = text.split()
            tf = Counter(toks)
            s = sum(bm25(tf[t], df[t], n, len(toks), avgdl) for t in useful if t in tf)
            if s > 0:
                scored.append((mid, s))
        scored.sort(key=lambda kv: (-kv[1], kv[0]))
        return scored[:limit]

    def rebuild_keyword_stats(self) -> int:
        """Recount every user's statistics from the memories (after an upgrade or a restore)."""
        with self._tx() as cur:  # type: ignore[attr-defined]
            cur.execute("DELETE FROM keyword_df")
            cur.execute("SELECT user_id, search_text FROM memories ORDER BY user_id")
            by_user: dict[str, list[str]] = {}
            for user_id, text in cur.fetchall():
                by_user.setdefault(user_id, []).append(text)
            for user_id, texts in by_user.items():
                self._df_change(cur, user_id, texts, +1)
        return sum(len(v) for v in by_user.values())

    def _ensure_keyword_stats(self) -> None:
        """A store written before keyword_df existed gets its statistics counted once."""
        has_df = self._fetch("SELECT COUNT(*) FROM keyword_df")[0][0]  # type: ignore[attr-defined]
        has_mem = self._fetch("SELECT COUNT(*) FROM memories")[0][0]  # type: ignore[attr-defined]
        if has_mem and not has_df:
            t = time.perf_counter()
            n = self.rebuild_keyword_stats()
            import logging

            logging.getLogger("graphmem.records").warning(
                "counted keyword statistics of %d memories in %.1f s", n, time.perf_counter() - t
            )
