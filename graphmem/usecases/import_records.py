"""Writing imported memories and relations: every record an ordinary, screened write.

graphmem.usecases.imports reads a source through its adapter and hands each user's records
here. Memories go through write_many (validated, screened by the firewall,
embedded, linked), each carrying its provenance in metadata: `import_format`, `import_id` (the
peer's own id) and `import_hash` (a fingerprint of the record as the peer held it). Those keys
make a second import idempotent: a record whose id is already stored with the same fingerprint
is left alone, one whose fingerprint changed is updated through graphmem.usecases.update, so
the old content stays as a version. Nothing an import has written is deleted by a later one.

A record that fails validation or that the firewall refuses is reported in one line naming the
record and the field, and skipped; write_many writes nothing of a batch it refuses, so the
batch is written again without that record and nothing is ever half-written.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from graphmem.domain.filters import MemoryFilter, MetaCondition
from graphmem.domain.model import Memory, Status
from graphmem.domain.requests import WriteItem
from graphmem.errors import InvalidInputError, NotFoundError
from graphmem.importers.base import (
    ImportedMemory,
    ImportedRelation,
)
from graphmem.stores.records import GraphRows, Relation
from graphmem.stores.records.rows import RecordQuery
from graphmem.usecases.ports import ChangePorts, RecordsPorts, WritePorts
from graphmem.usecases.update import update
from graphmem.usecases.write import write_many

BATCH = 256
SOURCE = "agent"
"""Imported memories were kept by another agent's memory, not said by the user to graphmem:
the firewall screens them as an agent's writes, and recall can filter them by source."""
MERGED_KEY = "import_merged"
"""Metadata of a memory that an imported record was folded into by merge-on-write:
"<format>:<import id>" -> fingerprint, so the next import knows that record too."""

NEW = "\x00new:"
"""The id a dry run gives a record it would write (no memory id can start with NUL)."""

Progress = Callable[[int, int], None]


@dataclass
class ImportReport:
    """What an import did (or, with dry_run, would do), in counts, and the records it skipped."""

    format: str
    source: str
    dry_run: bool = False
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    versions: int = 0
    quarantined: int = 0
    relations: int = 0
    documents: int = 0
    conversations: int = 0
    turns_skipped: int = 0
    unresolved_links: int = 0
    resumed: int = 0
    """Records an earlier, interrupted run of the same import finished (its checkpoint)."""
    vault_references: int = 0
    """graphmem-v1: `[secret:...]` references restored without their values, which stay in the
    exporting store's vault."""
    images: int = 0
    """graphmem-v1: image memories restored."""
    images_without_bytes: int = 0
    """graphmem-v1: image memories restored without their image, whose bytes the export left
    out (--redact, or files gone at export): `graphmem image ID` has nothing to serve."""
    users: dict[str, int] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    strict: bool = False
    """A bad record stops the import (Stopped) instead of being skipped."""

    def to_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k not in ("skipped", "strict")}
        out["skipped"] = len(self.skipped)
        out["problems"] = list(self.skipped)
        return out

    def bad(self, where: str, message: str) -> None:
        if self.strict:
            raise Stopped(where, message)
        self.skipped.append(f"{where}: {message}")


class Stopped(InvalidInputError):
    """A bad record of a strict import: the import stops there. What earlier batches wrote
    stays, and the import's checkpoint lets the next run go on from the last of them."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(
            where,
            f"{message} (strict: the import stopped here; what it committed before stays, and"
            " the next run of the same import goes on from there)",
        )


def stored_imports(ctx: RecordsPorts, user_id: str, fmt: str) -> dict[str, Memory]:
    """import id -> the memory holding it now, for this user and format. A current memory
    wins over a version copy of it; a record folded into another memory by merge-on-write is
    found through that memory's MERGED_KEY."""
    statuses = tuple(s.value for s in Status)
    found: dict[str, Memory] = {}
    flt = MemoryFilter(metadata=(MetaCondition("import_format", (fmt,)),))
    for m in ctx.records.list(RecordQuery(user_id, None, statuses, None, filter=flt)):
        iid = m.metadata.get("import_id")
        if isinstance(iid, str):
            old = found.get(iid)
            if old is None or old.status == Status.SUPERSEDED:
                found[iid] = m
        merged = m.metadata.get(MERGED_KEY)
        if isinstance(merged, dict):
            for key in merged:
                if key.startswith(f"{fmt}:"):
                    found.setdefault(key[len(fmt) + 1 :], m)
    return found


def stored_hash(m: Memory, fmt: str, import_id: str) -> str | None:
    """The fingerprint this memory holds for one imported record."""
    if m.metadata.get("import_id") == import_id:
        value = m.metadata.get("import_hash")
    else:
        value = (m.metadata.get(MERGED_KEY) or {}).get(f"{fmt}:{import_id}")
    return value if isinstance(value, str) else None


def item_of(rec: ImportedMemory, fmt: str) -> dict[str, Any]:
    """The write_many item of one record, provenance added (the peer's own keys win nothing:
    graphmem's import keys are set last)."""
    meta = {
        **rec.metadata,
        "import_format": fmt,
        "import_id": rec.import_id,
        "import_hash": rec.fingerprint,
    }
    return {
        "content": rec.content,
        "memory_type": rec.memory_type,
        "source": SOURCE,
        "metadata": meta,
        "created_at": rec.created_at,
        "valid_from": rec.valid_from,
        "valid_to": rec.valid_to,
        "agent_id": rec.agent_id,
        "run_id": rec.run_id,
        "session_id": rec.session_id,
    }


def check_item(item: Mapping[str, Any], ctx: RecordsPorts) -> None:
    """The field checks of a write without the firewall: what a dry run can promise."""
    from graphmem.domain.model import utcnow

    w = WriteItem.of(item)
    w.checked_content(ctx.settings.writes.max_content_chars)
    w.checked_rest(utcnow(), ctx.settings.writes.max_content_chars)


_ITEM_FIELD = re.compile(r"^items\[(\d+)\]\.(.+)$")


def write_checked(
    ctx: WritePorts,
    user_id: str,
    batch: list[tuple[str, dict[str, Any]]],
    report: ImportReport,
    tool: str,
) -> list[tuple[int, Memory]]:
    """Write a batch of (record label, item); returns (position in the batch, memory) of what
    was written. A record write_many refuses is reported and the rest written again without it
    (write_many writes nothing of a batch it refuses)."""
    pending = list(range(len(batch)))
    while pending:
        items: list[WriteItem | Mapping[str, Any]] = [batch[j][1] for j in pending]
        try:
            written = write_many(ctx, user_id, items, tool=tool)
        except InvalidInputError as e:
            m = _ITEM_FIELD.match(e.field)
            i, name = (int(m.group(1)), m.group(2)) if m else (0, e.field)
            if not m and len(pending) > 1:
                raise
            report.bad(f"{batch[pending[i]][0]}: {name}", e.message)
            del pending[i]
            continue
        return list(zip(pending, written, strict=True))
    return []


def import_memories(
    ctx: WritePorts,
    user_id: str,
    fmt: str,
    memories: Sequence[ImportedMemory],
    known: dict[str, Memory],
    report: ImportReport,
    tool: str,
    tick: Callable[[int], None],
    *,
    skip: int = 0,
    mark: Callable[[int], None] | None = None,
) -> dict[str, str]:
    """Write, update or leave each record; returns import id -> memory id for relations.
    The first `skip` records were done by an earlier run (its checkpoint); `mark(k)` is told
    each time the first k records are all committed, for the next run's checkpoint."""
    ids = {iid: m.id for iid, m in known.items()}
    fresh: list[tuple[ImportedMemory, dict[str, Any]]] = []
    at: list[int] = []  # each fresh record's place in `memories`
    seen: set[str] = {rec.import_id for rec in memories[:skip]}
    for place, rec in enumerate(memories):
        if place < skip:
            continue
        if rec.import_id in seen:  # the peer listed it twice: the first one counts
            tick(1)
            continue
        seen.add(rec.import_id)
        label = f"{fmt} record {rec.import_id[:80]!r}"
        item = item_of(rec, fmt)
        try:
            check_item(item, ctx)
        except InvalidInputError as e:
            report.bad(f"{label}: {e.field}", e.message)
            tick(1)
            continue
        old = known.get(rec.import_id)
        if old is not None:
            _refresh(ctx, user_id, fmt, rec, old, report, tool)
            tick(1)
        elif rec.history and not report.dry_run:
            mem = _with_history(ctx, user_id, fmt, rec, label, report, tool)
            if mem is not None:
                ids[rec.import_id] = mem.id
            tick(1)
        else:
            fresh.append((rec, item))
            at.append(place)
    if report.dry_run:
        report.added += len(fresh)
        report.versions += sum(len(r.history) for r, _ in fresh)
        ids.update({r.import_id: f"{NEW}{r.import_id}" for r, _ in fresh})
        tick(len(fresh))
        return ids
    # everything before the first fresh record is done; then everything before the next batch
    if mark is not None:
        mark(at[0] if fresh else len(memories))
    for i in range(0, len(fresh), BATCH):
        end = at[i + BATCH] if i + BATCH < len(fresh) else len(memories)
        part = fresh[i : i + BATCH]
        batch = [(f"{fmt} record {r.import_id[:80]!r}", it) for r, it in part]
        for j, mem in write_checked(ctx, user_id, batch, report, tool):
            rec = part[j][0]
            ids[rec.import_id] = mem.id
            _count_new(ctx, user_id, fmt, rec, mem, report)
        if mark is not None:
            mark(end)
        tick(len(part))
    return ids


def _count_new(
    ctx: WritePorts, user_id: str, fmt: str, rec: ImportedMemory, mem: Memory, report: ImportReport
) -> None:
    report.added += 1
    report.quarantined += mem.status == Status.QUARANTINED
    if mem.merged_into and mem.metadata.get("import_id") != rec.import_id:
        mark_merged(ctx, user_id, mem, f"{fmt}:{rec.import_id}", rec.fingerprint, report)


def mark_merged(
    ctx: WritePorts, user_id: str, survivor: Memory, key: str, fp: str, report: ImportReport
) -> None:
    """Note on the memory a record was folded into that it holds that record now. If that
    note cannot be written (the metadata is full), the record is imported all the same; a
    later import writes it again, and merge-on-write folds it again."""
    merged = dict(survivor.metadata.get(MERGED_KEY) or {})
    merged[key] = fp
    try:
        update(ctx, user_id, survivor.id, metadata={MERGED_KEY: merged}, tool="import")
    except (InvalidInputError, NotFoundError) as e:
        report.bad(f"record {key[:80]!r} (merged into {survivor.id})", str(e))
        return
    survivor.metadata[MERGED_KEY] = merged


def _refresh(
    ctx: WritePorts,
    user_id: str,
    fmt: str,
    rec: ImportedMemory,
    old: Memory,
    report: ImportReport,
    tool: str,
) -> None:
    """An already imported record: unchanged, or updated so its old content stays a version."""
    if stored_hash(old, fmt, rec.import_id) == rec.fingerprint:
        report.unchanged += 1
        return
    if old.metadata.get("import_id") != rec.import_id or old.status == Status.SUPERSEDED:
        report.bad(
            f"{fmt} record {rec.import_id[:80]!r}",
            "changed, but it was merged into or superseded by another memory; not updated",
        )
        return
    if report.dry_run:
        report.updated += 1
        return
    meta = {**item_of(rec, fmt)["metadata"]}
    content = rec.content if rec.content != old.content else None
    try:
        update(ctx, user_id, old.id, content, memory_type=rec.memory_type, metadata=meta, tool=tool)
    except (InvalidInputError, NotFoundError) as e:
        field_name = getattr(e, "field", "record")
        report.bad(
            f"{fmt} record {rec.import_id[:80]!r}: {field_name}", str(getattr(e, "message", e))
        )
        return
    report.updated += 1
    report.versions += content is not None


def _with_history(
    ctx: WritePorts,
    user_id: str,
    fmt: str,
    rec: ImportedMemory,
    label: str,
    report: ImportReport,
    tool: str,
) -> Memory | None:
    """A new record with earlier contents: its oldest content written, then each later one as
    an update, so graphmem's versions replay the peer's history in order."""
    first = item_of(rec, fmt)
    first["content"] = rec.history[0]
    written = write_checked(ctx, user_id, [(label, first)], report, tool)
    if not written:
        return None
    mem = written[0][1]
    report.added += 1
    for content in [*rec.history[1:], rec.content]:
        if content == mem.content:
            continue
        try:
            mem = update(ctx, user_id, mem.id, content, tool=tool)
        except InvalidInputError as e:
            report.bad(f"{label}: {e.field}", e.message)
            return mem
        report.versions += 1
    return mem


def import_relations(
    ctx: ChangePorts,
    user_id: str,
    relations: Sequence[ImportedRelation],
    ids: Mapping[str, str],
    report: ImportReport,
) -> None:
    """The typed relations between imported memories, stated in one transaction (a relation
    stated again keeps its strength, so a second import changes nothing)."""
    rows: dict[tuple[str, str, str], Relation] = {}
    for r in relations:
        a, b = ids.get(r.source_id), ids.get(r.target_id)
        if a is None or b is None:
            where = f"relation {r.source_id[:60]!r} -> {r.target_id[:60]!r}"
            report.bad(where, "one end was not imported")
            continue
        if a != b:
            rows[(a, b, r.relation_type)] = Relation(user_id, a, b, r.relation_type, 1.0)
    stored = sorted({k[0] for k in rows if not k[0].startswith(NEW)})
    existing = {
        (x.source_id, x.target_id, x.relation_type)
        for x in (ctx.records.relations_for(user_id, stored) if stored else [])
    }
    new = [rel for key, rel in rows.items() if key not in existing]
    report.relations += len(new)
    if not new or report.dry_run:
        return
    touched = sorted({i for rel in new for i in (rel.source_id, rel.target_id)})
    with ctx.serialised(user_id):
        ctx.records.save_graph(GraphRows(user_id, {}, new), set_strength=True)
        ctx.projector.apply(ctx.records.outbox_for(touched))
        ctx.invalidate(user_id)  # last: a search cached before it was made is unreachable
        ctx.records.audit(user_id, "relate", touched, {"count": len(new), "tool": "import"})


__all__ = [
    "ImportReport",
    "Stopped",
    "import_memories",
    "import_relations",
    "mark_merged",
    "stored_imports",
    "write_checked",
]
