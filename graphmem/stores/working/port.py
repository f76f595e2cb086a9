"""Working memory as stored: one session's value and the port its adapters implement.

`WorkingMemoryStore` is the port. `InProcessWorkingMemory` (`in_process`) is the embedded
adapter (a dict and a lock; gone when the process stops) and `RedisWorkingMemory` (`redis`) the
shared one, for several server processes or restarts. What may change in a session, and how a
patch merges, is the core's (graphmem.domain.working); a store only runs that merge inside its
atomic read-modify-write, so two concurrent patches never lose each other's changes.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

SLOT_KINDS = ("names", "numbers", "preferences")


@dataclass
class WorkingMemory:
    """One session's working memory as stored. Times are epoch seconds."""

    session_id: str
    task_context: str = ""
    recent_turns: list[str] = field(default_factory=list)
    slots: dict[str, dict[str, Any]] = field(default_factory=lambda: {k: {} for k in SLOT_KINDS})
    updated_at: float = 0.0
    expires_at: float = 0.0
    # Long-term memories preloaded at session start (id, summary, type, why): read-only here.
    long_term: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps(
            {
                "session_id": self.session_id,
                "task_context": self.task_context,
                "recent_turns": self.recent_turns,
                "slots": self.slots,
                "updated_at": self.updated_at,
                "expires_at": self.expires_at,
                "long_term": self.long_term,
            },
            ensure_ascii=False,
        )

    @classmethod
    def from_json(cls, raw: str | bytes) -> WorkingMemory:
        d = json.loads(raw)
        slots = {k: dict(d.get("slots", {}).get(k, {})) for k in SLOT_KINDS}
        return cls(
            session_id=d["session_id"],
            task_context=d.get("task_context", ""),
            recent_turns=list(d.get("recent_turns", [])),
            slots=slots,
            updated_at=float(d.get("updated_at", 0.0)),
            expires_at=float(d.get("expires_at", 0.0)),
            long_term=list(d.get("long_term", [])),
        )

    def to_dict(self, now: float | None = None) -> dict[str, Any]:
        """The shape tools and resources return: structured, with times in ISO-8601."""
        now = time.time() if now is None else now
        return {
            "session_id": self.session_id,
            "exists": self.updated_at > 0,
            "task_context": self.task_context,
            "recent_turns": list(self.recent_turns),
            "slots": {k: dict(self.slots.get(k, {})) for k in SLOT_KINDS},
            "updated_at": _iso(self.updated_at),
            "expires_at": _iso(self.expires_at),
            "expires_in_s": max(0, math.ceil(self.expires_at - now)) if self.expires_at else None,
            "long_term": [dict(m) for m in self.long_term],
        }


def _iso(ts: float) -> str | None:
    return datetime.fromtimestamp(ts, UTC).isoformat() if ts else None


class WorkingMemoryStore(Protocol):
    """The port. `update` is the only write: an atomic read-modify-write of one session."""

    backend: str
    ttl_seconds: float

    def get(self, user_id: str, session_id: str) -> WorkingMemory | None:
        """The live working memory, or None if there is none or it has expired."""

    def update(
        self,
        user_id: str,
        session_id: str,
        change: Callable[[WorkingMemory | None], WorkingMemory],
    ) -> WorkingMemory:
        """Apply `change` to the current value atomically, store the result, refresh the TTL.

        If `change` raises, nothing is stored.
        """

    def delete(self, user_id: str, session_id: str) -> bool: ...

    def delete_user(self, user_id: str) -> int: ...

    def count_user(self, user_id: str) -> int: ...

    def health(self) -> dict[str, Any]: ...

    def close(self) -> None: ...
