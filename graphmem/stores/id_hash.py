"""Keyed hashes of user and session ids, for stores whose files cannot forget.

A vector shard's write-ahead log and payload pages keep what was written long after a point is
deleted, and no API call clears them. So the raw ids never go there: the shard stores
HMAC-SHA256 of each id under a random per-store key, and filters on the same hash. Without the
key, a hash found on disk cannot be matched to a guessed id. The erase audit row uses it too, so
an operator who holds the key can show that a given user was erased without the row naming them.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

from graphmem.stores.private_files import FILE_MODE, private_dir

KEY_FILE = "id-hash.key"
PREFIX = "h:"


class IdHasher:
    """`hasher(value)` is the stored form of an id; equal ids give equal hashes."""

    def __init__(self, key: bytes) -> None:
        if len(key) < 16:
            raise ValueError("id hash key must be at least 16 bytes")
        self._key = key

    def __call__(self, value: str) -> str:
        digest = hmac.new(self._key, value.encode("utf-8"), hashlib.sha256).hexdigest()
        return PREFIX + digest[:40]

    @classmethod
    def for_dir(cls, directory: Path) -> IdHasher:
        """The key kept in `directory` (0600), made on first use. Losing it only makes the
        hashed stores unreachable, and `graphmem backfill rebuild` recreates them."""
        path = Path(directory) / KEY_FILE
        if not path.exists():
            private_dir(path.parent)
            tmp = path.with_name(f".{KEY_FILE}.{os.getpid()}")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
            with os.fdopen(fd, "w", encoding="ascii") as f:
                f.write(secrets.token_hex(32) + "\n")
                f.flush()
                os.fsync(f.fileno())
            try:  # two processes starting at once: the first key written wins
                os.link(tmp, path)
            except FileExistsError:
                pass
            finally:
                tmp.unlink()
        return cls(bytes.fromhex(path.read_text("ascii").strip()))
