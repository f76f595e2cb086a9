"""The commands on all of a user's memories at once: forget-user, import, export.

An import is validated in full before anything is written, so a bad line stops it at the start
rather than half-way; the limits below keep that whole-file read bounded.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Mapping
from typing import IO, TYPE_CHECKING, Any

from graphmem.cli.common import AddCommand, emit, open_file, open_service, user_of
from graphmem.cli.common import out as stdout
from graphmem.cli.failures import INCOMPLETE, OK
from graphmem.domain.model import utcnow
from graphmem.domain.visibility import Viewer
from graphmem.errors import InvalidInputError
from graphmem.importers import FORMATS

if TYPE_CHECKING:
    from graphmem.domain.requests import WriteItem

IMPORT_BATCH = 256
MAX_IMPORT_LINE_BYTES = 1 << 20
"""One JSONL line of `import`: far above a memory's own limits (content, 16 KiB metadata)."""
MAX_IMPORT_BYTES = 128 << 20
"""One `import` run: every line is validated before any is written, so all of it is held in
memory at once; larger exports are split and imported in parts."""


def cmd_forget_user(args: argparse.Namespace) -> int:
    user = user_of(args)
    if args.confirm != user:
        raise InvalidInputError(
            "confirm", f"erasing a user is final: repeat it as --confirm {user}"
        )
    with open_service(args) as svc:
        receipt = svc.forget_user(user, requested_by=args.requested_by)
    data = receipt.to_dict()
    lines = [
        f"erased user {user}: "
        + (
            "verified, zero residue"
            if receipt.verified
            else f"NOT yet complete (pending: {receipt.pending})"
        )
    ]
    lines += [f"  deleted {k}: {v}" for k, v in data["deleted"].items()]
    lines += [f"  residue {k}: {v}" for k, v in data["residue"].items() if v]
    emit(args, data, "\n".join(lines))
    return OK if receipt.verified else INCOMPLETE


def read_jsonl(stream: IO[bytes]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Objects of a JSONL stream, read line by line with a bounded buffer: a line over
    MAX_IMPORT_LINE_BYTES or a stream over MAX_IMPORT_BYTES is refused as soon as it is seen,
    so `graphmem import /dev/zero` fails at once instead of filling memory."""
    total = 0
    n = 0
    while True:
        raw = stream.readline(MAX_IMPORT_LINE_BYTES + 1)
        if not raw:
            return
        n += 1
        total += len(raw)
        if len(raw) > MAX_IMPORT_LINE_BYTES:
            raise InvalidInputError(
                f"line {n}", f"is longer than the limit of {MAX_IMPORT_LINE_BYTES} bytes per line"
            )
        if total > MAX_IMPORT_BYTES:
            raise InvalidInputError(
                f"line {n}",
                f"the file is larger than the import limit of {MAX_IMPORT_BYTES} bytes;"
                " split it (e.g. with split -l) and import the parts",
            )
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidInputError(f"line {n}", "is not UTF-8") from None
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as e:
            raise InvalidInputError(f"line {n}", f"is not JSON: {e.msg}") from None
        except (ValueError, RecursionError):  # an integer of thousands of digits, deep nesting
            raise InvalidInputError(f"line {n}", "is not JSON graphmem can import") from None
        if not isinstance(obj, dict):
            raise InvalidInputError(f"line {n}", "must be a JSON object")
        yield n, obj


def cmd_import(args: argparse.Namespace) -> None:
    if args.from_ != "graphmem":
        from graphmem.cli.imports import cmd_import_from

        return cmd_import_from(args)
    if args.map_user or args.history:
        raise InvalidInputError("from", "--map-user and --history need --from FORMAT")
    if args.strict or args.restart:
        raise InvalidInputError(
            "from", "--strict and --restart need --from FORMAT (a JSONL import is all or nothing)"
        )
    from tqdm import tqdm

    stream = sys.stdin.buffer if args.file == "-" else open_file(args.file, "rb")
    with stream:
        rows = list(read_jsonl(stream))
    keys = (
        "content",
        "memory_type",
        "metadata",
        "source",
        "session_id",
        "created_at",
        "summary",
        "confidence",
        "agent_id",
        "run_id",
    )
    written = 0
    with open_service(args) as svc:
        # Validate everything before writing anything: an import never stops half-way on bad data.
        for n, obj in rows:
            try:
                svc.prepare_write(user_of(args), obj, utcnow())
            except InvalidInputError as e:
                raise InvalidInputError(f"line {n}: {e.field}", e.message) from None
        if args.dry_run:
            emit(args, {"would_import": len(rows)}, f"would import {len(rows)} memories")
            return None
        bar = tqdm(
            total=len(rows),
            unit="mem",
            disable=args.quiet or not sys.stderr.isatty(),
            file=sys.stderr,
            desc="import",
        )
        for i in range(0, len(rows), IMPORT_BATCH):
            batch: list[WriteItem | Mapping[str, Any]] = [
                {k: o[k] for k in keys if k in o} for _, o in rows[i : i + IMPORT_BATCH]
            ]
            written += len(svc.write_many(user_of(args), batch))
            bar.update(len(batch))
        bar.close()
    emit(args, {"imported": written}, f"imported {written} memories")
    return None


def export_v1(args: argparse.Namespace) -> None:
    """`export --format graphmem-v1 DIR`: the open format, a folder (docs/export-format.md)."""
    if args.file == "-":
        raise InvalidInputError(
            "file", "graphmem-v1 is a folder: name it (export DIR --format ...)"
        )
    with open_service(args) as svc:
        manifest = svc.export_v1(user_of(args), args.file, redact=args.redact)
    counts = manifest["counts"]
    n = counts["images_withheld"]
    withheld = f"; {n} left out by --redact: their text shows personal details" if n else ""
    emit(
        args,
        {"exported": counts, "dir": args.file},
        f"exported {counts['memories']} memories ({counts['versions']} versions),"
        f" {counts['documents']} documents ({counts['chunks']} chunks), {counts['images']}"
        f" images ({counts['image_files']} files{withheld}), {counts['relations']} relations,"
        f" {counts['entities']} entities to {args.file}",
    )


def export_mcp_memory(args: argparse.Namespace) -> None:
    """`export --format mcp-memory`: the reference memory server's memory.json."""
    if args.redact:
        raise InvalidInputError("redact", "works with --format graphmem or graphmem-v1 only")
    out = stdout() if args.file == "-" else open_file(args.file, "w", encoding="utf-8")
    n = 0
    with open_service(args) as svc:
        for line in svc.export_mcp_memory(user_of(args)):
            out.write(line + "\n")
            n += 1
    if args.file != "-":
        out.close()
        emit(args, {"exported": n, "file": args.file}, f"exported {n} lines to {args.file}")


def cmd_export(args: argparse.Namespace) -> None:
    if args.format == "mcp-memory":
        return export_mcp_memory(args)
    if args.format == "graphmem-v1":
        return export_v1(args)
    out = stdout() if args.file == "-" else open_file(args.file, "w", encoding="utf-8")
    n = chunks = 0
    with open_service(args) as svc:
        for m in svc.list(user_of(args), include_archived=True, viewer=Viewer.OPERATOR):
            if m.kind.value == "document":
                # A chunk imported back would become a memory; documents come back by
                # ingesting their sources again (`graphmem documents` lists them).
                chunks += 1
                continue
            row = m.to_dict()
            if args.redact:
                from graphmem.usecases.export_v1 import redacted

                row = redacted(row)
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            n += 1
    if args.file != "-":
        out.close()
        skipped = f" ({chunks} document chunks left out: re-ingest their sources)" if chunks else ""
        emit(
            args,
            {"exported": n, "file": args.file, "document_chunks_left_out": chunks},
            f"exported {n} memories to {args.file}{skipped}",
        )
    return None


def register(add: AddCommand) -> None:
    sp = add(
        "forget-user",
        cmd_forget_user,
        "erase everything about a user from every store, with a verified receipt",
    )
    sp.add_argument("--confirm", required=True, help="the user id again, to confirm")
    sp.add_argument("--requested-by", default="cli", help="who asked (kept in the audit log)")

    sp = add(
        "import",
        cmd_import,
        "write memories from graphmem's JSONL export, or another memory system's (--from)",
    )
    sp.add_argument(
        "file",
        help="a .jsonl file or - for stdin; with --from, the other system's file, folder or"
        " bolt:// address",
    )
    sp.add_argument(
        "--from",
        dest="from_",
        default="graphmem",
        choices=["graphmem", *FORMATS],
        help="what the source is: graphmem (the default: graphmem's own export) or another"
        " memory system's export: " + ", ".join(FORMATS) + " (docs/migrate.md)",
    )
    sp.add_argument(
        "--dry-run",
        action="store_true",
        help="check and count what would be written; write nothing",
    )
    sp.add_argument(
        "--map-user",
        action="append",
        metavar="SOURCE=USER",
        help="import the source user's records for this graphmem user (repeat it; with it,"
        " records of source users not named are skipped)",
    )
    sp.add_argument("--history", help="mem0's history.db, whose changes become versions")
    sp.add_argument(
        "--strict",
        action="store_true",
        help="stop at the first bad record instead of skipping it (what was committed before"
        " it stays; the next run goes on from there)",
    )
    sp.add_argument(
        "--restart",
        action="store_true",
        help="start from the first record, ignoring the checkpoint an interrupted run of the"
        " same import left",
    )
    sp.add_argument("-q", "--quiet", action="store_true", help="no progress bar")

    sp = add("export", cmd_export, "write a user's memories as JSONL, or all of them as a folder")
    sp.add_argument(
        "file",
        nargs="?",
        default="-",
        help="output file (default stdout); with --format graphmem-v1 the folder to write",
    )
    sp.add_argument(
        "--format",
        choices=["graphmem", "graphmem-v1", "mcp-memory"],
        default="graphmem",
        help="graphmem (default: every memory, importable with `graphmem import`), graphmem-v1"
        " (a folder: manifest plus JSON lines of memories with their versions, chunks,"
        " documents, entities, relations and held records, restored exactly by `graphmem"
        " import --from graphmem-v1`; docs/export-format.md) or mcp-memory (the MCP reference"
        " memory server's memory.json: entities, observations, relations)",
    )
    sp.add_argument(
        "--redact",
        action="store_true",
        help="mask contact details and personal data (emails, phones, addresses, names,"
        " birthdays, health) in what is written; secrets are always vault references",
    )
