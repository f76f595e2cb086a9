"""Facts about the store as a whole, kept in the store: `store_meta`, name -> value.

What the rows were made with lives with the rows, so every process that opens the store, on any
host, reads the same answer: the version of the keyword tokens in `memories.search_text` and the
embedding model the vector projection was built with (graphmem.usecases.backfill).
"""

from __future__ import annotations

from graphmem.stores.records.base import SQLBase


class StoreMeta(SQLBase):
    """Mixed into the SQL records adapters."""

    def meta(self, name: str) -> str | None:
        rows = self._fetch("SELECT value FROM store_meta WHERE name = ?", (name,))
        return str(rows[0][0]) if rows else None

    def set_meta(self, name: str, value: str) -> None:
        with self._tx() as cur:  # delete + insert: one statement in both dialects' words
            cur.execute(self._q("DELETE FROM store_meta WHERE name = ?"), (name,))
            cur.execute(
                self._q("INSERT INTO store_meta (name, value) VALUES (?, ?)"), (name, value)
            )
