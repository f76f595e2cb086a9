"""The vault: secrets taken out of memories, encrypted per user, readable only by their owner.

Two layers of keys, so that erasing one user is destroying one small row (crypto-shredding)
and no copy of their secrets - a backup, a replica, a free page - can be read afterwards:

- a **data key** per user (32 random bytes) encrypts that user's secrets with AES-GCM. The
  associated data binds each ciphertext to its user, memory and reference, so a row copied to
  another memory or another user does not open;
- a **store key** wraps every data key (AES-GCM again, bound to the user id). It is kept outside
  the database: `GRAPHMEM_VAULT_KEY` (base64 of 32 bytes), else a file - `GRAPHMEM_VAULT_KEY_FILE`
  or `<data_dir>/vault.key` - created with mode 0600 on first use. A backup holding both the
  database and the key file holds the secrets: keep them apart.

`rotate_store_key` re-wraps every data key under a new store key in one transaction; the old
key file is kept, renamed with the date, until the operator deletes it.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import secrets as _random
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from graphmem.errors import StoreUnavailableError
from graphmem.guard.policy import SealedItem
from graphmem.stores.records import SecretRow, VaultRecords

KEY_BYTES = 32
NONCE_BYTES = 12
KEY_FILE = "vault.key"


class VaultKeyError(StoreUnavailableError):
    """The store key is missing, malformed, or not the one the data keys were wrapped with.
    The message says which, and never holds key material; the interfaces report it as an
    unavailable store, never as a traceback."""


@dataclass(frozen=True)
class StoreKey:
    key: bytes
    source: str  # "environment" or the file's path: for messages, never the key

    @property
    def key_id(self) -> str:
        """Names the key in each wrapped row, so a wrong key is told apart from a bad row."""
        return hashlib.sha256(b"graphmem-vault-key-id\0" + self.key).hexdigest()[:16]

    def __repr__(self) -> str:
        return f"StoreKey(key_id={self.key_id!r}, source={self.source!r})"


def _b64(b: bytes) -> str:
    return base64.b64encode(b).decode("ascii")


def _unb64(s: str) -> bytes:
    return base64.b64decode(s.encode("ascii"), validate=True)


def parse_key(text: str, source: str) -> StoreKey:
    try:
        key = _unb64(text.strip())
    except ValueError:
        raise VaultKeyError(f"the vault key from {source} is not base64") from None
    if len(key) != KEY_BYTES:
        raise VaultKeyError(f"the vault key from {source} must be {KEY_BYTES} bytes (base64)")
    return StoreKey(key, source)


def key_path(data_dir: Path, key_file: Path | None) -> Path:
    return Path(key_file).expanduser() if key_file else Path(data_dir) / KEY_FILE


def write_key_file(path: Path, key: bytes) -> None:
    """Create `path` holding the key, readable by its owner only; never overwrites."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(_b64(key) + "\n")


def load_store_key(env_key: str | None, path: Path, *, create: bool = True) -> StoreKey:
    """The store key: the environment's if given, else the file's (created if missing)."""
    if env_key:
        return parse_key(env_key, "GRAPHMEM_VAULT_KEY")
    if not path.exists():
        if not create:
            raise VaultKeyError(f"no vault key at {path}: nothing has been vaulted in this store")
        # another process may have created it first: then use theirs
        with contextlib.suppress(FileExistsError):
            write_key_file(path, _random.token_bytes(KEY_BYTES))
    if path.stat().st_mode & 0o077:
        raise VaultKeyError(f"the vault key file {path} is readable by others: chmod 600 it")
    return parse_key(path.read_text("ascii"), str(path))


def _user_ad(user_id: str) -> bytes:
    return b"graphmem-vault-dk\0" + user_id.encode()


def _secret_ad(user_id: str, memory_id: str, ref: str) -> bytes:
    return b"graphmem-vault\0" + b"\0".join(x.encode() for x in (user_id, memory_id, ref))


def wrap(store: StoreKey, user_id: str, data_key: bytes) -> str:
    nonce = _random.token_bytes(NONCE_BYTES)
    return _b64(nonce + AESGCM(store.key).encrypt(nonce, data_key, _user_ad(user_id)))


def unwrap(store: StoreKey, user_id: str, key_id: str, wrapped: str) -> bytes:
    if key_id != store.key_id:
        raise VaultKeyError(
            f"the vault's data keys were wrapped with store key {key_id}, but the key from"
            f" {store.source} is {store.key_id}: restore the matching vault key"
        )
    raw = _unb64(wrapped)
    try:
        return AESGCM(store.key).decrypt(raw[:NONCE_BYTES], raw[NONCE_BYTES:], _user_ad(user_id))
    except InvalidTag:
        raise VaultKeyError(f"a data key does not open with the key from {store.source}") from None


@dataclass(frozen=True)
class Revealed:
    ref: str
    type: str
    value: str

    def __repr__(self) -> str:  # never print the value
        return f"Revealed(ref={self.ref!r}, type={self.type!r})"


class Vault:
    """Seals secrets for the records store and opens them for their owner."""

    def __init__(self, records: VaultRecords, env_key: str | None, path: Path) -> None:
        self.records = records
        self._env_key = env_key
        self.path = path
        self._store: StoreKey | None = None

    @property
    def store_key(self) -> StoreKey:
        """Loaded (or created) on first use, so a store that never vaults has no key file."""
        if self._store is None:
            self._store = load_store_key(self._env_key, self.path)
        return self._store

    def _data_key(self, user_id: str, *, create: bool) -> bytes | None:
        got = self.records.vault_key(user_id)
        if got is None:
            if not create:
                return None
            dk = _random.token_bytes(KEY_BYTES)
            got = self.records.vault_add_key(
                user_id, self.store_key.key_id, wrap(self.store_key, user_id, dk)
            )
        return unwrap(self.store_key, user_id, *got)

    def seal(self, user_id: str, sealed: Iterable[tuple[str, SealedItem]]) -> list[SecretRow]:
        """Encrypt (memory_id, item) pairs into rows for the write's transaction. The data key
        is created first, in its own transaction: a key with no secrets is harmless."""
        items = list(sealed)
        if not items:
            return []
        dk = AESGCM(self._data_key(user_id, create=True) or b"")
        rows = []
        for memory_id, item in items:
            nonce = _random.token_bytes(NONCE_BYTES)
            ct = dk.encrypt(nonce, item.value.encode(), _secret_ad(user_id, memory_id, item.ref))
            rows.append(SecretRow(user_id, memory_id, item.ref, item.type, _b64(nonce), _b64(ct)))
        return rows

    def rotate(self, new_key: bytes | None = None) -> dict[str, object]:
        """Re-wrap every data key under a new store key (rotate_store_key); the next call
        loads the new key."""
        report = rotate_store_key(self.records, self._env_key, self.path, new_key)
        self._store = None
        return report

    def open(self, user_id: str, memory_id: str) -> list[Revealed]:
        """The memory's secrets in clear, for its owner only (the caller checks ownership)."""
        rows = self.records.vault_secrets(user_id, memory_id)
        if not rows:
            return []
        key = self._data_key(user_id, create=False)
        if key is None:
            return []
        dk = AESGCM(key)
        out = []
        for r in rows:
            try:
                value = dk.decrypt(
                    _unb64(r.nonce), _unb64(r.ciphertext), _secret_ad(user_id, memory_id, r.ref)
                )
            except InvalidTag:
                raise VaultKeyError(f"secret {r.ref} of memory {memory_id} does not open") from None
            out.append(Revealed(r.ref, r.type, value.decode()))
        return out


def rotate_store_key(
    records: VaultRecords, env_key: str | None, path: Path, new_key: bytes | None = None
) -> dict[str, object]:
    """Re-wrap every data key under a new store key, all in one transaction.

    With a key file: the new key is written beside it first (`vault.key.new`), the rows are
    re-wrapped, then the old file is renamed `vault.key.<UTC time>.old` and the new one takes
    its place, so a crash at any step leaves a key that opens the rows (the old, or the new
    beside it). With the key in the environment there is no file to replace: refused, the
    operator generates a key and re-runs with the file (docs/security.md).
    """
    if env_key:
        raise VaultKeyError(
            "the vault key comes from GRAPHMEM_VAULT_KEY: rotate with a key file"
            " (unset it and set GRAPHMEM_VAULT_KEY_FILE), or re-wrap offline"
        )
    old = load_store_key(None, path, create=False)
    new = StoreKey(new_key or _random.token_bytes(KEY_BYTES), str(path))
    rows = records.vault_keys()
    rewrapped = [(u, new.key_id, wrap(new, u, unwrap(old, u, k, w))) for u, k, w in rows]
    pending = path.with_name(path.name + ".new")
    pending.unlink(missing_ok=True)
    write_key_file(pending, new.key)
    records.vault_rewrap(rewrapped)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    backup = path.with_name(f"{path.name}.{stamp}.old")
    path.rename(backup)
    pending.rename(path)
    return {
        "rewrapped": len(rewrapped),
        "key_id": new.key_id,
        "previous_key_id": old.key_id,
        "previous_key_file": str(backup),
    }


__all__ = [
    "KEY_FILE",
    "Revealed",
    "StoreKey",
    "Vault",
    "VaultKeyError",
    "key_path",
    "load_store_key",
    "rotate_store_key",
]
