"""`graphmem import --from graphmem-v1 DIR`: a graphmem-v1 export restored as it was.

Unlike a peer's export, graphmem's own is restored, not re-written: each record keeps its id,
status, versions, validity and timestamps, and the entity links and relations are stored as
exported instead of being extracted again, so export -> import -> export gives the same bytes
(graphmem.importers.graphmem_v1 is the format). It is still screened: the file is untrusted
input, so every record's text goes through the firewall as a write of its source would. A
record the firewall refuses is reported and skipped; one it holds is stored held, whatever the
file said; a clear secret is vaulted like in any write. What the file cannot carry is rebuilt
here: vectors (embedded by this store's model), keyword postings and the graph projection. An
image memory's bytes are checked as a written image's are and stored, with a new thumbnail,
before its record commits (graphmem.usecases.images_v1).

A record whose id is already stored for the user is left as it is (unchanged, or reported when
it differs), so importing again writes nothing twice. Records are committed in batches of
BATCH lines, each followed by a line in the import's checkpoint (graphmem.usecases
.import_checkpoint): an import stopped half-way (killed, or at a bad record with `strict`) goes
on from its last committed batch on the next run with the same folder.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from itertools import islice
from typing import Any

from graphmem.domain.model import (
    Kind,
    Memory,
    Status,
    check_chars,
    check_confidence,
    check_content,
    check_label,
    check_metadata,
    check_number,
    parse_datetime,
    parse_memory_type,
    parse_source,
)
from graphmem.domain.relation_types import RELATION_TYPES
from graphmem.domain.temporal import VERSION_META_KEYS
from graphmem.domain.text import search_text
from graphmem.errors import InvalidInputError
from graphmem.guard.policy import REF_RE, Sealer
from graphmem.importers import graphmem_v1 as v1
from graphmem.infra import workers
from graphmem.stores.records import EntityRef, GraphRows, Relation
from graphmem.usecases.images import SHA_KEY, sweep
from graphmem.usecases.images_v1 import MEASURED, check_measured, restore_image
from graphmem.usecases.import_checkpoint import Checkpoint
from graphmem.usecases.import_records import MERGED_KEY, ImportReport, Stopped
from graphmem.usecases.ports import RecordsPorts, WritePorts
from graphmem.usecases.review import UNKNOWN_REASON
from graphmem.usecases.write import seal

BATCH = 256
RECORD_FILES = ((v1.MEMORIES, Kind.MEMORY), (v1.CHUNKS, Kind.DOCUMENT), (v1.IMAGES, Kind.IMAGE))
UNSCREENED_KEYS = frozenset((*VERSION_META_KEYS, "import_format", "import_hash", MERGED_KEY))
"""Metadata graphmem wrote itself (version links, provenance fingerprints): ids and digests
that no user or peer typed, left out of the screen like a document's computed fields."""
SCREENED_DOC_KEYS = ("doc_title", "doc_headings")
"""What of a chunk's metadata an author wrote (graphmem.usecases.documents screens the same)."""


def _dt(obj: dict[str, Any], key: str, *, required: bool = False) -> Any:
    value = parse_datetime(obj.get(key), key)
    if value is None and required:
        raise InvalidInputError(key, "is required")
    return value


def _opt_label(obj: dict[str, Any], key: str) -> str | None:
    value = obj.get(key)
    return None if value is None else check_label(value, key, 256)


def record_of(ctx: RecordsPorts, user_id: str, obj: dict[str, Any], kind: Kind) -> Memory:
    """One exported record as the Memory it was, every field checked as a write checks it."""
    rid = check_label(obj.get("id"), "id", 64)
    if obj.get("kind", Kind.MEMORY.value) != kind.value:
        raise InvalidInputError("kind", f"must be {kind.value} in this file")
    limit = ctx.settings.writes.max_content_chars
    if kind == Kind.DOCUMENT:
        limit = max(limit, 4 * ctx.settings.documents.chunk_max_chars)
    summary = obj.get("summary", "")
    if not isinstance(summary, str):
        raise InvalidInputError("summary", "must be a string")
    try:
        status = Status(str(obj.get("status")))
    except ValueError:
        raise InvalidInputError("status", f"{obj.get('status')!r} is not a status") from None
    access = obj.get("access_count", 0)
    if isinstance(access, bool) or not isinstance(access, int) or access < 0:
        raise InvalidInputError("access_count", "must be a whole number >= 0")
    slot = obj.get("slot")
    if slot is not None and not isinstance(slot, str):
        raise InvalidInputError("slot", "must be a string")
    return Memory(
        id=rid,
        user_id=user_id,
        content=check_content(obj.get("content"), limit),
        memory_type=parse_memory_type(obj.get("memory_type")),
        summary=check_chars(summary, "summary"),
        session_id=_opt_label(obj, "session_id"),
        source=parse_source(obj.get("source")),
        confidence=check_confidence(obj.get("confidence", 1.0)),
        metadata=check_metadata(obj.get("metadata")),
        access_count=access,
        last_access_at=_dt(obj, "last_access_at"),
        decay_score=check_number(obj.get("decay_score", 1.0), "decay_score", 0.0, 1e9),
        status=status,
        expires_at=_dt(obj, "expires_at"),
        created_at=_dt(obj, "created_at", required=True),
        updated_at=_dt(obj, "updated_at", required=True),
        valid_from=_dt(obj, "valid_from"),
        valid_to=_dt(obj, "valid_to"),
        slot=slot,
        agent_id=_opt_label(obj, "agent_id"),
        run_id=_opt_label(obj, "run_id"),
        kind=kind,
    )


def _same(a: Memory, b: Memory) -> bool:
    """The same record, whatever recall did to it since (access counts, decay)."""
    keys = ("content", "status", "metadata", "memory_type", "valid_from", "valid_to", "kind")
    return all(getattr(a, k) == getattr(b, k) for k in keys)


class Restore:
    """One run of a graphmem-v1 import for one user."""

    def __init__(
        self,
        ctx: WritePorts,
        user_id: str,
        src: v1.Source,
        report: ImportReport,
        checkpoint: Checkpoint | None,
        strict: bool,
        tool: str,
        tick: Callable[[int], None],
    ) -> None:
        self.ctx = ctx
        self.user_id = user_id
        self.src = src
        self.report = report
        self.checkpoint = checkpoint
        self.strict = strict
        self.tool = tool
        self.tick = tick
        self.documents: set[str] = set()
        self.would: set[str] = set()  # a dry run's records, which its relations may join
        self.reasons = self.hold_reasons()

    def hold_reasons(self) -> dict[str, str]:
        """Why each held record was held, from quarantine.jsonl: written back where the review
        queue reads it (graphmem.usecases.review), so a restored queue explains itself."""
        out: dict[str, str] = {}
        for _, obj in self.src.read(v1.QUARANTINE):
            if isinstance(obj, dict) and isinstance(obj.get("id"), str):
                reason = obj.get("reason")
                if isinstance(reason, str) and reason and reason != UNKNOWN_REASON:
                    out[obj["id"]] = reason
        return out

    def bad(self, where: str, field_name: str, message: str) -> None:
        if self.strict:
            raise Stopped(f"{where}: {field_name}", message)
        self.report.bad(f"{where}: {field_name}", message)

    def batches(self, name: str) -> Iterator[list[tuple[int, dict[str, Any] | str]]]:
        after = self.checkpoint.done(name) if self.checkpoint else 0
        lines = self.src.read(name, after)
        while batch := list(islice(lines, BATCH)):
            yield batch

    def done(self, name: str, batch: list[tuple[int, Any]]) -> None:
        if self.checkpoint is not None and not self.report.dry_run:
            self.checkpoint.advance(name, batch[-1][0])
        self.tick(len(batch))

    def run(self) -> None:
        for name, kind in RECORD_FILES:
            for batch in self.batches(name):
                self.records(name, kind, batch)
        for batch in self.batches(v1.ENTITIES):
            self.entities(batch)
        for batch in self.batches(v1.RELATIONS):
            self.relations(batch)
        self.report.documents += len(self.documents)

    # ------------------------------------------------------------------ records
    def records(self, name: str, kind: Kind, batch: list[tuple[int, dict[str, Any] | str]]) -> None:
        parsed: list[tuple[int, Memory]] = []
        stop: Stopped | None = None
        for n, obj in batch:
            try:
                if isinstance(obj, str):
                    raise InvalidInputError("record", obj)
                m = record_of(self.ctx, self.user_id, obj, kind)
                if kind == Kind.IMAGE:
                    check_measured(m.metadata)
                parsed.append((n, m))
            except InvalidInputError as e:
                try:
                    self.bad(f"{name} line {n}", e.field, e.message)
                except Stopped as s:  # what came before the bad line is still written
                    stop, batch = s, [(m, o) for m, o in batch if m < n]
                    break
        self.store(name, parsed)
        if batch:
            self.done(name, batch)
        if stop is not None:
            raise stop

    def store(self, name: str, parsed: list[tuple[int, Memory]]) -> None:
        ctx, user = self.ctx, self.user_id
        stored = ctx.records.get(user, [m.id for _, m in parsed])
        new: list[Memory] = []
        decisions = []
        added: set[str] = set()  # image files this batch stored, removed again if unused
        bare: set[str] = set()  # image records whose bytes the export does not carry
        for n, m in parsed:
            old = stored.get(m.id)
            if old is not None:
                if _same(old, m):
                    self.report.unchanged += 1
                else:
                    self.report.bad(
                        f"{name} line {n}", "differs from the stored memory with its id"
                    )
                continue
            decision = self.screen(m)
            if decision is None:
                self.bad(f"{name} line {n}", "content", "refused by the memory firewall")
                continue
            if m.kind == Kind.IMAGE:
                try:
                    sha = restore_image(ctx, user, self.src, m, dry_run=self.report.dry_run)
                except InvalidInputError as e:
                    self.bad(f"{name} line {n}", e.field, e.message)
                    continue
                added.update([sha] if sha else [])
                if self.src.image_path(str(m.metadata[SHA_KEY])) is None:
                    bare.add(m.id)
            new.append(m)
            decisions.append(decision)
        if self.report.dry_run:
            self.would.update(m.id for m in new)
        elif new:
            try:
                pairs = self.commit(name, list(zip(new, decisions, strict=True)))
            finally:  # the files of a record that was not stored go (graphmem.usecases.images)
                if added:
                    # The process's lock alone, as before, not Context.serialised: the commit
                    # above released the user's lock, and the sweep only removes files no
                    # record points at, so it need not wait on other replicas.
                    with ctx.write_lock:
                        sweep(ctx, user, added)
            new, decisions = [m for m, _ in pairs], [d for _, d in pairs]
        self.report.added += len(new)
        self.report.versions += sum(m.status == Status.SUPERSEDED for m in new)
        self.report.quarantined += sum(m.status == Status.QUARANTINED for m in new)
        self.report.vault_references += sum(len(REF_RE.findall(m.content)) for m in new)
        self.report.images += sum(m.kind == Kind.IMAGE for m in new)
        self.report.images_without_bytes += sum(m.id in bare for m in new)
        self.documents.update(
            str(m.metadata.get("doc_uri")) for m in new if m.kind == Kind.DOCUMENT
        )

    def commit(self, name: str, items: list[tuple[Memory, Any]]) -> list[tuple[Memory, Any]]:
        """Store screened records in one transaction with their secrets, project and audit
        them; returns those stored. Memory ids are unique in the whole store, so an id another
        user's record holds (an export of one user imported for another, in the same store)
        fails the transaction, which wrote nothing: each record is then tried alone and the
        one that clashes is reported."""
        try:
            self._insert(items)
        except Exception as e:
            if type(e).__name__ != "IntegrityError" or len(items) == 1:
                if type(e).__name__ == "IntegrityError":
                    where = f"{name} record {items[0][0].id}"
                    self.bad(where, "id", "is another user's record in this store")
                    return []
                raise
            kept = []
            for item in items:
                kept += self.commit(name, [item])
            return kept
        return items

    def _insert(self, items: list[tuple[Memory, Any]]) -> None:
        ctx, user = self.ctx, self.user_id
        new, decisions = [m for m, _ in items], [d for _, d in items]
        vecs = workers.pool("embed").submit(ctx.embedder.encode, [m.content for m in new]).result()
        secrets = seal(ctx, user, new, decisions)
        with ctx.serialised(user):
            ctx.records.insert(new, [search_text(m.content) for m in new], None, None, secrets)
            ctx.project(new, vecs)
            ctx.invalidate(user)
        flagged: dict[str, Any] = {}
        for m, d in items:
            if m.id in self.reasons:
                flagged[m.id] = {"reasons": [self.reasons[m.id]]}
            elif d.action != "allow" or d.pii_found:
                flagged[m.id] = d.audit_details()
        ctx.records.audit(
            user,
            "write",
            [m.id for m in new],
            {"count": len(new), "tool": self.tool, "restored": True, "flagged": flagged},
        )

    def screen(self, m: Memory) -> Any:
        """Screen a record as a write of its source: None if refused; otherwise the decision,
        the record masked as the policy says and held if the screen holds it."""
        guard, sealer = self.ctx.guard, Sealer()
        keys = SCREENED_DOC_KEYS if m.kind == Kind.DOCUMENT else m.metadata
        own = UNSCREENED_KEYS | MEASURED if m.kind == Kind.IMAGE else UNSCREENED_KEYS
        written = {k: m.metadata[k] for k in keys if k in m.metadata and k not in own}
        d = guard.screen_write(m.content, m.source.value, written or None, sealer=sealer)
        if d.status is None:
            return None
        m.content = d.content_after_masking
        if d.metadata_after_masking:
            m.metadata.update(d.metadata_after_masking)
        if m.summary and m.summary != m.content:
            m.summary = guard.screen_write(
                m.summary, m.source.value, sealer=sealer
            ).content_after_masking
        if d.status == Status.QUARANTINED.value and m.status == Status.ACTIVE:
            m.status = Status.QUARANTINED
        return replace(d, sealed=sealer.items)

    # ------------------------------------------------------------------ graph
    def _strings(self, obj: Any, keys: tuple[str, ...]) -> list[str]:
        if not isinstance(obj, dict):
            raise InvalidInputError("record", str(obj))
        return [check_label(obj.get(k), k, 255) for k in keys]

    def entities(self, batch: list[tuple[int, dict[str, Any] | str]]) -> None:
        links: dict[str, list[EntityRef]] = {}
        for n, obj in batch:
            try:
                key, name, etype = self._strings(obj, ("key", "name", "entity_type"))
                ids = obj.get("memory_ids") if isinstance(obj, dict) else None
                if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
                    raise InvalidInputError("memory_ids", "must be a list of memory ids")
            except InvalidInputError as e:
                self.bad(f"{v1.ENTITIES} line {n}", e.field, e.message)
                continue
            for mid in ids:
                links.setdefault(mid, []).append(EntityRef(key, name, etype))
        ctx, user = self.ctx, self.user_id
        known = set(ctx.records.get(user, list(links))) | self.would
        links = {mid: refs for mid, refs in links.items() if mid in known}
        if links and not self.report.dry_run:
            with ctx.serialised(user):
                ctx.records.save_graph(GraphRows(user, links, []))
                ctx.projector.apply(ctx.records.outbox_for(sorted(links)))
                ctx.invalidate(user)
        self.done(v1.ENTITIES, batch)

    def relations(self, batch: list[tuple[int, dict[str, Any] | str]]) -> None:
        rels: list[tuple[int, Relation]] = []
        for n, obj in batch:
            try:
                a, b, rtype = self._strings(obj, ("source_id", "target_id", "relation_type"))
                assert isinstance(obj, dict)
                if rtype not in RELATION_TYPES:
                    raise InvalidInputError("relation_type", f"{rtype!r} is not a relation type")
                w = check_number(obj.get("strength", 1.0), "strength", 0.0, 1e9)
                rel = Relation(
                    self.user_id, a, b, rtype, w, _dt(obj, "valid_from"), _dt(obj, "valid_to")
                )
            except InvalidInputError as e:
                self.bad(f"{v1.RELATIONS} line {n}", e.field, e.message)
                continue
            rels.append((n, rel))
        ctx, user = self.ctx, self.user_id
        ends = sorted({i for _, r in rels for i in (r.source_id, r.target_id)})
        known = set(ctx.records.get(user, ends)) | self.would
        existing = {
            (x.source_id, x.target_id, x.relation_type)
            for x in (ctx.records.relations_for(user, ends) if ends else [])
        }
        new: list[Relation] = []
        for n, r in rels:
            if r.source_id not in known or r.target_id not in known:
                self.bad(f"{v1.RELATIONS} line {n}", "source_id", "one end was not imported")
            elif (r.source_id, r.target_id, r.relation_type) not in existing:
                new.append(r)
        self.report.relations += len(new)
        if new and not self.report.dry_run:
            touched = sorted({i for r in new for i in (r.source_id, r.target_id)})
            with ctx.serialised(user):
                ctx.records.save_graph(GraphRows(user, {}, new), set_strength=True)
                ctx.projector.apply(ctx.records.outbox_for(touched))
                ctx.invalidate(user)
        self.done(v1.RELATIONS, batch)


def restore_v1(
    ctx: WritePorts,
    user_id: str,
    src: v1.Source,
    report: ImportReport,
    *,
    checkpoint: Checkpoint | None,
    strict: bool,
    tool: str,
    progress: Callable[[int, int], None] | None,
) -> None:
    """Restore an export folder (graphmem_v1.open_source checked it) for `user_id` into
    `report`. With `strict`, a bad record stops the import (InvalidInputError naming it) after
    committing what came before."""
    parts = (v1.MEMORIES, v1.CHUNKS, v1.IMAGES, v1.ENTITIES, v1.RELATIONS)
    total = sum(src.records(p) for p in parts)
    done = [checkpoint.resumed if checkpoint else 0]
    report.resumed = done[0]

    def tick(n: int) -> None:
        done[0] += n
        if progress is not None:
            progress(done[0], total)

    Restore(ctx, user_id, src, report, checkpoint, strict, tool, tick).run()
    if checkpoint is not None and not report.dry_run:
        checkpoint.finish()


__all__ = ["record_of", "restore_v1"]
