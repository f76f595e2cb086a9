"""Working memory: the short-lived, structured state of one conversation.

Long-term memories are rows that live until someone forgets them; working memory is the scratch
pad an agent keeps for the session it is in: what the task is, what the last few turns said,
and the names, numbers and preferences that came up. It is keyed by (user_id, session_id),
structured rather than raw text so an agent can patch one slot without rewriting the rest, and
it expires on its own (a TTL refreshed by every write) so abandoned sessions cost nothing.

`WorkingMemoryStore` is the port. `InProcessWorkingMemory` is the embedded adapter (a dict and a
lock; gone when the process stops) and `RedisWorkingMemory` the shared one, for several server
processes or restarts. Both apply the same pure `apply_patch` inside one atomic
read-modify-write, so two concurrent patches never lose each other's changes.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Annotated, Any, Protocol
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict, Field

from graphmem import model
from graphmem.errors import StoreUnavailableError, ValidationError
from graphmem.stores.redis_health import redis_health

MAX_TURNS = 5
"""Turn summaries kept; older ones fall off the front. The seed asks for the last 3-5 turns."""
MAX_TASK_CONTEXT = 2000
MAX_TURN_CHARS = 500
MAX_SLOTS_PER_KIND = 32
MAX_SLOT_KEY = 64
MAX_SLOT_VALUE = 300
MAX_SESSION_ID = 128
SLOT_KINDS = ("names", "numbers", "preferences")

SlotKey = Annotated[str, Field(min_length=1, max_length=MAX_SLOT_KEY)]
SlotText = Annotated[str, Field(max_length=MAX_SLOT_VALUE)]
SlotNumber = Annotated[float, Field(allow_inf_nan=False)]


class SlotsPatch(BaseModel):
    """Entity slots to set. A key mapped to null removes that slot; keys not named stay as they
    are."""

    model_config = ConfigDict(extra="forbid")

    names: dict[SlotKey, SlotText | None] | None = Field(
        None,
        description="People, places, products, projects by role, e.g."
        ' {"manager": "Priya", "project": "Atlas"}.',
    )
    numbers: dict[SlotKey, int | SlotNumber | SlotText | None] | None = Field(
        None,
        description='Quantities, amounts, dates, ids, e.g. {"budget_eur": 5000,'
        ' "deadline": "2024-06-30", "order_id": "A-1138"}.',
    )
    preferences: dict[SlotKey, SlotText | None] | None = Field(
        None,
        description='How the user wants things for this task, e.g. {"tone": "brief",'
        ' "language": "German"}.',
    )


class WorkingMemoryPatch(BaseModel):
    """A change to one session's working memory. Every field is optional; fields left out are
    kept as they are."""

    model_config = ConfigDict(extra="forbid")

    task_context: str | None = Field(
        None,
        max_length=MAX_TASK_CONTEXT,
        description="What the user is trying to get done right now, in one or two sentences."
        ' Replaces the previous task context; "" clears it.',
    )
    add_turns: list[Annotated[str, Field(min_length=1, max_length=MAX_TURN_CHARS)]] | None = Field(
        None,
        max_length=MAX_TURNS,
        description="One-line summaries of the latest turns, oldest first, appended to"
        f" recent_turns; only the last {MAX_TURNS} are kept.",
    )
    recent_turns: list[Annotated[str, Field(max_length=MAX_TURN_CHARS)]] | None = Field(
        None,
        max_length=MAX_TURNS,
        description="Replaces the whole list of turn summaries (use [] to clear it); applied"
        " before add_turns.",
    )
    slots: SlotsPatch | None = Field(None, description="Entity slots to set or remove.")
    clear: bool = Field(
        False, description="Start from an empty working memory before applying the rest."
    )


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


def empty(session_id: str) -> WorkingMemory:
    return WorkingMemory(session_id=session_id)


def _iso(ts: float) -> str | None:
    return datetime.fromtimestamp(ts, UTC).isoformat() if ts else None


def check_session_id(value: Any) -> str:
    """The same rule as a long-term memory's session id, so one id works in both."""
    return model.check_session_id(value, MAX_SESSION_ID)


def check_patch_text(patch: WorkingMemoryPatch) -> None:
    """Every text of a patch under the rule long-term memories follow (no control characters,
    no lone surrogates): working memory is handed to the agent verbatim at session start."""
    texts: list[tuple[str, str]] = []
    if patch.task_context is not None:
        texts.append(("content.task_context", patch.task_context))
    for name in ("recent_turns", "add_turns"):
        texts += [(f"content.{name}[{i}]", t) for i, t in enumerate(getattr(patch, name) or [])]
    for kind in SLOT_KINDS:
        for key, value in ((patch.slots and getattr(patch.slots, kind)) or {}).items():
            texts.append((f"content.slots.{kind}", key))
            if isinstance(value, str):
                texts.append((f"content.slots.{kind}.{key[:MAX_SLOT_KEY]}", value))
    for field_name, text in texts:
        model.check_chars(text, field_name)


def apply_patch(
    current: WorkingMemory | None,
    patch: WorkingMemoryPatch,
    session_id: str,
    now: float,
    ttl_seconds: float,
) -> WorkingMemory:
    """The merged working memory after `patch`; raises ValidationError before changing anything.

    Pure: the adapters call it inside their atomic update, so the merge rules are the same
    whichever store holds the data.
    """
    check_patch_text(patch)
    base = empty(session_id) if current is None or patch.clear else current
    turns = list(base.recent_turns) if patch.recent_turns is None else list(patch.recent_turns)
    turns = [t.strip() for t in [*turns, *(patch.add_turns or [])] if t.strip()][-MAX_TURNS:]
    slots = {k: dict(base.slots.get(k, {})) for k in SLOT_KINDS}
    if patch.slots is not None:
        for kind in SLOT_KINDS:
            for key, value in (getattr(patch.slots, kind) or {}).items():
                key = key.strip()
                if not key:
                    raise ValidationError(f"content.slots.{kind}", "slot names must not be blank")
                if value is None:
                    slots[kind].pop(key, None)
                else:
                    slots[kind][key] = value.strip() if isinstance(value, str) else value
            if len(slots[kind]) > MAX_SLOTS_PER_KIND:
                raise ValidationError(
                    f"content.slots.{kind}",
                    f"would hold {len(slots[kind])} entries; the limit is {MAX_SLOTS_PER_KIND}"
                    " (remove some with null values)",
                )
    task = base.task_context if patch.task_context is None else patch.task_context.strip()
    return WorkingMemory(
        session_id=session_id,
        task_context=task,
        recent_turns=turns,
        slots=slots,
        updated_at=now,
        expires_at=now + ttl_seconds,
        long_term=list(base.long_term),
    )


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


def patch_session(
    store: WorkingMemoryStore,
    user_id: str,
    session_id: str,
    patch: WorkingMemoryPatch,
    clock: Callable[[], float] = time.time,
) -> WorkingMemory:
    """Validate the ids, then merge `patch` into the session's working memory atomically."""
    session_id = check_session_id(session_id)
    return store.update(
        user_id,
        session_id,
        lambda cur: apply_patch(cur, patch, session_id, clock(), store.ttl_seconds),
    )


class InProcessWorkingMemory:
    """The embedded adapter: a dict guarded by a lock, expiring lazily on access.

    Bounded by `max_sessions`: past it, expired sessions go first, then the ones that would
    expire soonest, so a flood of new sessions cannot exhaust memory.
    """

    backend = "memory"

    def __init__(
        self,
        ttl_seconds: float = 86_400,
        max_sessions: int = 10_000,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if ttl_seconds <= 0:
            raise ValueError("ttl_seconds must be positive")
        self.ttl_seconds = ttl_seconds
        self.max_sessions = max_sessions
        self._clock = clock
        self._data: dict[tuple[str, str], WorkingMemory] = {}
        self._lock = threading.Lock()

    def get(self, user_id: str, session_id: str) -> WorkingMemory | None:
        with self._lock:
            wm = self._data.get((user_id, session_id))
            if wm is not None and wm.expires_at <= self._clock():
                del self._data[(user_id, session_id)]
                return None
            return WorkingMemory.from_json(wm.to_json()) if wm else None

    def update(
        self,
        user_id: str,
        session_id: str,
        change: Callable[[WorkingMemory | None], WorkingMemory],
    ) -> WorkingMemory:
        with self._lock:
            key = (user_id, session_id)
            cur = self._data.get(key)
            if cur is not None and cur.expires_at <= self._clock():
                cur = None
            new = change(WorkingMemory.from_json(cur.to_json()) if cur else None)
            self._data[key] = new
            if len(self._data) > self.max_sessions:
                self._evict()
            return WorkingMemory.from_json(new.to_json())

    def _evict(self) -> None:
        now = self._clock()
        for k in [k for k, v in self._data.items() if v.expires_at <= now]:
            del self._data[k]
        while len(self._data) > self.max_sessions:
            del self._data[min(self._data, key=lambda k: self._data[k].expires_at)]

    def delete(self, user_id: str, session_id: str) -> bool:
        with self._lock:
            return self._data.pop((user_id, session_id), None) is not None

    def delete_user(self, user_id: str) -> int:
        """Every session of a user (erasure); returns how many there were."""
        with self._lock:
            keys = [k for k in self._data if k[0] == user_id]
            for k in keys:
                del self._data[k]
            return len(keys)

    def count_user(self, user_id: str) -> int:
        with self._lock:
            return sum(1 for k in self._data if k[0] == user_id)

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)

    def health(self) -> dict[str, Any]:
        return {"backend": self.backend, "ok": True, "sessions": len(self)}

    def close(self) -> None:
        with self._lock:
            self._data.clear()


class RedisWorkingMemory:
    """The shared adapter: one JSON string per session under an expiring key.

    Updates use WATCH/MULTI (optimistic locking, retried by redis-py on conflict), so concurrent
    patches from several server processes compose instead of overwriting each other.
    """

    backend = "redis"

    def __init__(self, url: str, ttl_seconds: float = 86_400, prefix: str = "graphmem:wm:") -> None:
        import redis

        if ttl_seconds <= 0:
            raise ValueError("ttl_seconds must be positive")
        self.ttl_seconds = ttl_seconds
        self.prefix = prefix
        self._redis = redis.Redis.from_url(
            url, decode_responses=True, socket_timeout=5, socket_connect_timeout=5
        )
        self._errors: tuple[type[Exception], ...] = (redis.ConnectionError, redis.TimeoutError)

    def key(self, user_id: str, session_id: str) -> str:
        # Percent-encoding keeps ':' inside an id from colliding with the separator.
        return f"{self.prefix}{quote(user_id, safe='')}:{quote(session_id, safe='')}"

    def get(self, user_id: str, session_id: str) -> WorkingMemory | None:
        try:
            raw = self._redis.get(self.key(user_id, session_id))
        except self._errors as e:
            raise StoreUnavailableError(f"working memory (redis): {e}") from e
        return WorkingMemory.from_json(raw) if raw else None

    def update(
        self,
        user_id: str,
        session_id: str,
        change: Callable[[WorkingMemory | None], WorkingMemory],
    ) -> WorkingMemory:
        key = self.key(user_id, session_id)
        ttl_ms = max(1, math.ceil(self.ttl_seconds * 1000))

        def txn(pipe: Any) -> WorkingMemory:
            raw = pipe.get(key)
            new = change(WorkingMemory.from_json(raw) if raw else None)
            pipe.multi()
            pipe.set(key, new.to_json(), px=ttl_ms)
            return new

        try:
            return self._redis.transaction(txn, key, value_from_callable=True)
        except self._errors as e:
            raise StoreUnavailableError(f"working memory (redis): {e}") from e

    def delete(self, user_id: str, session_id: str) -> bool:
        try:
            return bool(self._redis.delete(self.key(user_id, session_id)))
        except self._errors as e:
            raise StoreUnavailableError(f"working memory (redis): {e}") from e

    def _user_keys(self, user_id: str) -> list[str]:
        pattern = f"{self.prefix}{quote(user_id, safe='')}:*"
        return list(self._redis.scan_iter(match=pattern, count=500))

    def delete_user(self, user_id: str) -> int:
        """Every session of a user (erasure); returns how many there were."""
        try:
            keys = self._user_keys(user_id)
            return int(self._redis.delete(*keys)) if keys else 0
        except self._errors as e:
            raise StoreUnavailableError(f"working memory (redis): {e}") from e

    def count_user(self, user_id: str) -> int:
        try:
            return len(self._user_keys(user_id))
        except self._errors as e:
            raise StoreUnavailableError(f"working memory (redis): {e}") from e

    def health(self) -> dict[str, Any]:
        return redis_health(self._redis, self.backend)

    def close(self) -> None:
        self._redis.close()


def open_working(
    backend: str = "auto",
    *,
    ttl_seconds: float = 86_400,
    redis_url: str | None = None,
    max_sessions: int = 10_000,
) -> WorkingMemoryStore:
    """Pick the adapter by name, as `open_records` / `open_vectors` do for the core stores.

    "auto" means Redis when a URL is configured (the production stack sets one), otherwise the
    in-process adapter (the embedded default needs no server).
    """
    if backend == "auto":
        backend = "redis" if redis_url else "memory"
    if backend == "redis":
        if not redis_url:
            raise ValidationError("redis_url", "is required when the working backend is redis")
        return RedisWorkingMemory(redis_url, ttl_seconds)
    if backend == "memory":
        return InProcessWorkingMemory(ttl_seconds, max_sessions)
    raise ValidationError("working_backend", f"{backend!r} is not one of auto, memory, redis")


__all__ = [
    "MAX_TURNS",
    "InProcessWorkingMemory",
    "RedisWorkingMemory",
    "SlotsPatch",
    "WorkingMemory",
    "WorkingMemoryPatch",
    "WorkingMemoryStore",
    "apply_patch",
    "check_session_id",
    "open_working",
    "patch_session",
]
