"""The rules a search's kinds, kind weights and result count obey, written once for every
interface.

Four interfaces take these arguments: the MCP tool, the CLI, the Python client and
`MemoryService`. Each used to check them itself, with four sets of limits and four wordings,
so the same mistake read differently depending on where it was made. Now:

* the service checks them here (graphmem.domain.filters for `kinds`, graphmem.domain.requests for
the rest);
* the CLI only turns its flags into values and hands them to the service;
* the Python client checks here too, before a call leaves the process, so a remote client
  fails as early as an embedded one (and sends the kinds in the form the MCP tool takes);
* the MCP server keeps its JSON schema (it tells a model what to send), but when the schema
  refuses an argument the error is re-worded by these rules (graphmem.mcp.middleware).

The filters (graphmem.domain.filters) and the other search options (graphmem.domain.requests
`SearchRequest.validated`) follow the same path: one rule, checked by the service, its message
repeated by the MCP server.

Standard library and graphmem.domain.model only: the remote client imports this module.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from graphmem.domain.model import Kind, check_number, check_top_k
from graphmem.errors import InvalidInputError

KIND_NAMES = tuple(k.value for k in Kind)
EVERY_KIND = "both"  # the word for "no kind filter"
KIND_WORDS = (*KIND_NAMES, EVERY_KIND)
MAX_KIND_WEIGHT = 10.0
MAX_TOP_K = 50
"""The most hits an interface (MCP tool, Python client) returns per search; the service itself
takes up to 200 for benchmarks and exports."""

_KINDS_SHAPE = 'must be "memory", "document", "image", "both" or a list of them'
_NOT_A_KIND = "is not one of memory, document, image, both"


def parse_kinds(value: Any) -> tuple[str, ...] | None:
    """`kinds`: "memory", "document", "image" or "both" (or None: every kind), or a non-empty
    list of those words; the result is None when every kind is allowed, so an unfiltered search
    keeps its cache key and pushes nothing down.

    The words are taken exactly as the MCP tool's schema spells them (no case folding, no
    spaces, no "all", no empty list): each interface used to accept a different set of
    near-misses, and the strictest set is the one all of them can give the same error for."""
    if value is None or value == EVERY_KIND:
        return None
    items: Iterable[Any] = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple, set, frozenset)):
        raise InvalidInputError("kinds", _KINDS_SHAPE)
    if not items:
        raise InvalidInputError("kinds", f"[] names no kind; {_KINDS_SHAPE}")
    out = set()
    for v in items:
        if not isinstance(v, str) or v not in KIND_WORDS:
            raise InvalidInputError("kinds", f"{str(v)[:40]!r} {_NOT_A_KIND}")
        name = str(v)  # a Kind is a str; its plain value keeps the cache key stable
        if name == EVERY_KIND:
            return None
        out.add(name)
    return None if out == set(KIND_NAMES) else tuple(sorted(out))


def kinds_argument(value: Any) -> str | list[str] | None:
    """`kinds` checked by `parse_kinds`, in the form the MCP tool takes: None for every kind,
    the kind itself for one, and the list for two of the three (never "both", which would
    widen a search the caller had narrowed)."""
    kinds = parse_kinds(value)
    if kinds is None:
        return None
    return kinds[0] if len(kinds) == 1 else list(kinds)


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
        if not isinstance(key, str) or key not in KIND_NAMES:
            raise InvalidInputError(
                "kind_weights", f"{str(key)[:40]!r} is not a kind (memory, document or image)"
            )
        name = str(key)
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
    "KIND_WORDS",
    "MAX_KIND_WEIGHT",
    "MAX_TOP_K",
    "check_interface_top_k",
    "check_kind_weight",
    "kinds_argument",
    "parse_kind_weights",
    "parse_kinds",
]
