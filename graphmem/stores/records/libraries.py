"""Read grants of shared document libraries, kept next to the records they open.

A library is a tenant of its own (graphmem.usecases.libraries names it): its documents are
records under its id, isolated like any user's. A grant lets one user's searches read it;
nothing else crosses tenants, and erasing either side drops the grant in the same transaction
as the rest (graphmem.stores.records.sql_store.erase_user).
"""

from __future__ import annotations

from graphmem.domain.model import utcnow
from graphmem.stores.records.base import SQLBase


class LibraryReaders(SQLBase):
    """The `library_readers` table."""

    def grant_library(self, library: str, user_id: str) -> bool:
        """True if the grant is new."""
        with self._tx() as cur:
            cur.execute(
                self._q(
                    f"{self._ignore} INTO library_readers (library, user_id, created_at)"
                    " VALUES (?, ?, ?)"
                ),
                (library, user_id, self._dt_in(utcnow())),
            )
            return bool(cur.rowcount and cur.rowcount > 0)

    def revoke_library(self, library: str, user_id: str) -> bool:
        """True if there was a grant to revoke."""
        with self._tx() as cur:
            cur.execute(
                self._q("DELETE FROM library_readers WHERE library = ? AND user_id = ?"),
                (library, user_id),
            )
            return bool(cur.rowcount and cur.rowcount > 0)

    def libraries_of(self, user_id: str) -> list[str]:
        """The libraries (tenant ids) the user may read, sorted."""
        rows = self._fetch(
            "SELECT library FROM library_readers WHERE user_id = ? ORDER BY library", (user_id,)
        )
        return [r[0] for r in rows]

    def library_readers(self, library: str) -> list[str]:
        rows = self._fetch(
            "SELECT user_id FROM library_readers WHERE library = ? ORDER BY user_id", (library,)
        )
        return [r[0] for r in rows]
