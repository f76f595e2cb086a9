"""Who is calling: bearer tokens that map to a user and a role, kept only as SHA-256 hashes.

Over HTTP the token is the identity. Tokens come from a file (`{"<sha256 hex>": "user_id"}`,
`{"<sha256 hex>": {"user": "user_id", "role": "operator", "label": "ops"}}`, or lines of
`<sha256 hex> user_id`) and/or from the GRAPHMEM_TOKENS environment variable (`token=user` or
`token=user:operator` pairs, hashed as they are read; `sha256:<hex>=user` for pre-hashed
entries), so the server never holds a plaintext token at rest and none is written into code.
Tokens are long random strings, so an unsalted SHA-256 is enough: there is nothing to
brute-force.

A role says what a token may do beyond reading and writing its user's memories. `agent` (the
default, and what every entry without a role is) is what an LLM client gets; `operator` may
also approve or reject quarantined memories, because a writer that could approve its own
quarantined writes would make the memory firewall advisory. A label names the token in audit
rows; by default it is derived from the hash, so it identifies the token without revealing it.

A lookup hashes the presented token and finds that hash in a table keyed by hash, so every
request costs the same whatever the number of tokens (comparing it with every stored hash
took 0.2 ms per request at 200 tokens, and grew with each one). What the timing of that
lookup could tell is how much of the hash of a guess matches a stored hash; SHA-256 of a
256-bit random token gives no way from there to a token, so no guess gets closer by it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import secrets
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from graphmem.domain.actor import ROLES, Role
from graphmem.domain.model import check_user
from graphmem.errors import InvalidInputError
from graphmem.stores.private_files import write_private

_HEX64 = re.compile(r"^[0-9a-f]{64}$")
TOKEN_PREFIX = "gm_"
MAX_LABEL = 64


@dataclass(frozen=True)
class TokenInfo:
    """What a token stands for: its user, its role and the label audit rows show."""

    user: str
    role: Role = "agent"
    label: str = ""


def hash_token(token: str) -> str:
    """The stored form of a token: lower-case SHA-256 hex of its UTF-8 bytes."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def generate_token() -> str:
    """A new random token (256 bits); the prefix makes it recognisable in a leaked log."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def _check_hash(value: str, where: str) -> str:
    h = value.strip().lower()
    if not _HEX64.match(h):
        raise InvalidInputError(where, f"{value[:16]!r}… is not a SHA-256 hex digest")
    return h


def check_role(value: Any, where: str = "role") -> Role:
    if value not in ROLES:
        raise InvalidInputError(where, f"{value!r} is not a role; use one of {', '.join(ROLES)}")
    return cast(Role, value)


def default_label(token_hash: str) -> str:
    """A name for a token that nobody chose: a prefix of its hash. It tells tokens apart in
    the audit log; 48 bits of the hash of a 256-bit random token reveal nothing usable."""
    return f"token:{token_hash[:12]}"


def _info(
    token_hash: str, user: Any, role: Any = "agent", label: Any = None, *, where: str
) -> TokenInfo:
    if label is not None and (not isinstance(label, str) or not 0 < len(label) <= MAX_LABEL):
        raise InvalidInputError(where, f"a label must be a string of 1-{MAX_LABEL} characters")
    return TokenInfo(check_user(user), check_role(role, where), label or default_label(token_hash))


def parse_token_file(path: Path) -> dict[str, TokenInfo]:
    """{hash: TokenInfo} from a JSON object, or from lines `<sha256> <user>` (# starts a
    comment). An entry that maps to a plain user id, as every entry did before roles existed,
    is an agent token."""
    text = path.read_text("utf-8")
    out: dict[str, TokenInfo] = {}
    where = f"tokens file {path}"
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise InvalidInputError(where, f"is not valid JSON: {e.msg}") from None
        for h, entry in data.items():
            key = _check_hash(h, where)
            if isinstance(entry, str):
                out[key] = _info(key, entry, where=where)
            elif isinstance(entry, dict) and isinstance(entry.get("user"), str):
                unknown = set(entry) - {"user", "role", "label"}
                if unknown:
                    raise InvalidInputError(
                        where, f"entry {h[:12]}… has unknown keys {sorted(unknown)}"
                    )
                out[key] = _info(
                    key, entry["user"], entry.get("role", "agent"), entry.get("label"), where=where
                )
            else:
                raise InvalidInputError(where, f"entry {h[:12]}… must map to a user")
        return out
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split(None, 1)
        if len(parts) != 2:
            raise InvalidInputError(f"tokens file {path} line {n}", "must be '<sha256> <user>'")
        key = _check_hash(parts[0], f"tokens file {path} line {n}")
        out[key] = _info(key, parts[1], where=f"tokens file {path} line {n}")
    return out


def parse_env_tokens(value: str) -> dict[str, TokenInfo]:
    """{hash: TokenInfo} from `token=user` pairs separated by commas, whitespace or newlines.

    `sha256:<hex>=user` entries are taken as already hashed; `token=user:operator` (or
    `:agent`) gives the role, agent when absent.
    """
    out: dict[str, TokenInfo] = {}
    for n, item in enumerate(re.split(r"[,\s]+", value.strip()), 1):
        if not item:
            continue
        token, sep, user = item.rpartition("=")
        if not sep or not token or not user:
            raise InvalidInputError(
                "GRAPHMEM_TOKENS", f"entry {n} must look like token=user (got no '=')"
            )
        if token.startswith("sha256:"):
            h = _check_hash(token[len("sha256:") :], f"GRAPHMEM_TOKENS entry {n}")
        else:
            if len(token) < 16:
                raise InvalidInputError(
                    "GRAPHMEM_TOKENS", f"entry {n}: a token must be at least 16 characters"
                )
            h = hash_token(token)
        role: Role = "agent"
        name, colon, suffix = user.rpartition(":")
        if colon and name and suffix in ROLES:
            user, role = name, cast(Role, suffix)
        out[h] = _info(h, user, role, where=f"GRAPHMEM_TOKENS entry {n}")
    return out


def _file_entry(token_hash: str, info: TokenInfo) -> str | dict[str, str]:
    """The tokens-file form of an entry: a plain user id for an agent token with the default
    label (the form every graphmem version reads), an object otherwise."""
    if info.role == "agent" and info.label == default_label(token_hash):
        return info.user
    return {"user": info.user, "role": info.role, "label": info.label}


def add_token(path: Path, user_id: str, *, role: str = "agent", label: str | None = None) -> str:
    """Create a token for `user_id` with `role`, store its hash in `path` (mode 0600) and
    return it.

    The plaintext token is returned once and stored nowhere. The file is replaced atomically, so
    a server reading it concurrently sees either the old or the new table.
    """
    check_role(role, "role")
    token = generate_token()
    h = hash_token(token)
    info = _info(h, user_id, role, label, where="label")
    table = parse_token_file(path) if path.exists() else {}
    table[h] = info
    write_private(
        path, json.dumps({k: _file_entry(k, v) for k, v in sorted(table.items())}, indent=2) + "\n"
    )
    return token


class TokenTable:
    """The hashes the server accepts. Re-reads the file when it changes (checked at most every
    `reload_every` seconds), so `graphmem serve --add-token` works without a restart."""

    def __init__(
        self,
        path: Path | None = None,
        env_value: str | None = None,
        *,
        reload_every: float = 2.0,
    ) -> None:
        self.path = path
        self._env = parse_env_tokens(env_value) if env_value else {}
        self._file: dict[str, TokenInfo] = {}
        self._index: dict[str, TokenInfo] = dict(self._env)
        self._mtime: float | None = None
        self._checked = 0.0
        self._reload_every = reload_every
        self._lock = threading.Lock()
        self._load_file()

    def _load_file(self) -> None:
        if self.path is None:
            return
        try:
            mtime = self.path.stat().st_mtime
        except FileNotFoundError:
            self._file, self._mtime = {}, None
            self._index = dict(self._env)
            return
        if mtime != self._mtime:
            self._file = parse_token_file(self.path)
            self._mtime = mtime
            # the file's entries first, as when both were scanned in that order
            self._index = {**self._env, **self._file}

    def _maybe_reload(self) -> None:
        now = time.monotonic()
        if self.path is None or now - self._checked < self._reload_every:
            return
        with self._lock:
            self._checked = now
            # A half-edited file keeps the last good table rather than locking everyone out.
            with contextlib.suppress(OSError, InvalidInputError):
                self._load_file()

    def identify(self, token: str) -> TokenInfo | None:
        """What this token stands for, or None; one hash and one lookup, however many
        tokens there are (see the module docstring for why a lookup by hash is safe)."""
        if not token:
            return None
        self._maybe_reload()
        return self._index.get(hash_token(token))

    def user_for(self, token: str) -> str | None:
        """The user this token belongs to, or None."""
        info = self.identify(token)
        return info.user if info else None

    def __len__(self) -> int:
        return len(self._file) + len(self._env)

    def users(self) -> list[str]:
        return sorted({i.user for i in (*self._file.values(), *self._env.values())})


__all__ = [
    "TokenInfo",
    "TokenTable",
    "add_token",
    "check_role",
    "default_label",
    "generate_token",
    "hash_token",
    "parse_env_tokens",
    "parse_token_file",
]
