"""Importing another memory system's export in one call: `graphmem import --from FORMAT`.

The adapter of the format (graphmem.importers) reads the source into normalised records; this
module sends each record to the user it belongs to (`map_user` for sources holding several
users) and hands them to the writers: memories and relations to graphmem.usecases
.import_records, notes and conversations to graphmem.usecases.import_sources. Every write is an
ordinary one (validated, screened, audited), so an import is only a faster way to write what
a caller could have written by hand, never a way around a rule.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import asdict
from pathlib import Path

from graphmem.domain.model import check_user
from graphmem.errors import InvalidInputError
from graphmem.importers import adapter_for
from graphmem.importers.base import (
    BadRecord,
    ImportedConversation,
    ImportedMemory,
    ImportedNote,
    ImportedRelation,
    Record,
    fingerprint,
)
from graphmem.importers.graphmem_v1 import NAME as V1
from graphmem.importers.graphmem_v1 import open_source
from graphmem.usecases.import_checkpoint import Checkpoint
from graphmem.usecases.import_records import (
    ImportReport,
    Progress,
    Stopped,
    import_memories,
    import_relations,
    stored_imports,
)
from graphmem.usecases.import_sources import import_conversation, import_notes
from graphmem.usecases.ports import WritePorts
from graphmem.usecases.restore_v1 import restore_v1


def import_from(
    ctx: WritePorts,
    user_id: str,
    fmt: str,
    source: str | Path,
    *,
    dry_run: bool = False,
    map_user: Mapping[str, str] | None = None,
    history: str | Path | None = None,
    progress: Progress | None = None,
    tool: str | None = None,
    strict: bool = False,
    restart: bool = False,
) -> ImportReport:
    """Import `source`, read as format `fmt`, for `user_id`. With `map_user` (source user ->
    graphmem user), only the records of the source users it names are imported, each for the
    user it maps to; the others are reported and skipped. Without it every record is
    `user_id`'s. graphmem-v1 (graphmem's own export) is restored as it was instead
    (graphmem.usecases.restore_v1), with a checkpoint to resume from (`restart` ignores it) and,
    with `strict`, stopping at the first bad record instead of skipping it."""
    user_id = check_user(user_id)
    if str(fmt).strip().lower() == V1:
        return _restore(
            ctx, user_id, source, dry_run, map_user, history, progress, tool, strict, restart
        )
    mapping = {str(k): check_user(v) for k, v in (map_user or {}).items()}
    adapter = adapter_for(fmt, history=Path(history) if history else None)
    if not adapter.remote and not Path(source).exists():
        raise InvalidInputError("source", f"{str(source)[:200]} does not exist")
    report = ImportReport(adapter.name, str(source), dry_run, strict=strict)
    tool = tool or f"import:{adapter.name}"
    by_user: dict[str, list[Record]] = {}
    unmapped: dict[str, int] = {}
    for rec in adapter.read(str(source)):
        if isinstance(rec, BadRecord):
            if strict:  # found while reading, before anything is written
                raise Stopped(f"{rec.where}: {rec.field}", rec.message)
            report.skipped.append(rec.line())
            continue
        owner = user_id
        src_user = getattr(rec, "user", None)
        if mapping:
            if src_user is None or str(src_user) not in mapping:
                unmapped[str(src_user)] = unmapped.get(str(src_user), 0) + 1
                continue
            owner = mapping[str(src_user)]
        by_user.setdefault(owner, []).append(rec)
    for who, n in sorted(unmapped.items()):
        report.bad(f"source user {who}", f"not in --map-user; {n} records skipped")
    total = sum(len(v) for v in by_user.values())
    done = [0]

    def tick(n: int) -> None:
        done[0] += n
        if progress is not None:
            progress(done[0], total)

    checkpoint = None
    if not dry_run:
        whom = json.dumps([user_id, sorted(mapping.items())])
        digest = fingerprint([[type(r).__name__, asdict(r)] for rs in by_user.values() for r in rs])
        checkpoint = Checkpoint.open(
            ctx.settings.data_dir, adapter.name, whom, digest, restart=restart
        )
        report.resumed = checkpoint.resumed
    for owner, records in by_user.items():
        before = report.added + report.updated
        _import_user(ctx, owner, adapter.name, records, report, tool, tick, checkpoint)
        report.users[owner] = report.added + report.updated - before
    if checkpoint is not None:
        checkpoint.finish()
    return report


def _restore(
    ctx: WritePorts,
    user_id: str,
    source: str | Path,
    dry_run: bool,
    map_user: Mapping[str, str] | None,
    history: str | Path | None,
    progress: Progress | None,
    tool: str | None,
    strict: bool,
    restart: bool,
) -> ImportReport:
    if map_user or history:
        raise InvalidInputError("from", "graphmem-v1 holds one user: no --map-user or --history")
    if not Path(source).is_dir():
        raise InvalidInputError("source", f"{str(source)[:200]} is not an export folder")
    src = open_source(source)
    checkpoint = None
    if not dry_run:
        checkpoint = Checkpoint.open(
            ctx.settings.data_dir, V1, user_id, src.digest, restart=restart
        )
    report = ImportReport(V1, str(source), dry_run)
    restore_v1(
        ctx,
        user_id,
        src,
        report,
        checkpoint=checkpoint,
        strict=strict,
        tool=tool or f"import:{V1}",
        progress=progress,
    )
    report.users[user_id] = report.added
    return report


def _import_user(
    ctx: WritePorts,
    user_id: str,
    fmt: str,
    records: list[Record],
    report: ImportReport,
    tool: str,
    tick: Callable[[int], None],
    checkpoint: Checkpoint | None,
) -> None:
    """One graphmem user's records: memories, then the relations between them, notes and
    conversations. The checkpoint keeps how many memories and conversations are done (by
    position, under a hash of the user's id); relations and notes are redone on a resumed run,
    which changes nothing (a stated relation and an ingested note are recognised)."""
    known = stored_imports(ctx, user_id, fmt)
    memories = [r for r in records if isinstance(r, ImportedMemory)]
    who = fingerprint(user_id)[:16]
    skip = checkpoint.done(f"{who}:memories") if checkpoint else 0
    tick(skip)
    ids = import_memories(
        ctx,
        user_id,
        fmt,
        memories,
        known,
        report,
        tool,
        tick,
        skip=skip,
        mark=(lambda k: checkpoint.advance(f"{who}:memories", k)) if checkpoint else None,
    )
    relations = [r for r in records if isinstance(r, ImportedRelation)]
    import_relations(ctx, user_id, relations, ids, report)
    tick(len(relations))
    notes = [r for r in records if isinstance(r, ImportedNote)]
    if notes:
        import_notes(ctx, user_id, notes, report, tool)
        tick(len(notes))
    conversations = [r for r in records if isinstance(r, ImportedConversation)]
    skip = checkpoint.done(f"{who}:conversations") if checkpoint else 0
    tick(min(skip, len(conversations)))
    for i, conv in enumerate(conversations[skip:], skip + 1):
        import_conversation(ctx, user_id, fmt, conv, known, report, tool)
        if checkpoint is not None:
            checkpoint.advance(f"{who}:conversations", i)
        tick(1)


__all__ = ["ImportReport", "import_from"]
