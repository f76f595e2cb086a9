"""Listing a user's memories a page at a time, in one of a few orders, by keyset.

A page starts strictly after the last row of the previous one (its sort value and doc_id), not
at an offset: a page costs the same at the millionth row as at the first, and a memory written
or deleted between two pages neither shifts nor repeats the rows after it.
"""

from __future__ import annotations

from typing import Any

from graphmem.domain.model import Memory
from graphmem.stores.records.base import MEMORY_COLUMNS, SQLBase
from graphmem.stores.records.rows import RecordQuery

# sort name -> (column, descending)
SORTS: dict[str, tuple[str, bool]] = {
    "newest": ("created_at", True),
    "oldest": ("created_at", False),
    "most_accessed": ("access_count", True),
    "decay": ("decay_score", False),
}


class SQLListing(SQLBase):
    def page(
        self, q: RecordQuery, sort: str, after: tuple[Any, int] | None, limit: int
    ) -> list[tuple[Memory, Any]]:
        """Up to `limit` memories in `sort` order after the position `after` (the sort value
        and doc_id of the last row seen), each with the sort value a cursor resumes from."""
        column, desc = SORTS[sort]
        where, params = self._listing_where(q)
        op, direction = ("<", "DESC") if desc else (">", "ASC")
        if after is not None:
            value, doc_id = after
            if column == "created_at":
                value = self._dt_in(value)
            # "after (value, doc_id)" written as a range on the column and a test inside it:
            # the same rows as `col < v OR (col = v AND doc_id < d)`, but that OR, next to a
            # list of statuses, made SQLite read every row of the user before the cursor (one
            # index scan per side of the OR, then a sort): page 10 of 100,000 memories took a
            # second, the first page a millisecond. A range is one seek per status.
            where += f" AND {column} {op}= ? AND ({column} {op} ? OR doc_id {op} ?)"
            params.extend([value, value, doc_id])
        rows = self._fetch(
            f"SELECT {MEMORY_COLUMNS}, {column} FROM memories WHERE {where}"
            f" ORDER BY {column} {direction}, doc_id {direction} LIMIT {int(limit)}",
            params,
        )
        out = []
        for r in rows:
            m = self._row_to_memory(r)
            key = m.created_at if column == "created_at" else r[-1]
            out.append((m, key))
        return out

    def _listing_where(self, q: RecordQuery) -> tuple[str, list[Any]]:
        """The conditions of a page. Every filter as `_where` writes it, the metadata tested on
        each row's JSON; the embedded store reads a selective metadata filter from an index of
        the values instead (graphmem.stores.records.sqlite_meta)."""
        return self._where(q)
