"""The filter flags `search` and `list` share: scope (--agent, --run), provenance (--source,
--min-confidence) and metadata (--meta KEY=VALUE, --meta-in KEY=V1,V2).

A metadata filter is spelled on the command line one key at a time and becomes the one dict
the service takes (graphmem.domain.filters): `{"project": "Atlas", "tier": {"in": ["gold",
"silver"]}}`. Values are JSON when they parse as JSON (`--meta year=2024` is the number, `--meta
done=true` the boolean) and strings otherwise (`--meta project=Atlas`); quote a number to keep
it a string: `--meta 'code="042"'`. Only the flag syntax is checked here; the service checks
the filter itself and names the field `metadata`.

Standard library only: these build parsers.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from graphmem.errors import InvalidInputError


def scalar(text: str) -> Any:
    """`2024` -> 2024, `true` -> True, `"042"` -> "042", `Atlas` -> "Atlas"."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return text


def _pair(field: str, text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"{field}: {text!r} is not KEY=VALUE")
    return key.strip(), value


def meta_equals(text: str) -> tuple[str, Any]:
    """An argparse type for --meta KEY=VALUE."""
    key, value = _pair("meta", text)
    return key, scalar(value)


def meta_in(text: str) -> tuple[str, list[Any]]:
    """An argparse type for --meta-in KEY=V1,V2: the key's value is any of these."""
    key, values = _pair("meta_in", text)
    return key, [scalar(v) for v in values.split(",")]


def to_float(field: str) -> Any:
    """An argparse type that names the field when the value is not a number."""

    def conv(value: str) -> float:
        try:
            return float(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{field}: {value!r} is not a number") from None

    return conv


def metadata_filter(args: argparse.Namespace) -> dict[str, Any] | None:
    """The metadata filter the --meta and --meta-in flags spell, or None without them. A key
    given twice is refused: two conditions on one key would match nothing or hide a typo."""
    spec: dict[str, Any] = {}
    given: list[tuple[str, Any]] = [
        *(args.meta or []),
        *((k, {"in": v}) for k, v in args.meta_in or []),
    ]
    for key, condition in given:
        if key in spec:
            raise InvalidInputError(
                "metadata", f"{key!r} is filtered twice; give one --meta or --meta-in per key"
            )
        spec[key] = condition
    return spec or None


def sources(args: argparse.Namespace) -> str | list[str] | None:
    """One --source is the string, several the list (any of them)."""
    given: list[str] = args.source or []
    if not given:
        return None
    return given[0] if len(given) == 1 else given


def add_filter_flags(sp: argparse.ArgumentParser) -> None:
    """The flags that narrow which memories a search or a listing may return."""
    sp.add_argument("--agent", help="only this agent's memories (default: the user's, any agent)")
    sp.add_argument("--run", help="only memories of this run")
    sp.add_argument(
        "--source",
        action="append",
        help="only memories from this source: user, agent, document, system (repeat for any of"
        " several)",
    )
    sp.add_argument(
        "--min-confidence",
        type=to_float("min_confidence"),
        metavar="X",
        help="only memories with at least this confidence (0 to 1)",
    )
    sp.add_argument(
        "--meta",
        action="append",
        type=meta_equals,
        metavar="KEY=VALUE",
        help="only memories whose metadata KEY equals VALUE (JSON if it parses, else a string;"
        " repeat for several keys, all must match)",
    )
    sp.add_argument(
        "--meta-in",
        action="append",
        type=meta_in,
        metavar="KEY=V1,V2",
        help="only memories whose metadata KEY is one of these values",
    )
