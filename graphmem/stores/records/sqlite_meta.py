"""A memory list filtered by metadata, in the embedded store: read from the metadata's rows.

The list tests a metadata filter on each memory's JSON (`SQLBase._where`), walking the user's
memories in the list's order until a page is full. When few memories match, that walk reads
every memory of the user: 150-230 ms for `i=7` at 100,000 memories, where 10 match. The schema
keeps each memory's top-level scalar values in `memory_meta` (user, key, kind, value, doc_id),
by triggers on memories (sql/sqlite.sql), so the matching memories are one index range per
value asked for.

Which way a page is read depends on how many memories match, counted up to `DRIVE_MAX` in that
index: up to it, the matching rows are read by doc_id and sorted (about 1 ms per thousand);
beyond it, so many match that the walk in the list's order fills a page within a few hundred
rows, and it is kept. SQLite's planner cannot make that choice itself: its statistics give one
average number of rows per value, the same for a value held by 10 memories and by 90,000.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from graphmem.domain.filters import MetaCondition, Scalar
from graphmem.stores.records.listing import SQLListing
from graphmem.stores.records.rows import RecordQuery

DRIVE_MAX = 20_000


def kind_value(value: Scalar) -> tuple[str, Any]:
    """A filter value as `memory_meta` holds it: (kind, value), kinds as the triggers write
    them, so "1", 1 and true stay apart as graphmem.domain.filters.same_value keeps them."""
    if isinstance(value, bool):
        return "b", int(value)
    if isinstance(value, str):
        return "s", value
    return "n", value


class SQLiteMetaListing(SQLListing):
    def _listing_where(self, q: RecordQuery) -> tuple[str, list[Any]]:
        """A page's conditions, its rows driven by the rarest metadata condition when that one
        matches at most DRIVE_MAX memories; the other conditions are tested on those rows."""
        conds = q.filter.metadata
        if not conds:
            return self._where(q)
        counts = [(self._meta_count(q.user_id, c, DRIVE_MAX + 1), i) for i, c in enumerate(conds)]
        n, best = min(counts)
        if n > DRIVE_MAX:
            return self._where(q)
        rest = replace(q, filter=replace(q.filter, metadata=conds[:best] + conds[best + 1 :]))
        # `+user_id`: no index of memories can serve the rows, so the planner reads them by
        # doc_id from the list, whatever its statistics guess about the list's length
        where, params = self._where(rest, user_index=False)
        sub, sub_params = self._meta_rows(q.user_id, conds[best])
        return f"{where} AND doc_id IN ({sub})", [*params, *sub_params]

    def _meta_rows(self, user_id: str, cond: MetaCondition) -> tuple[str, list[Any]]:
        """SELECT of the doc_ids of the user's memories holding one of `cond`'s values."""
        ors, params = [], [user_id, cond.key]
        for v in cond.values:
            ors.append("(kind = ? AND meta_value = ?)")
            params.extend(kind_value(v))
        return (
            "SELECT doc_id FROM memory_meta WHERE user_id = ? AND meta_key = ?"
            f" AND ({' OR '.join(ors)})",
            params,
        )

    def _meta_count(self, user_id: str, cond: MetaCondition, cap: int) -> int:
        """How many of the user's memories hold one of `cond`'s values, counted up to `cap`."""
        sub, params = self._meta_rows(user_id, cond)
        return int(self._fetch(f"SELECT COUNT(*) FROM ({sub} LIMIT {int(cap)})", params)[0][0])
