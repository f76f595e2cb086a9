"""The typed records every layer passes around, and the validation of user input.

Validation lives here, next to the types, so the service, the CLI and the MCP server reject the
same inputs with the same messages.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any

from graphmem.errors import InvalidInputError


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


class Kind(StrEnum):
    """What a record is: something a user or agent said (a memory), a chunk of a document
    or wiki page (graphmem.documents), or an image with its caption and the text read from it
    (graphmem.images). All live in one store and one recall."""

    MEMORY = "memory"
    DOCUMENT = "document"
    IMAGE = "image"


class Status(StrEnum):
    ACTIVE = "active"
    ARCHIVED = "archived"
    QUARANTINED = "quarantined"
    SUPERSEDED = "superseded"  # replaced by a newer version; kept for history (domain.temporal)


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
    # Scopes inside the user (as mem0 has them): the agent that keeps the memory and the run
    # (one task or episode) it came from. Between users isolation is absolute; between agents
    # and runs of one user these are filters a caller may apply or leave off.
    agent_id: str | None = None
    run_id: str | None = None
    kind: Kind = Kind.MEMORY
    # Not stored: set on what a write returns when the write was merged into this existing
    # memory (its id), so the caller learns that nothing new was stored.
    merged_into: str | None = None
    # Where the memory falls in its user's write order (the records store's insertion
    # sequence): None until stored. Order is (created_at, seq): equal timestamps keep the
    # order of the writes. Not part of a memory's value, so not compared.
    seq: int | None = field(default=None, compare=False, repr=False)

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
            "agent_id": self.agent_id,
            "run_id": self.run_id,
            "kind": self.kind.value,
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

MAX_METADATA_BYTES = 16_384
"""Serialised (UTF-8 JSON) size limit of one memory's metadata. The firewall screens every key
and value of a metadata object, so this bound is also what bounds that screening's cost."""
MAX_METADATA_DEPTH = 8
"""Nesting limit of metadata objects and arrays: deep enough for any real record, shallow
enough that no serialiser or JSON parser downstream can run out of stack on it."""
MAX_METADATA_INT = 2**63 - 1
"""Metadata integers must fit in 64 bits: MySQL's JSON type and most clients keep larger ones
only as approximate doubles, so the same memory would read back differently per store."""
MAX_TIME_RANGE_DAYS = 36_500
"""The longest time_range accepted (100 years); longer windows cannot be represented as dates
before now, and nothing stored is older anyway."""

MIN_YEAR, MAX_YEAR = 1, 9998
"""Dates (created_at, valid_from, as_of, ...) are kept a year inside what Python's datetime can
hold, so adding an expiry or a window to one can never overflow."""

# C0 control characters other than tab, newline and carriage return: a NUL truncates strings in
# C libraries and terminals, the rest are invisible and only ever sent by mistake or by attack.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
# Characters that render as nothing although they are neither whitespace nor format (Cf)
# characters: Hangul fillers, the combining grapheme joiner and the blank Braille pattern.
_INVISIBLE = frozenset("\u034f\u115f\u1160\u3164\uffa0\u2800")


def check_chars(text: str, field_name: str) -> str:
    """Refuse text that cannot be stored and displayed faithfully: C0 control characters
    (except tab, newline, carriage return) and lone surrogates, which are not valid Unicode
    and fail on the first UTF-8 encode in a store."""
    m = _CONTROL.search(text)
    if m:
        raise InvalidInputError(
            field_name,
            f"contains the control character U+{ord(m.group()):04X}; only tab, newline and"
            " carriage return are allowed",
        )
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise InvalidInputError(
            field_name, f"is not valid Unicode (lone surrogate U+{ord(text[e.start]):04X})"
        ) from None
    return text


def is_visible(text: str) -> bool:
    """True if `text` has at least one character that shows: zero-width and other format
    characters (U+200B, U+FEFF, ...) and whitespace alone make an empty-looking memory that
    still matches nothing and everything."""
    return any(
        not ch.isspace() and ch not in _INVISIBLE and unicodedata.category(ch) != "Cf"
        for ch in text
    )


_TIME_RANGE = re.compile(r"^\s*([0-9]+)\s*([mhdwy])\s*$", re.IGNORECASE)
_UNIT_SECONDS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "y": 365 * 86400}


def _check_range_text(value: str) -> timedelta:
    m = _TIME_RANGE.match(value)
    if not m:
        raise InvalidInputError(
            "time_range", f"{value[:40]!r} is not a range like '15m', '24h', '7d', '2w' or '1y'"
        )
    digits, unit = m.group(1), m.group(2).lower()
    limit = f"the limit is {MAX_TIME_RANGE_DAYS} days (100y)"
    if len(digits) > 12:  # int() of thousands of digits is itself slow; no such range is valid
        raise InvalidInputError("time_range", f"{value[:40]!r} is too long a range; {limit}")
    n = int(digits)
    if n <= 0:
        raise InvalidInputError("time_range", f"{value[:40]!r} must be at least 1 {unit}")
    seconds = n * _UNIT_SECONDS[unit]
    if seconds > MAX_TIME_RANGE_DAYS * 86400:
        raise InvalidInputError("time_range", f"{value[:40]!r} is too long a range; {limit}")
    return timedelta(seconds=seconds)


def parse_time_range(value: str | None) -> timedelta | None:
    """'24h', '7d', '30d', '2w', '15m', '1y' -> timedelta; None or '' means no limit.

    Bounded by MAX_TIME_RANGE_DAYS, so `now - range` is always a representable date."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise InvalidInputError("time_range", "must be a string like '24h', '7d' or '30d'")
    return _check_range_text(value)


def parse_memory_type(value: str | MemoryType | None, *, allow_none: bool = False) -> MemoryType:
    if value is None and allow_none:
        return None  # type: ignore[return-value]
    try:
        return MemoryType(str(value).strip().lower())
    except ValueError:
        allowed = ", ".join(t.value for t in MemoryType)
        raise InvalidInputError("memory_type", f"{value!r} is not one of {allowed}") from None


def parse_source(value: str | Source | None) -> Source:
    if value is None:
        return Source.USER
    try:
        return Source(str(value).strip().lower())
    except ValueError:
        allowed = ", ".join(s.value for s in Source)
        raise InvalidInputError("source", f"{value!r} is not one of {allowed}") from None


def check_content(value: Any, max_chars: int, field_name: str = "content") -> str:
    """Memory text, a query or a summary: a string with something visible in it, no control
    characters, within `max_chars` once stripped."""
    if not isinstance(value, str):
        raise InvalidInputError(field_name, "must be a string")
    text = check_chars(value, field_name).strip()
    if not text:
        raise InvalidInputError(field_name, "must not be empty")
    if len(text) > max_chars:
        raise InvalidInputError(field_name, f"is {len(text)} characters; the limit is {max_chars}")
    if not is_visible(text):
        raise InvalidInputError(
            field_name, "has no visible characters (only whitespace or zero-width characters)"
        )
    return text


def check_label(value: Any, field_name: str, max_chars: int = 128) -> str:
    """A caller's id for a conversation, agent or run: shown in results and used as a key, so
    plain visible text."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(field_name, "must be a non-empty string")
    if len(value) > max_chars:
        raise InvalidInputError(field_name, f"must be at most {max_chars} characters")
    text = check_chars(value, field_name).strip()
    if not is_visible(text):
        raise InvalidInputError(field_name, "has no visible characters")
    return text


def check_session_id(value: Any, max_chars: int = 128) -> str:
    return check_label(value, "session_id", max_chars)


def check_user(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError("user_id", "must be a non-empty string")
    if len(value) > 128:
        raise InvalidInputError("user_id", "must be at most 128 characters")
    return check_chars(value, "user_id").strip()


def check_top_k(value: Any, limit: int = 200, field_name: str = "top_k") -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        text = str(value)[:40]
        if not text.strip().lstrip("+-").isdecimal() or len(text) > 20:
            raise InvalidInputError(field_name, f"{text!r} is not an integer")
        value = int(text)
    if value <= 0:
        raise InvalidInputError(field_name, "must be at least 1")
    if value > limit:
        raise InvalidInputError(field_name, f"must be at most {limit}")
    return value


def check_metadata(value: Any) -> dict[str, Any]:
    """A JSON object of at most MAX_METADATA_BYTES, MAX_METADATA_DEPTH levels, finite numbers,
    64-bit integers and strings without control characters.

    A NaN or Infinity stored here poisons every later read of the memory: JSON cannot carry
    it, so each search that returns it fails, across restarts. Errors name the offending path
    (`metadata.scores[2]`), so the caller can fix exactly that value.
    """
    if value is None:
        return {}
    if isinstance(value, str):
        if len(value.encode("utf-8", "surrogatepass")) > MAX_METADATA_BYTES:
            raise InvalidInputError(
                "metadata", metadata_too_large(len(value.encode("utf-8", "surrogatepass")))
            )
        try:
            value = json.loads(value)
        except json.JSONDecodeError as e:
            raise InvalidInputError("metadata", f"is not valid JSON: {e.msg}") from None
        except RecursionError:
            raise InvalidInputError(
                "metadata", f"nests deeper than the limit of {MAX_METADATA_DEPTH} levels"
            ) from None
        except ValueError as e:  # e.g. an integer of more digits than Python converts
            raise InvalidInputError("metadata", f"is not valid JSON: {e}") from None
    if not isinstance(value, dict):
        raise InvalidInputError("metadata", "must be a JSON object")
    _check_json(value, ("metadata",), 1)
    encoded = json.dumps(value, ensure_ascii=False, allow_nan=False)
    size = len(encoded.encode("utf-8"))
    if size > MAX_METADATA_BYTES:
        raise InvalidInputError("metadata", metadata_too_large(size))
    return value


def metadata_too_large(size: int) -> str:
    return f"is {size} bytes as JSON; the limit is {MAX_METADATA_BYTES} bytes (16 KiB)"


def _check_json(value: Any, path: tuple[str | int, ...], depth: int) -> None:
    """Walk a metadata value once, depth-bounded, refusing what JSON or a store cannot hold.
    The path is kept as a tuple and spelled out only for an error: metadata at the size limit
    has thousands of values, and formatting each one's path tripled the walk's cost."""
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, str):
        if _CONTROL.search(value) or not value.isascii():
            check_chars(value, _path_name(path))
    elif isinstance(value, int):
        if not -MAX_METADATA_INT - 1 <= value <= MAX_METADATA_INT:
            raise InvalidInputError(_path_name(path), "integers must fit in 64 bits (±9.2e18)")
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInputError(
                _path_name(path), f"{value} is not a finite number (JSON has no NaN or Infinity)"
            )
    elif isinstance(value, dict | list | tuple):
        if depth > MAX_METADATA_DEPTH:
            raise InvalidInputError(
                _path_name(path), f"nests deeper than the limit of {MAX_METADATA_DEPTH} levels"
            )
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    raise InvalidInputError(_path_name(path), f"key {key!r} is not a string")
                if _CONTROL.search(key) or not key.isascii():
                    check_chars(key, _path_name((*path, key)))
                _check_json(item, (*path, key), depth + 1)
        else:
            for i, item in enumerate(value):
                _check_json(item, (*path, i), depth + 1)
    else:
        raise InvalidInputError(_path_name(path), f"a {type(value).__name__} is not a JSON value")


_PLAIN_KEY = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def _path_name(path: tuple[str | int, ...]) -> str:
    """('metadata', 'run', 3, 'odd key') -> "metadata.run[3]['odd key']"."""
    out = str(path[0])
    for part in path[1:]:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _PLAIN_KEY.match(part):
            out += f".{part}"
        else:
            out += f"[{part[:40]!r}]"
    return out


def check_number(
    value: Any, field_name: str, low: float, high: float, *, low_open: bool = False
) -> float:
    """A finite number within [low, high] (or (low, high]); bools and numeric strings too.

    NaN slips through every `low <= x <= high` style test that is written as a negation, so
    finiteness is checked on its own, first."""
    try:
        f = float(value)
    except (TypeError, ValueError, OverflowError):
        raise InvalidInputError(field_name, f"{str(value)[:40]!r} is not a number") from None
    if not math.isfinite(f):
        raise InvalidInputError(field_name, f"{f} is not a finite number")
    if f < low or f > high or (low_open and f == low):
        bounds = f"({low:g}, {high:g}]" if low_open else f"[{low:g}, {high:g}]"
        raise InvalidInputError(field_name, f"must be in {bounds}, got {f:g}")
    return f


def check_confidence(value: Any) -> float:
    return check_number(value, "confidence", 0.0, 1.0)


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
            raise InvalidInputError(field_name, f"{value!r} is not an ISO-8601 date/time") from None
    dt = dt if dt.tzinfo else dt.replace(tzinfo=UTC)
    # Every store and comparison works in UTC; a time whose UTC form falls outside what a
    # datetime holds (0001-01-01T00:00+14:00) raised OverflowError deep inside a write.
    try:
        year = dt.astimezone(UTC).year
    except OverflowError:
        year = 0
    if not MIN_YEAR <= year <= MAX_YEAR:
        raise InvalidInputError(
            field_name, f"{str(value)[:40]!r} is outside the years {MIN_YEAR} to {MAX_YEAR} (UTC)"
        )
    return dt
