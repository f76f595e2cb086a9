"""Variant modes: the default search with some Settings fields changed for that mode's searches
only, so a change and the code as it is run side by side, question by question, on one store.

    --variant 'keep3:graph_seeds=7;graph_weight=0.5'

adds a mode `keep3` that searches exactly as `hybrid` does, with those fields set on the
service's settings around each of its searches and put back after. Values are JSON where they
parse as JSON (numbers, true/false, quoted strings, objects), else taken as strings, and are
checked against the field's type and bounds. Only fields read at search time make sense here: a
field the service reads once when it opens (stores, the embedder) changes nothing.

Why in the same run rather than two runs with --set: the two rankings of every question come
from one process, one store and one set of memory ids, interleaved question by question, so the
difference is the change alone, and it is reported as a paired difference (`paired_table`: the
mean per-question difference of each metric with a 95% bootstrap interval and how many questions
went up and down). A prototype behind a setting can be tried on the tune halves at several
values in one run.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import paired_bootstrap, setting_place, settings_fields  # noqa: E402


def add_argument(p: argparse.ArgumentParser) -> None:
    """The harness's repeatable --variant option."""
    p.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME:KEY=VALUE[;KEY=VALUE]",
        help="an extra mode searching as hybrid does with these Settings fields changed for its"
        " searches only (bench/_variants.py); its paired difference to hybrid is reported;"
        " repeatable",
    )


def parse_variants(
    specs: Sequence[str], taken: Sequence[str] = (), fields: Mapping[str, Any] | None = None
) -> dict[str, dict[str, Any]]:
    """['name:key=value;key=value', ...] -> {name: {key: value}}. A name already `taken` (a
    built-in or --weights mode), an unknown field or a value its field refuses is an error,
    never a silent no-op."""
    from pydantic import TypeAdapter, ValidationError

    known = settings_fields() if fields is None else fields
    out: dict[str, dict[str, Any]] = {}
    for spec in specs:
        name, sep, body = (x.strip() for x in spec.partition(":"))
        if not sep or not name or not body:
            raise SystemExit(f"--variant {spec!r}: expected NAME:KEY=VALUE[;KEY=VALUE]")
        if name in taken or name in out:
            raise SystemExit(f"--variant {spec!r}: the mode {name!r} exists already")
        values: dict[str, Any] = {}
        for part in body.split(";"):
            key, eq, raw = (x.strip() for x in part.partition("="))
            if not eq or key not in known:
                raise SystemExit(f"--variant {spec!r}: {key!r} is not a Settings field")
            try:
                value = json.loads(raw)
            except json.JSONDecodeError:
                value = raw
            info = known[key]
            checked = (
                Annotated[info.annotation, *info.metadata] if info.metadata else info.annotation
            )
            try:
                values[key] = TypeAdapter(checked).validate_python(value)
            except ValidationError as e:
                msg = e.errors()[0]["msg"]
                raise SystemExit(f"--variant {spec!r}: {key}={raw}: {msg}") from None
        out[name] = values
    return out


@contextmanager
def applied(settings: Any, values: Mapping[str, Any]) -> Iterator[None]:
    """`settings` with these fields set, restored afterwards (also when the body raises)."""
    places = {k: setting_place(settings, k) for k in values}
    before = {k: getattr(holder, name) for k, (holder, name) in places.items()}
    try:
        for k, v in values.items():
            holder, name = places[k]
            setattr(holder, name, v)
        yield
    finally:
        for k, v in before.items():
            holder, name = places[k]
            setattr(holder, name, v)


def paired_table(
    title: str,
    rows: list[dict[str, Any]],
    base: str,
    others: Sequence[str],
    metrics: Sequence[str],
) -> list[str]:
    """Markdown: each of `others` minus `base`, per metric, over `rows` (per-question results
    with their "scores"): the mean difference, its 95% interval, the questions better / worse."""
    if not others or not rows:
        return []
    lines = [f"#### {title}: each variant minus {base}, 95% paired bootstrap ({len(rows)} q)", ""]
    lines.append("| variant | " + " | ".join(metrics) + " |")
    lines.append("|---|" + "---|" * len(metrics))
    for o in others:
        cells = []
        for m in metrics:
            p = paired_bootstrap(rows, o, base, m)
            lo, hi = p["ci95"]
            cells.append(f"{p['delta']:+.3f} [{lo:+.3f}, {hi:+.3f}] {p['better']}/{p['worse']}")
        lines.append(f"| {o} | " + " | ".join(cells) + " |")
    lines.append("")
    return lines
