"""The rules a search's kinds, kind weights and result count obey, written once for every
interface.

Four interfaces take these arguments: the MCP tool, the CLI, the Python client and
`MemoryService`. Each used to check them itself, with four sets of limits and four wordings,
so the same mistake read differently depending on where it was made. Now:

* the service checks them here (graphmem.filters for `kinds`, graphmem.requests for the rest);
* the CLI only turns its flags into values and hands them to the service;
* the Python client checks here too, before a call leaves the process, so a remote client
  fails as early as an embedded one (and converts to the one word the MCP tool takes);
* the MCP server keeps its JSON schema (it tells a model what to send), but when the schema
  refuses an argument the error is re-worded by these rules (graphmem.mcp.middleware).

The filters (graphmem.filters) and the other search options (graphmem.requests
`SearchRequest.validated`) follow the same path: one rule, checked by the service, its message
repeated by the MCP server.

Standard library and graphmem.model only: the remote client imports this module.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from graphmem.errors import InvalidInputError
from graphmem.model import Kind, check_number, check_top_k

KIND_NAMES = tuple(k.value for k in Kind)
EVERY_KIND = ("both", "all")  # the words for "no kind filter"
MAX_KIND_WEIGHT = 10.0
MAX_TOP_K = 50
"""The most hits an interface (MCP tool, Python client) returns per search; the service itself
takes up to 200 for benchmarks and exports."""

_KINDS_SHAPE = 'must be "memory", "document", "image" or "both"'
_NOT_A_KIND = "is not one of memory, document, image, both"


def parse_kinds(value: Any) -> tuple[str, ...] | None:
    """`kinds`: "memory", "document", "image", "both" or "all" (or None: every kind), or a list of
    kinds; the result is None when every kind is allowed, so an unfiltered search keeps its
    cache key and pushes nothing down."""
    if value is None or value in (*EVERY_KIND, []):
        return None
    items: Iterable[Any] = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple, set, frozenset)):
        raise InvalidInputError("kinds", _KINDS_SHAPE)
    out = set()
    for v in items:
        name = str(v).strip().lower()
        if name in EVERY_KIND:
            return None
        if name not in KIND_NAMES:
            raise InvalidInputError("kinds", f"{str(v)[:40]!r} {_NOT_A_KIND}")
        out.add(name)
    return None if out == set(KIND_NAMES) else tuple(sorted(out))


def kinds_word(value: Any) -> str | None:
    """`kinds` checked by `parse_kinds`, as the one word the MCP tool takes: None for every kind,
    the kind itself for one, and "both" (every kind) for two of the three, which the tool
    cannot say otherwise."""
    kinds = parse_kinds(value)
    if kinds is None:
        return None
    return kinds[0] if len(kinds) == 1 else "both"


def parse_kind_weights(value: Any) -> dict[str, float]:
    """`kind_weights`: a factor per record kind, e.g. {"document": 0.8}; kinds left out keep
    1.0. A factor scales a hit's final score, so 0.5 halves how much documents count against
    memories of equal match (0 would drop a kind: use `kinds` for that). Numeric strings are
    numbers, as the CLI's `document=0.8` gives them."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidInputError("kind_weights", 'must be an object like {"document": 0.8}')
    out: dict[str, float] = {}
    for key, w in value.items():
        name = str(key).strip().lower()
        if name not in KIND_NAMES:
            raise InvalidInputError(
                "kind_weights", f"{str(key)[:40]!r} is not a kind (memory, document or image)"
            )
        out[name] = check_kind_weight(w, f"kind_weights.{name}")
    return {k: v for k, v in sorted(out.items()) if v != 1.0}


def check_kind_weight(value: Any, field: str) -> float:
    """One kind's factor: a number above 0 and at most MAX_KIND_WEIGHT."""
    f = check_number(value, field, float("-inf"), float("inf"))
    if not 0 < f <= MAX_KIND_WEIGHT:
        raise InvalidInputError(
            field,
            f"must be above 0 and at most {MAX_KIND_WEIGHT:g} (use kinds to leave a kind out)",
        )
    return f


def check_interface_top_k(value: Any) -> int:
    """`top_k` as the MCP tool and the Python client take it (1 to MAX_TOP_K)."""
    return check_top_k(value, MAX_TOP_K)


__all__ = [
    "EVERY_KIND",
    "KIND_NAMES",
    "MAX_KIND_WEIGHT",
    "MAX_TOP_K",
    "check_interface_top_k",
    "check_kind_weight",
    "kinds_word",
    "parse_kind_weights",
    "parse_kinds",
]
