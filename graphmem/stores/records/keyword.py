"""The keyword channel: BM25 with each user's own statistics.

SQLite FTS5 and MySQL FULLTEXT keep one set of statistics for the whole table, so one tenant's
memories would change another tenant's keyword scores (a name that is rare across all users but
in half of one user's memories would dominate that user's results). Instead the full-text index
only finds candidates; the score is Okapi BM25 (k1 = 1.2, b = 0.75, with Lucene's idf
log(1 + (N - df + 0.5) / (df + 0.5)), which stays positive for a user with few memories) from
`keyword_df`, a per-user document-frequency table kept in the same transaction as the memories.
Its row with term '' holds the user's document count and the row '#len' their total tokens.
How many candidates: when the user has at most CANDIDATES memories, or the query's terms occur
in at most CANDIDATES of them together (the sum of their df bounds the matches), every memory
holding any query term is re-scored and the result is exact BM25, the same ranking a plain
BM25 over the user's memories gives (bench/bm25_ref.py checks it on every recall benchmark).
Past that, candidates are matched on the query's informative terms only (see MATCH_MAX_SHARE)
and scored on all of them. A large user's terms match far more (at 100k
synthetic memories a question's terms match ~12,000 rows, at 1M ~120,000), so the adapter may
narrow the match first (`_narrow_candidates`): the SQLite adapter takes the memories holding at
least j of the rarest terms, j falling from all of them until there are enough (WANT_FACTOR x
the hits asked for); when a level holds too many, its combinations of j terms are taken in order
of their summed idf, so the work stays bounded by the pool, not by how common the terms are. A
memory missing most of the rare terms rarely beats one that has them, and every candidate is
still scored on all terms here, so only the pool changes, not the scores.

Whose postings: the full-text engine only ever walks the searching user's postings. SQLite
keeps each user's postings in one rowid range (sql/sqlite.sql), so another tenant's memories,
however many hold the same words, cost a search nothing.
"""

from __future__ import annotations

import logging
import math
import time
from collections import Counter
from collections.abc import Iterable
from typing import Any

from graphmem.stores.records.base import SQLBase, chunks
from graphmem.stores.records.rows import RecordQuery

log = logging.getLogger("graphmem.records")

K1 = 1.2
B = 0.75
DOCS = ""  # keyword_df.term of the per-user document count
LENGTH = "#len"  # keyword_df.term of the per-user total token count
CANDIDATES = 1000  # full-text matches re-scored per query, at most
# A narrowed pool must hold this many times the hits asked for: the level just below the one
# that fills it is ranked with all its members, so the top hits are rarely cut off by the pool.
WANT_FACTOR = 2
# Coordination levels are built over this many of the rarest informative terms: the full-text
# expression for "at least j of n terms" grows quickly with n, and rare terms carry the score.
LEVEL_TERMS = 5
# A narrowed pool holds this many times the wanted candidates.
RANKED_WINDOW = 4
# bm25() ranks a term combination's matches only up to this many: it costs a few microseconds
# per match, and a common combination of a million-memory user matches tens of thousands.
RANK_MAX = 1000
# Terms in more than this share of a user's memories score every memory alike (idf near 0) but
# would make the full-text match return most of the store: past CANDIDATES matches they are
# scored, not matched on. Within CANDIDATES they are matched on too: among a few hundred
# memories such a term still has an idf above 1, and a memory that shares only common words
# with the query can still be the best one there is.
MATCH_MAX_SHARE = 0.25
# A query scores on at most this many of its terms, the rarest (highest idf) ones: a long
# dialogue-context query names hundreds, and the commonest add little to any score but cost a
# substring test per candidate each.
SCORE_TERMS = 128


def idf(df: int, n: int) -> float:
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def bm25(tf: int, df: int, n: int, dl: int, avgdl: float) -> float:
    return idf(df, n) * tf * (K1 + 1) / (tf + K1 * (1 - B + B * dl / max(avgdl, 1e-9)))


def reach(terms: Iterable[str], df: dict[str, int], n: int, avgdl: float) -> float:
    """What the query could score on one of this user's memories: a memory of the user's
    average length holding the query's rarest terms once each, as many as such a memory holds
    tokens (at tf = 1 and dl = avgdl a term scores exactly its idf). Terms the user never
    wrote count too (df = 0): they are part of what the query asks, and no memory matches them.

    The fused keyword channel is a hit's BM25 over the larger of the best hit and a share of
    this (graphmem.domain.ranking.keyword), so a query that shares one common character with the
    user's memories cannot give that memory the whole channel."""
    if n <= 0:
        return 0.0
    idfs = sorted((idf(df.get(t, 0), n) for t in dict.fromkeys(terms)), reverse=True)
    return sum(idfs[: max(1, round(avgdl))])


def rescore(
    rows: Iterable[tuple[str, str]], weights: dict[str, float], avgdl: float
) -> list[tuple[str, float]]:
    """BM25 of each (id, search_text) over the terms in `weights` (term -> idf), positive only.

    The same sum as `bm25` per term, arranged for speed: it runs over every candidate of every
    query. A substring test rejects absent terms without splitting the text, and tf is counted
    in the token list (list.count runs in C) instead of building a Counter of the whole text.
    """
    out = []
    norm = K1 * B / max(avgdl, 1e-9)
    base = K1 * (1 - B)
    k1p1 = K1 + 1
    terms = list(weights.items())
    for mid, text in rows:
        toks: list[str] | None = None
        lenorm = 0.0
        s = 0.0
        for t, w in terms:
            if t not in text:
                continue
            if toks is None:
                toks = text.split()
                lenorm = base + norm * len(toks)
            tf = toks.count(t)  # 0 when t is only part of a longer token
            if tf:
                s += w * tf * k1p1 / (tf + lenorm)
        if s > 0:
            out.append((mid, s))
    return out


def at_least(terms: list[str], j: int) -> str:
    """FTS5 expression: memories holding at least j of `terms` (each a bare token).

    Written as (t0 AND at_least(rest, j-1)) OR at_least(rest, j), which names far fewer terms
    than the OR of every j-combination (19 instead of 30 for 3 of 5), and each named term is a
    posting list the engine walks. The first term is named once, the later ones more often.
    """
    quoted = [f'"{t}"' for t in terms]
    if j <= 1 or j >= len(terms):
        if len(terms) == 1:
            return quoted[0]
        return "(" + (" OR " if j <= 1 else " AND ").join(quoted) + ")"
    return f"(({quoted[0]} AND {at_least(terms[1:], j - 1)}) OR {at_least(terms[1:], j)})"


class KeywordIndex(SQLBase):
    """Mixed into the SQL records adapters; they provide `_df_upsert` and `_candidates`."""

    _df_upsert: str  # dialect: INSERT … add to df on conflict

    def _candidates(
        self, q: RecordQuery, terms: list[str], limit: int, ranked: bool = True
    ) -> list[tuple[str, str]]:
        """The user's memories matching any of `terms`, best first when `ranked`: the dialect's
        full-text query."""
        raise NotImplementedError

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
            self._q(self._df_upsert),
            [(user_id, t[:64], sign * n) for t, n in counts.items()],
        )

    def keyword_search(
        self, q: RecordQuery, terms: list[str], limit: int
    ) -> list[tuple[str, float]]:
        return self.keyword_search_reach(q, terms, limit)[0]

    def keyword_search_reach(
        self, q: RecordQuery, terms: list[str], limit: int
    ) -> tuple[list[tuple[str, float]], float]:
        """`keyword_search`'s hits and the query's `reach` over the user's statistics, read
        in the same lookup (search calibrates the channel with it)."""
        if not terms:
            return [], 0.0
        wanted = [DOCS, LENGTH, *terms]
        rows = self._fetch(
            f"SELECT term, df FROM keyword_df WHERE user_id = ? AND term IN"
            f" ({self._marks(len(wanted))})",
            (q.user_id, *wanted),
        )
        df = {t: int(n) for t, n in rows}
        n = df.pop(DOCS, 0)
        avgdl = df.pop(LENGTH, 0) / n if n else 0.0
        attainable = reach(terms, df, n, avgdl)
        useful = sorted((t for t in terms if df.get(t, 0) > 0), key=lambda t: (df[t], t))
        if not useful:
            return [], attainable
        useful = useful[:SCORE_TERMS]  # rarest first
        match = [t for t in useful if df[t] <= MATCH_MAX_SHARE * n] or useful[:1]
        if min(n, sum(df[t] for t in useful)) <= CANDIDATES:
            # exact: every memory holding any query term (at most CANDIDATES of them)
            rows = self._candidates(q, useful, CANDIDATES, ranked=False)
        elif sum(df[t] for t in match) <= CANDIDATES:
            rows = self._candidates(q, match, CANDIDATES, ranked=False)
        else:
            rows = self._narrow_candidates(
                q, match, WANT_FACTOR * limit, CANDIDATES, {t: df[t] for t in match}, n
            )
        scored = rescore(rows, {t: idf(df[t], n) for t in useful}, avgdl)
        scored.sort(key=lambda kv: (-kv[1], kv[0]))
        return scored[:limit], attainable

    def _narrow_candidates(
        self,
        q: RecordQuery,
        terms: list[str],
        want: int,
        cap: int,
        df: dict[str, int] | None = None,
        n: int = 0,
    ) -> list[tuple[str, str]]:
        """At most `cap` (id, search_text) among many matches; here the engine's own ranking.

        `terms` come rarest first, `df` holds their document frequencies among the user's `n`
        memories. Adapters that can do better override this (SQLite does).
        """
        return self._candidates(q, terms, cap)

    def set_search_texts(self, rows: list[tuple[str, str, str]]) -> int:
        """(user_id, memory_id, search_text): rewrite these memories' keyword column and their
        users' statistics in one transaction (a tokenizer change); returns how many changed.
        Only rows whose text differs are written, so the full-text index churns no more than
        needed."""
        changed = 0
        with self._tx() as cur:
            for part in chunks(rows):
                new = {(u, i): t for u, i, t in part}
                cur.execute(
                    self._q(
                        "SELECT user_id, id, search_text FROM memories"
                        f" WHERE id IN ({self._marks(len(part))})"
                    ),
                    [i for _, i, _ in part],
                )
                diff = [
                    (u, i, old, new[(u, i)])
                    for u, i, old in cur.fetchall()
                    if (u, i) in new and new[(u, i)] != old
                ]
                for user in {d[0] for d in diff}:
                    mine = [d for d in diff if d[0] == user]
                    self._df_change(cur, user, [d[2] for d in mine], -1)
                    self._df_change(cur, user, [d[3] for d in mine], +1)
                cur.executemany(
                    self._q("UPDATE memories SET search_text = ? WHERE id = ? AND user_id = ?"),
                    [(t, i, u) for u, i, _, t in diff],
                )
                changed += len(diff)
        return changed

    def rebuild_keyword_stats(self) -> int:
        """Recount every user's statistics from the memories (after an upgrade or a restore)."""
        with self._tx() as cur:
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
        has_df = self._fetch("SELECT COUNT(*) FROM keyword_df")[0][0]
        has_mem = self._fetch("SELECT COUNT(*) FROM memories")[0][0]
        if has_mem and not has_df:
            t = time.perf_counter()
            n = self.rebuild_keyword_stats()
            log.warning(
                "counted keyword statistics of %d memories in %.1f s", n, time.perf_counter() - t
            )
