"""Who is calling: bearer tokens that map to a user, kept only as SHA-256 hashes.

Over HTTP the token is the identity. Tokens come from a file (`{"<sha256 hex>": "user_id"}` or
lines of `<sha256 hex> user_id`) and/or from the GRAPHMEM_TOKENS environment variable
(`token=user` pairs, hashed as they are read; `sha256:<hex>=user` for pre-hashed entries), so
the server never holds a plaintext token at rest and none is written into code. Tokens are long
random strings, so an unsalted SHA-256 is enough: there is nothing to brute-force.

Lookups compare the presented token's hash against every known hash with
`hmac.compare_digest`, without stopping early, so response time does not reveal how close a
guess was.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import re
import secrets
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphmem.errors import ValidationError
from graphmem.model import check_user

_HEX64 = re.compile(r"^[0-9a-f]{64}$")
TOKEN_PREFIX = "gm_"


def hash_token(token: str) -> str:
    """The stored form of a token: lower-case SHA-256 hex of its UTF-8 bytes."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def generate_token() -> str:
    """A new random token (256 bits); the prefix makes it recognisable in a leaked log."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def _check_hash(value: str, where: str) -> str:
    h = value.strip().lower()
    if not _HEX64.match(h):
        raise ValidationError(where, f"{value[:16]!r}… is not a SHA-256 hex digest")
    return h


def parse_token_file(path: Path) -> dict[str, str]:
    """{hash: user} from a JSON object, or from lines `<sha256> <user>` (# starts a comment)."""
    text = path.read_text("utf-8")
    out: dict[str, str] = {}
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise ValidationError(f"tokens file {path}", f"is not valid JSON: {e.msg}") from None
        for h, user in data.items():
            if not isinstance(user, str):
                raise ValidationError(f"tokens file {path}", f"entry {h[:12]}… must map to a user")
            out[_check_hash(h, f"tokens file {path}")] = check_user(user)
        return out
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split(None, 1)
        if len(parts) != 2:
            raise ValidationError(f"tokens file {path} line {n}", "must be '<sha256> <user>'")
        out[_check_hash(parts[0], f"tokens file {path} line {n}")] = check_user(parts[1])
    return out


def parse_env_tokens(value: str) -> dict[str, str]:
    """{hash: user} from `token=user` pairs separated by commas, whitespace or newlines.

    `sha256:<hex>=user` entries are taken as already hashed.
    """
    out: dict[str, str] = {}
    for n, item in enumerate(re.split(r"[,\s]+", value.strip()), 1):
        if not item:
            continue
        token, sep, user = item.rpartition("=")
        if not sep or not token or not user:
            raise ValidationError(
                "GRAPHMEM_TOKENS", f"entry {n} must look like token=user (got no '=')"
            )
        if token.startswith("sha256:"):
            h = _check_hash(token[len("sha256:") :], f"GRAPHMEM_TOKENS entry {n}")
        else:
            if len(token) < 16:
                raise ValidationError(
                    "GRAPHMEM_TOKENS", f"entry {n}: a token must be at least 16 characters"
                )
            h = hash_token(token)
        out[h] = check_user(user)
    return out


def add_token(path: Path, user_id: str) -> str:
    """Create a token for `user_id`, store its hash in `path` (mode 0600) and return it.

    The plaintext token is returned once and stored nowhere. The file is replaced atomically, so
    a server reading it concurrently sees either the old or the new table.
    """
    user_id = check_user(user_id)
    table = parse_token_file(path) if path.exists() else {}
    token = generate_token()
    table[hash_token(token)] = user_id
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tokens-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(table, f, indent=2, sort_keys=True)
            f.write("\n")
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
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
        self._file: dict[str, str] = {}
        self._mtime: float | None = None
        self._checked = 0.0
        self._reload_every = reload_every
        self._lock = threading.Lock()
        self._load_file()

    @classmethod
    def from_mapping(cls, hashed: Mapping[str, str]) -> TokenTable:
        table = cls()
        table._env = {_check_hash(h, "tokens"): check_user(u) for h, u in hashed.items()}
        return table

    def _load_file(self) -> None:
        if self.path is None:
            return
        try:
            mtime = self.path.stat().st_mtime
        except FileNotFoundError:
            self._file, self._mtime = {}, None
            return
        if mtime != self._mtime:
            self._file = parse_token_file(self.path)
            self._mtime = mtime

    def _maybe_reload(self) -> None:
        now = time.monotonic()
        if self.path is None or now - self._checked < self._reload_every:
            return
        with self._lock:
            self._checked = now
            # A half-edited file keeps the last good table rather than locking everyone out.
            with contextlib.suppress(OSError, ValidationError):
                self._load_file()

    def user_for(self, token: str) -> str | None:
        """The user this token belongs to, or None. Constant time in the token's value."""
        if not token:
            return None
        self._maybe_reload()
        presented = hash_token(token).encode()
        found: str | None = None
        for h, user in (*self._file.items(), *self._env.items()):
            if hmac.compare_digest(presented, h.encode()) and found is None:
                found = user
        return found

    def __len__(self) -> int:
        return len(self._file) + len(self._env)

    def users(self) -> list[str]:
        return sorted({*self._file.values(), *self._env.values()})


def token_verifier(table: TokenTable) -> Any:
    """A fastmcp TokenVerifier whose accepted tokens carry the graphmem user in their claims.

    Imported lazily so the CLI's other commands never pay for importing fastmcp.
    """
    from fastmcp.server.auth import AccessToken, TokenVerifier

    class GraphmemTokenVerifier(TokenVerifier):
        """Maps a bearer token to a user through the hashed token table."""

        async def verify_token(self, token: str) -> AccessToken | None:
            user = table.user_for(token)
            if user is None:
                return None
            return AccessToken(
                token=token,
                client_id=user,
                scopes=[],
                expires_at=None,
                claims={"graphmem_user": user},
            )

    return GraphmemTokenVerifier()


__all__ = [
    "TokenTable",
    "add_token",
    "generate_token",
    "hash_token",
    "parse_env_tokens",
    "parse_token_file",
    "token_verifier",
]
