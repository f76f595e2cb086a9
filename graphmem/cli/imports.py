"""`graphmem import --from FORMAT SOURCE`: another memory system's export, in one command.

Kept apart from graphmem.cli.userdata (graphmem's own JSONL import and export) because it
only parses options and prints a report: the reading is graphmem.importers', the writing
graphmem.usecases.imports'.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from graphmem.cli.common import emit, open_service, user_of
from graphmem.errors import InvalidInputError


def parse_map_user(values: list[str] | None) -> dict[str, str]:
    """--map-user SRC=DST, repeated: a source user -> the graphmem user their records go to."""
    out: dict[str, str] = {}
    for v in values or []:
        src, sep, dst = v.partition("=")
        if not sep or not src.strip() or not dst.strip():
            raise InvalidInputError("map-user", f"{v[:60]!r} is not SOURCE_USER=GRAPHMEM_USER")
        out[src.strip()] = dst.strip()
    return out


def report_text(data: dict[str, Any]) -> str:
    verb = "would import" if data["dry_run"] else "imported"
    parts = [
        f"{data['added']} added",
        f"{data['updated']} updated",
        f"{data['unchanged']} unchanged",
    ]
    for key in ("versions", "relations", "documents", "conversations", "quarantined"):
        if data[key]:
            parts.append(f"{data[key]} {key}")
    if data["turns_skipped"]:
        parts.append(f"{data['turns_skipped']} turns not worth keeping")
    if data["unresolved_links"]:
        parts.append(f"{data['unresolved_links']} links to missing notes")
    if data.get("images"):
        bare = data.get("images_without_bytes", 0)
        parts.append(
            f"{data['images']} images" + (f" ({bare} without their bytes)" if bare else "")
        )
    if data.get("vault_references"):
        parts.append(f"{data['vault_references']} secret references without their values")
    if data.get("resumed"):
        parts.append(f"resumed after {data['resumed']} records done by an earlier run")
    parts.append(f"{data['skipped']} skipped")
    lines = [f"{verb} {data['format']} from {data['source']}: " + ", ".join(parts)]
    lines += [f"  skipped {p}" for p in data["problems"]]
    return "\n".join(lines)


def cmd_import_from(args: argparse.Namespace) -> None:
    from tqdm import tqdm

    mapping = parse_map_user(args.map_user)
    bar = tqdm(
        unit="rec",
        disable=args.quiet or not sys.stderr.isatty(),
        file=sys.stderr,
        desc=f"import {args.from_}",
    )

    def progress(done: int, total: int) -> None:
        bar.total = total
        bar.n = done
        bar.refresh()

    with open_service(args) as svc:
        try:
            report = svc.import_from(
                user_of(args),
                args.from_,
                args.file,
                dry_run=args.dry_run,
                map_user=mapping,
                history=args.history,
                progress=progress,
                strict=args.strict,
                restart=args.restart,
            )
        finally:
            bar.close()
    data = report.to_dict()
    emit(args, data, report_text(data))
