"""The filters a search or a listing narrows the user's memories by, checked once.

One `MemoryFilter` is pushed down into every place memories are found: the records store
(SQL clauses for the keyword channel and listings), the vector store (payload conditions) and,
through `admits`, the records re-read that every channel's candidates go through before they
become hits. `admits` is the definition; the pushed-down forms only make a selective filter
cheap and keep it from emptying the candidate pool, so a filtered search can never return a
hit the filter excludes, whatever a store does with the conditions it was given.

Metadata filters match top-level keys of a memory's metadata:

* `{"project": "Atlas"}` or `{"project": {"eq": "Atlas"}}`: the key holds exactly that value;
* `{"tier": {"in": ["gold", "silver"]}}`: the key holds one of these values.

Values are JSON scalars. A string matches only a string and a boolean only a boolean; numbers
match numerically (1 matches 1.0). Several keys must all match.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from graphmem.domain.model import Memory, check_label, check_number, parse_source
from graphmem.domain.validation import parse_kinds
from graphmem.errors import InvalidInputError

Scalar = str | int | float | bool

OPERATORS = ("eq", "in")
MAX_METADATA_KEYS = 16
MAX_IN_VALUES = 50
MAX_KEY_CHARS = 64
MAX_VALUE_CHARS = 256


@dataclass(frozen=True)
class MetaCondition:
    """One metadata key and the values it may hold (one for `eq`, several for `in`)."""

    key: str
    values: tuple[Scalar, ...]

    def matches(self, metadata: Mapping[str, Any]) -> bool:
        if self.key not in metadata:
            return False
        have = metadata[self.key]
        return any(same_value(have, v) for v in self.values)


@dataclass(frozen=True)
class MemoryFilter:
    """What a memory must carry to be returned, beyond its user (which no filter can widen)."""

    session_id: str | None = None
    sources: tuple[str, ...] | None = None
    min_confidence: float | None = None
    agent_id: str | None = None
    run_id: str | None = None
    metadata: tuple[MetaCondition, ...] = ()
    # Record kinds (graphmem.domain.model.Kind) to return; None is every kind.
    kinds: tuple[str, ...] | None = None

    @classmethod
    def parse(
        cls,
        *,
        session_id: Any = None,
        source: Any = None,
        min_confidence: Any = None,
        agent_id: Any = None,
        run_id: Any = None,
        metadata: Any = None,
        kinds: Any = None,
    ) -> MemoryFilter:
        """Every field checked; the first wrong one raises InvalidInputError naming it."""
        return cls(
            session_id=check_label(session_id, "session_id") if session_id else None,
            sources=_sources(source),
            min_confidence=(
                None
                if min_confidence is None
                else check_number(min_confidence, "min_confidence", 0.0, 1.0)
            ),
            agent_id=check_label(agent_id, "agent_id") if agent_id else None,
            run_id=check_label(run_id, "run_id") if run_id else None,
            metadata=parse_metadata_filter(metadata),
            kinds=parse_kinds(kinds),
        )

    @property
    def empty(self) -> bool:
        return self == MemoryFilter()

    def admits(self, m: Memory) -> bool:
        """The definition of the filter: every store's pushed-down form must agree with it."""
        return (
            (self.session_id is None or m.session_id == self.session_id)
            and (self.sources is None or m.source.value in self.sources)
            and (self.min_confidence is None or m.confidence >= self.min_confidence)
            and (self.agent_id is None or m.agent_id == self.agent_id)
            and (self.run_id is None or m.run_id == self.run_id)
            and all(c.matches(m.metadata) for c in self.metadata)
            and (self.kinds is None or m.kind.value in self.kinds)
        )

    def key(self) -> dict[str, Any]:
        """The filter as plain data, for a search's cache key (absent fields left out, so an
        unfiltered search keeps the key it always had)."""
        out: dict[str, Any] = {}
        if self.sources is not None:
            out["source"] = list(self.sources)
        if self.min_confidence is not None:
            out["min_confidence"] = self.min_confidence
        if self.agent_id is not None:
            out["agent_id"] = self.agent_id
        if self.run_id is not None:
            out["run_id"] = self.run_id
        if self.metadata:
            out["metadata"] = [[c.key, [_typed(v) for v in c.values]] for c in self.metadata]
        if self.kinds is not None:
            out["kinds"] = list(self.kinds)
        return out


def same_value(have: Any, want: Scalar) -> bool:
    """JSON equality: no bool/number or string/number coercion (Python's True == 1 is not)."""
    if isinstance(want, bool) or isinstance(have, bool):
        return isinstance(want, bool) and isinstance(have, bool) and have is want
    if isinstance(want, str) or isinstance(have, str):
        return isinstance(want, str) and isinstance(have, str) and have == want
    if isinstance(have, int) and isinstance(want, int):
        return have == want
    if isinstance(have, (int, float)):
        return float(have) == float(want)
    return False


def meta_token(key: str, value: Scalar) -> str:
    """One (key, value) pair as a single string, typed so "1", 1 and true stay apart. Numbers
    are written as floats so 1 and 1.0 give the same token (they match each other)."""
    return json.dumps([key, _typed(value)], ensure_ascii=False, separators=(",", ":"))


def meta_tokens(metadata: Mapping[str, Any]) -> list[str]:
    """The tokens a memory's metadata matches: one per top-level key holding a scalar."""
    return [
        meta_token(k, v)
        for k, v in metadata.items()
        if isinstance(v, (str, bool, int, float)) and _finite(v)
    ]


def parse_metadata_filter(value: Any) -> tuple[MetaCondition, ...]:
    if value is None:
        return ()
    if not isinstance(value, Mapping):
        raise InvalidInputError("metadata", 'must be an object, e.g. {"project": "Atlas"}')
    if len(value) > MAX_METADATA_KEYS:
        raise InvalidInputError("metadata", f"at most {MAX_METADATA_KEYS} keys")
    out = []
    for key, cond in value.items():
        key = _check_key(key)
        if isinstance(cond, Mapping):
            if len(cond) != 1 or next(iter(cond)) not in OPERATORS:
                raise InvalidInputError(
                    f"metadata.{key}",
                    f"an operator object has exactly one of {', '.join(OPERATORS)},"
                    f' e.g. {{"in": ["a", "b"]}}',
                )
            op, arg = next(iter(cond.items()))
            if op == "in":
                if not isinstance(arg, list) or not 1 <= len(arg) <= MAX_IN_VALUES:
                    raise InvalidInputError(
                        f"metadata.{key}.in", f"must be a list of 1 to {MAX_IN_VALUES} values"
                    )
                values = tuple(_check_value(v, f"metadata.{key}.in") for v in arg)
            else:
                values = (_check_value(arg, f"metadata.{key}.eq"),)
        else:
            values = (_check_value(cond, f"metadata.{key}"),)
        out.append(MetaCondition(key, tuple(dict.fromkeys(values))))
    return tuple(out)


def _sources(value: Any) -> tuple[str, ...] | None:
    if value is None or value == []:
        return None
    items: Iterable[Any] = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)):
        raise InvalidInputError("source", "must be a source name or a list of them")
    return tuple(sorted({parse_source(v).value for v in items}))


def _check_key(key: Any) -> str:
    if not isinstance(key, str) or not key or len(key) > MAX_KEY_CHARS:
        raise InvalidInputError("metadata", f"keys must be 1 to {MAX_KEY_CHARS} characters")
    if any(ch in key for ch in '"\\') or not key.isprintable():
        raise InvalidInputError(
            "metadata", f"key {key!r} may not hold quotes, backslashes or control characters"
        )
    return key


def _check_value(value: Any, field: str) -> Scalar:
    if isinstance(value, str):
        if len(value) > MAX_VALUE_CHARS:
            raise InvalidInputError(field, f"values must be at most {MAX_VALUE_CHARS} characters")
        return value
    if isinstance(value, (bool, int, float)) and _finite(value):
        return value
    raise InvalidInputError(field, "values must be strings, numbers or booleans")


def _finite(v: Any) -> bool:
    return not isinstance(v, float) or math.isfinite(v)


def _typed(v: Scalar) -> Scalar:
    """Numbers as floats, so 1 and 1.0 are one value; integers a float cannot hold exactly
    stay integers."""
    if isinstance(v, (bool, str)) or (isinstance(v, int) and abs(v) > 2**53):
        return v
    return float(v)


__all__ = [
    "OPERATORS",
    "MemoryFilter",
    "MetaCondition",
    "meta_token",
    "meta_tokens",
    "parse_metadata_filter",
    "same_value",
]
