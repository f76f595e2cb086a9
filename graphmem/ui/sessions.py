"""Logins to the inspector: a bearer token of the MCP server, traded once for a session.

The token is checked against the same table the MCP server uses (graphmem.mcp.identity), so
an operator token and an agent token mean here what they mean there. The browser then holds
only a random session id, in a cookie that scripts cannot read (HttpOnly) and that no other
site's page can make the browser send (SameSite=Strict); the token itself is never stored, in
the cookie or anywhere else. Every form carries the session's CSRF token, compared in constant
time on each POST, as a second fence should a browser ignore SameSite.

Sessions live in memory: restarting the inspector logs everyone out, which is what a local
tool should do.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from dataclasses import dataclass, field

from graphmem.domain.actor import Actor
from graphmem.mcp.identity import TokenInfo

COOKIE = "graphmem_ui"
LOGIN_COOKIE = "graphmem_ui_login"
"""Before a login there is no session to hold a CSRF token, so the login form's token is a
random value in a short-lived cookie of its own, echoed by the form (double submit)."""
IDLE_SECONDS = 8 * 3600
MAX_SESSIONS = 1000


class Refused(Exception):
    """A request the rules turn away, with the HTTP status and the message the page shows."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class Session:
    """One logged-in browser: who it acts as, its CSRF token and a message for the next page."""

    sid: str
    info: TokenInfo
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    last_seen: float = field(default_factory=time.monotonic)
    flash: str = ""

    @property
    def actor(self) -> Actor:
        """The actor the service's audit rows and permission checks see."""
        return Actor(self.info.label, self.info.role)

    @property
    def is_operator(self) -> bool:
        return self.info.role == "operator"

    def may_read(self, user_id: str) -> bool:
        """The MCP server's tenant rule: an agent token acts for its own user only; an
        operator runs the service for everyone and may look at any user."""
        return self.is_operator or user_id == self.info.user

    def take_flash(self) -> str:
        message, self.flash = self.flash, ""
        return message


def csrf_matches(expected: str, given: str | None) -> bool:
    """Constant-time comparison, so the time of a refusal says nothing about the token."""
    return bool(given) and hmac.compare_digest(expected.encode(), str(given).encode())


class SessionStore:
    """The open sessions by id; idle ones expire, and the oldest go first past MAX_SESSIONS."""

    def __init__(self, idle_seconds: float = IDLE_SECONDS, limit: int = MAX_SESSIONS) -> None:
        self._sessions: dict[str, Session] = {}
        self._idle = idle_seconds
        self._limit = limit
        self._lock = threading.Lock()

    def open(self, info: TokenInfo) -> Session:
        session = Session(secrets.token_urlsafe(32), info)
        with self._lock:
            self._expire()
            while len(self._sessions) >= self._limit:
                oldest = min(self._sessions.values(), key=lambda s: s.last_seen)
                del self._sessions[oldest.sid]
            self._sessions[session.sid] = session
        return session

    def get(self, sid: str | None) -> Session | None:
        if not sid:
            return None
        with self._lock:
            session = self._sessions.get(sid)
            if session is None:
                return None
            now = time.monotonic()
            if now - session.last_seen > self._idle:
                del self._sessions[sid]
                return None
            session.last_seen = now
            return session

    def close(self, sid: str) -> None:
        with self._lock:
            self._sessions.pop(sid, None)

    def _expire(self) -> None:
        now = time.monotonic()
        for sid in [s.sid for s in self._sessions.values() if now - s.last_seen > self._idle]:
            del self._sessions[sid]

    def __len__(self) -> int:
        return len(self._sessions)


__all__ = ["COOKIE", "LOGIN_COOKIE", "Refused", "Session", "SessionStore", "csrf_matches"]
