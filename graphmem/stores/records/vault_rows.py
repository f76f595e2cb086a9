"""The vault's tables: each user's wrapped data key and their encrypted secrets.

Kept in the records store so that a memory and the secrets taken out of it are written in one
transaction (`SQLRecords.insert` calls `_vault_put`), deleted with it, and erased with the
user. These rows hold ciphertext only; graphmem.guard.vault does the cryptography.
"""

from __future__ import annotations

from typing import Any

from graphmem.domain.model import utcnow
from graphmem.stores.records.base import SQLBase
from graphmem.stores.records.rows import SecretRow


class VaultRows(SQLBase):
    """The `vault_keys` and `vault_secrets` tables."""

    def vault_key(self, user_id: str) -> tuple[str, str] | None:
        """The user's (store key id, wrapped data key), or None before their first secret."""
        rows = self._fetch("SELECT key_id, wrapped FROM vault_keys WHERE user_id = ?", (user_id,))
        return (rows[0][0], rows[0][1]) if rows else None

    def vault_add_key(self, user_id: str, key_id: str, wrapped: str) -> tuple[str, str]:
        """Store a new data key unless the user has one (another process may have raced this
        one to it); returns the one that is stored."""
        with self._tx() as cur:
            cur.execute(
                self._q(
                    f"{self._ignore} INTO vault_keys (user_id, key_id, wrapped, created_at)"
                    " VALUES (?, ?, ?, ?)"
                ),
                (user_id, key_id, wrapped, self._dt_in(utcnow())),
            )
        got = self.vault_key(user_id)
        assert got is not None
        return got

    def vault_keys(self) -> list[tuple[str, str, str]]:
        """Every (user_id, key id, wrapped data key): what a store-key rotation re-wraps."""
        return [
            (r[0], r[1], r[2])
            for r in self._fetch("SELECT user_id, key_id, wrapped FROM vault_keys ORDER BY user_id")
        ]

    def vault_rewrap(self, rows: list[tuple[str, str, str]]) -> None:
        """Replace wrapped data keys (user_id, new key id, new wrapped), all or none."""
        with self._tx() as cur:
            cur.executemany(
                self._q("UPDATE vault_keys SET key_id = ?, wrapped = ? WHERE user_id = ?"),
                [(k, w, u) for u, k, w in rows],
            )

    def vault_secrets(self, user_id: str, memory_id: str) -> list[SecretRow]:
        rows = self._fetch(
            "SELECT user_id, memory_id, ref, type, nonce, ciphertext FROM vault_secrets"
            " WHERE user_id = ? AND memory_id = ? ORDER BY created_at, ref",
            (user_id, memory_id),
        )
        return [SecretRow(*r) for r in rows]

    def vault_count(self, user_id: str) -> int:
        return int(
            self._fetch("SELECT COUNT(*) FROM vault_secrets WHERE user_id = ?", (user_id,))[0][0]
        )

    def _vault_put(self, cur: Any, rows: list[SecretRow]) -> None:
        """Inside the caller's transaction: the secrets of the memories it writes."""
        if not rows:
            return
        at = self._dt_in(utcnow())
        cur.executemany(
            self._q(
                "INSERT INTO vault_secrets (user_id, memory_id, ref, type, nonce, ciphertext,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
            ),
            [(r.user_id, r.memory_id, r.ref, r.type, r.nonce, r.ciphertext, at) for r in rows],
        )

    def _vault_drop(self, cur: Any, user_id: str, memory_ids: list[str]) -> None:
        """Inside the caller's transaction: the secrets of memories it deletes."""
        if memory_ids:
            cur.execute(
                self._q(
                    "DELETE FROM vault_secrets WHERE user_id = ?"
                    f" AND memory_id IN ({self._marks(len(memory_ids))})"
                ),
                (user_id, *memory_ids),
            )
