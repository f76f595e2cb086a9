"""Imported notes and conversations: through the document ingest and memory_observe's policy.

A folder of notes is ingested as documents (graphmem.usecases.documents already screens each
chunk, skips an unchanged note by its content hash and keeps a changed one's old chunks as
history), then each [[wikilink]] becomes an explicit relation from the linking note's first
chunk to the linked note's. A conversation's user turns go through observe
(graphmem.usecases.turns), which writes only what its rules keep; each kept memory carries its
message's id, so importing the conversation again writes none of it twice. A "forget ..." in an
old conversation is not replayed: it would delete what was stored since.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from graphmem.domain.model import Memory
from graphmem.errors import InvalidInputError
from graphmem.importers.base import (
    ImportedConversation,
    ImportedNote,
    ImportedRelation,
    ImportedTurn,
    fingerprint,
)
from graphmem.usecases.documents import chunks_of, ingest
from graphmem.usecases.import_records import (
    NEW,
    ImportReport,
    import_relations,
    mark_merged,
)
from graphmem.usecases.ports import WritePorts
from graphmem.usecases.turns import MAX_TURNS, is_forget_request, observe

_TURN_FIELD = re.compile(r"^turns\[(\d+)\]")


def import_notes(
    ctx: WritePorts, user_id: str, notes: Sequence[ImportedNote], report: ImportReport, tool: str
) -> None:
    """Ingest the notes as documents, then relate them as their wikilinks say."""
    outcome = ingest(ctx, user_id, [str(n.path) for n in notes], dry_run=report.dry_run, tool=tool)
    for o in outcome.outcomes:
        if o.action in ("added", "replaced", "would_add", "would_replace"):
            report.documents += 1
            report.quarantined += o.quarantined
        elif o.action in ("unchanged", "duplicate"):
            report.unchanged += 1
        elif o.action == "failed":
            report.bad(f"note {o.source}", o.error or "could not be ingested")
    by_name: dict[str, ImportedNote] = {}
    for n in notes:
        by_name.setdefault(n.name.casefold(), n)
        by_name.setdefault((n.title or n.name).casefold(), n)
    ids: dict[str, str] = {}
    for n in notes:
        chunks = chunks_of(ctx, user_id, uri=str(n.path))
        if chunks:
            ids[str(n.path)] = chunks[0].id
        elif report.dry_run:
            ids[str(n.path)] = f"{NEW}{n.path}"
    relations: list[ImportedRelation] = []
    for n in notes:
        for link in n.links:
            target = by_name.get(link.casefold())
            if target is None:
                report.unresolved_links += 1
            elif target.path != n.path and str(n.path) in ids and str(target.path) in ids:
                relations.append(ImportedRelation(str(n.path), str(target.path), "explicit"))
    import_relations(ctx, user_id, relations, ids, report)


def _observed(
    ctx: WritePorts,
    user_id: str,
    conv: ImportedConversation,
    turns: list[ImportedTurn],
    report: ImportReport,
    tool: str,
    base: Mapping[str, Any],
) -> list[tuple[ImportedTurn, list[str]]]:
    """observe over some turns; a turn it refuses is reported and the rest observed again
    (observe validates before it writes, so a refused call wrote nothing)."""
    pending = list(turns)
    while pending:
        try:
            decisions = observe(
                ctx,
                user_id,
                [{"role": "user", "content": t.text} for t in pending],
                session_id=conv.import_id if len(conv.import_id) <= 128 else None,
                dry_run=report.dry_run,
                tool=tool,
                metadata=base,
                turn_metadata=[
                    {
                        "import_id": f"{conv.import_id}:{t.import_id}",
                        "import_hash": fingerprint(t.text),
                    }
                    for t in pending
                ],
            )
        except InvalidInputError as e:
            m = _TURN_FIELD.match(e.field)
            if not m:
                raise
            i = int(m.group(1))
            field_name = e.field[m.end() :].lstrip(".") or "content"
            report.bad(
                f"conversation {conv.import_id!r} message {pending[i].import_id!r}: {field_name}",
                e.message,
            )
            del pending[i]
            continue
        out = []
        for d in decisions:
            if d.action == "write":
                out.append((pending[d.turn], d.memory_ids))
            else:
                report.turns_skipped += 1
        return out
    return []


def import_conversation(
    ctx: WritePorts,
    user_id: str,
    fmt: str,
    conv: ImportedConversation,
    known: Mapping[str, Memory],
    report: ImportReport,
    tool: str,
) -> None:
    """The user turns of one conversation not imported before, through observe's policy."""
    todo: list[ImportedTurn] = []
    for t in conv.turns:
        iid = f"{conv.import_id}:{t.import_id}"
        if t.role != "user":
            continue  # observe keeps only what the user said
        if iid in known:
            report.unchanged += 1
        elif is_forget_request(t.text):
            report.turns_skipped += 1
        else:
            todo.append(t)
    report.conversations += 1
    base = {"import_format": fmt, "conversation": conv.import_id}
    for i in range(0, len(todo), MAX_TURNS):
        kept = _observed(ctx, user_id, conv, todo[i : i + MAX_TURNS], report, tool, base)
        report.added += len(kept)
        if report.dry_run:
            continue
        rows = ctx.records.get(user_id, [mid for _, ids in kept for mid in ids])
        for turn, ids in kept:
            iid = f"{conv.import_id}:{turn.import_id}"
            for mid in ids:
                mem = rows.get(mid)
                if mem is not None and mem.metadata.get("import_id") != iid:
                    fp = fingerprint(turn.text)
                    mark_merged(ctx, user_id, mem, f"{fmt}:{iid}", fp, report)


__all__ = ["import_conversation", "import_notes"]
