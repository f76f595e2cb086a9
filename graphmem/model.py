"""The typed records every layer passes around, and the validation of user input.

Validation lives here, next to the types, so the service, the CLI and the MCP server reject the
same inputs with the same messages.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any

from graphmem.errors import ValidationError


class MemoryType(StrEnum):
    FACT = "fact"
    PREFERENCE = "preference"
    EVENT = "event"
    TASK = "task"


class Source(StrEnum):
    USER = "user"
    AGENT = "agent"
    DOCUMENT = "document"
    SYSTEM = "system"


class Status(StrEnum):
    ACTIVE = "active"
    ARCHIVED = "archived"
    QUARANTINED = "quarantined"
    SUPERSEDED = "superseded"  # replaced by a newer version; kept for history (graphmem.temporal)


CHANNELS = ("vector", "keyword", "recency", "frequency")


def utcnow() -> datetime:
    return datetime.now(UTC)


def new_id() -> str:
    return str(uuid.uuid4())


@dataclass
class Memory:
    """One long-term memory: the canonical row in the records store."""

    id: str
    user_id: str
    content: str
    memory_type: MemoryType = MemoryType.FACT
    summary: str = ""
    session_id: str | None = None
    source: Source = Source.USER
    confidence: float = 1.0
    metadata: dict[str, Any] = field(default_factory=dict)
    access_count: int = 0
    last_access_at: datetime | None = None
    decay_score: float = 1.0
    status: Status = Status.ACTIVE
    expires_at: datetime | None = None
    created_at: datetime = field(default_factory=utcnow)
    updated_at: datetime = field(default_factory=utcnow)
    # When it was true in the world (created_at is when it was recorded); valid_to is set when
    # a newer memory supersedes it. `slot` is the (subject|attribute) it gives a value for.
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    slot: str | None = None
    # Not stored: set on what a write returns when the write was merged into this existing
    # memory (its id), so the caller learns that nothing new was stored.
    merged_into: str | None = None

    @property
    def valid_since(self) -> datetime:
        """valid_from, or created_at for memories stored before validity existed."""
        return self.valid_from or self.created_at

    def valid_at(self, when: datetime) -> bool:
        return self.valid_since <= when and (self.valid_to is None or when < self.valid_to)

    @property
    def embedding_id(self) -> str:
        """The vector point id. Equal to the memory id so a projection can never drift from it."""
        return self.id

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "user_id": self.user_id,
            "session_id": self.session_id,
            "content": self.content,
            "summary": self.summary,
            "memory_type": self.memory_type.value,
            "source": self.source.value,
            "confidence": self.confidence,
            "metadata": self.metadata,
            "access_count": self.access_count,
            "last_access_at": _iso(self.last_access_at),
            "decay_score": self.decay_score,
            "status": self.status.value,
            "expires_at": _iso(self.expires_at),
            "created_at": _iso(self.created_at),
            "updated_at": _iso(self.updated_at),
            "valid_from": _iso(self.valid_since),
            "valid_to": _iso(self.valid_to),
            "slot": self.slot,
            **({"merged_into": self.merged_into} if self.merged_into else {}),
        }


@dataclass
class Hit:
    """A ranked search result: the memory, its final score and why it got that score."""

    memory: Memory
    score: float
    scores: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        d = self.memory.to_dict()
        d["score"] = round(self.score, 6)
        d["scores"] = {k: round(v, 6) for k, v in self.scores.items()}
        return d


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


# ---------------------------------------------------------------- validation of user input

_TIME_RANGE = re.compile(r"^\s*(\d+)\s*([mhdwy])\s*$", re.IGNORECASE)
_UNIT_SECONDS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "y": 365 * 86400}


def parse_time_range(value: str | None) -> timedelta | None:
    """'24h', '7d', '30d', '2w', '15m', '1y' -> timedelta; None or '' means no limit."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ValidationError("time_range", "must be a string like '24h', '7d' or '30d'")
    m = _TIME_RANGE.match(value)
    if not m or int(m.group(1)) <= 0:
        raise ValidationError(
            "time_range", f"{value!r} is not a range like '15m', '24h', '7d', '2w' or '1y'"
        )
    return timedelta(seconds=int(m.group(1)) * _UNIT_SECONDS[m.group(2).lower()])


def parse_memory_type(value: str | MemoryType | None, *, allow_none: bool = False) -> MemoryType:
    if value is None and allow_none:
        return None  # type: ignore[return-value]
    try:
        return MemoryType(str(value).strip().lower())
    except ValueError:
        allowed = ", ".join(t.value for t in MemoryType)
        raise ValidationError("memory_type", f"{value!r} is not one of {allowed}") from None


def parse_source(value: str | Source | None) -> Source:
    if value is None:
        return Source.USER
    try:
        return Source(str(value).strip().lower())
    except ValueError:
        allowed = ", ".join(s.value for s in Source)
        raise ValidationError("source", f"{value!r} is not one of {allowed}") from None


def check_content(value: Any, max_chars: int, field_name: str = "content") -> str:
    if not isinstance(value, str):
        raise ValidationError(field_name, "must be a string")
    text = value.strip()
    if not text:
        raise ValidationError(field_name, "must not be empty")
    if len(text) > max_chars:
        raise ValidationError(field_name, f"is {len(text)} characters; the limit is {max_chars}")
    return text


def check_user(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError("user_id", "must be a non-empty string")
    if len(value) > 128:
        raise ValidationError("user_id", "must be at most 128 characters")
    return value.strip()


def check_top_k(value: Any, limit: int = 200) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            value = int(str(value))
        except ValueError:
            raise ValidationError("top_k", f"{value!r} is not an integer") from None
    if value <= 0:
        raise ValidationError("top_k", "must be at least 1")
    if value > limit:
        raise ValidationError("top_k", f"must be at most {limit}")
    return value


def check_metadata(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as e:
            raise ValidationError("metadata", f"is not valid JSON: {e.msg}") from None
    if not isinstance(value, dict):
        raise ValidationError("metadata", "must be a JSON object")
    try:
        encoded = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError) as e:
        raise ValidationError("metadata", f"is not JSON-serialisable: {e}") from None
    if len(encoded) > 16_384:
        raise ValidationError("metadata", "is larger than 16 KiB")
    return value


def check_confidence(value: Any) -> float:
    try:
        f = float(value)
    except (TypeError, ValueError):
        raise ValidationError("confidence", f"{value!r} is not a number") from None
    if not 0.0 <= f <= 1.0:
        raise ValidationError("confidence", "must be between 0 and 1")
    return f


def parse_datetime(value: Any, field_name: str) -> datetime | None:
    """Accept an aware or naive ISO-8601 string or datetime; naive means UTC."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        dt = value
    else:
        try:
            dt = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
        except ValueError:
            raise ValidationError(field_name, f"{value!r} is not an ISO-8601 date/time") from None
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)
