"""Changing and removing memories: update (a new version, or one held for review), forget,
archive and restore, and forgetting by similarity to a query."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

from graphmem.domain.actor import audit_by
from graphmem.domain.model import (
    Kind,
    Memory,
    Status,
    check_confidence,
    check_content,
    check_metadata,
    check_number,
    check_top_k,
    check_user,
    parse_memory_type,
    utcnow,
)
from graphmem.domain.summary import summarize
from graphmem.domain.text import search_text
from graphmem.domain.visibility import only_visible, readable_statuses
from graphmem.errors import FirewallRejected, InvalidInputError
from graphmem.guard.policy import Sealer, refs_in
from graphmem.infra import metrics
from graphmem.infra.tracing import span
from graphmem.stores.vectors import VectorFilter
from graphmem.usecases.images import shas_of, sweep
from graphmem.usecases.ports import ChangePorts, VectorPorts, WritePorts
from graphmem.usecases.read import get
from graphmem.usecases.write import hold_update, seal


def update(
    ctx: WritePorts,
    user_id: str,
    memory_id: str,
    content: str | None = None,
    *,
    memory_type: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    confidence: float | None = None,
    tool: str | None = None,
) -> Memory:
    """Change a memory; new content is screened, then re-embedded and re-indexed.

    New content the firewall quarantines changes nothing yet: it is stored as a separate
    quarantined version (its metadata's `update_of` names this memory) and returned, while
    this memory stays current until a review approves the new version (which then
    supersedes it) or rejects it (which deletes only the new version).

    The memory is read, changed and written under the user's write lock: two updates of one
    memory (on one replica or two) each apply to what the other wrote, never to the same old
    copy, so neither change is lost."""
    changes = content is not None
    with ctx.writing(check_user(user_id)), span("graphmem.update", user=user_id, content=changes):
        return _update(
            ctx,
            user_id,
            memory_id,
            content,
            memory_type=memory_type,
            metadata=metadata,
            confidence=confidence,
            tool=tool,
        )


def _update(
    ctx: WritePorts,
    user_id: str,
    memory_id: str,
    content: str | None,
    *,
    memory_type: str | None,
    metadata: Mapping[str, Any] | None,
    confidence: float | None,
    tool: str | None,
) -> Memory:
    mem = get(ctx, user_id, memory_id)
    before = copy.copy(mem)
    if content is None and memory_type is None and metadata is None and confidence is None:
        raise InvalidInputError("content", "nothing to update: give content or another field")
    decision = None
    new_meta = check_metadata(metadata) if metadata is not None else None
    if content is not None or new_meta:
        # New metadata is screened like a write's: an update must not be a way past the
        # firewall. Unchanged content is screened with it, as the context it arrives in.
        text = mem.content
        if content is not None:
            text = check_content(content, ctx.settings.writes.max_content_chars)
        # New secrets are numbered after the memory's own references, and sealed to it below.
        sealer = Sealer(refs_in(f"{mem.content} {json.dumps(mem.metadata, ensure_ascii=False)}"))
        with span("graphmem.update.screen") as step:
            decision = ctx.guard.screen_write(text, mem.source.value, new_meta, sealer=sealer)
            step.set(quarantined=decision.action == "quarantine")
        metrics.write_decision(decision.action)
        if decision.action == "reject":
            reason = decision.reasons or "refused"
            ctx.records.audit(mem.user_id, "reject", [mem.id], {"tool": tool})
            raise FirewallRejected(decision.source_field, reason)
        if content is not None:
            mem.content = decision.content_after_masking
            mem.summary = summarize(mem.content)
        if new_meta is not None and decision.metadata_after_masking is not None:
            new_meta = decision.metadata_after_masking
    if memory_type is not None:
        mem.memory_type = parse_memory_type(memory_type)
    if new_meta is not None:
        mem.metadata = {**mem.metadata, **new_meta}
    if confidence is not None:
        mem.confidence = check_confidence(confidence)
    mem.updated_at = utcnow()
    if decision is not None and decision.action == "quarantine":
        return hold_update(ctx, before, mem, decision, tool)
    vec = None
    if content is not None:
        with span("graphmem.update.embed", texts=1):
            vec = ctx.embedder.encode([mem.content])
    secrets = seal(ctx, mem.user_id, [mem], [decision]) if decision is not None else []
    # Not Context.serialised: `update` took the user's lock around the whole read-change-write
    # (so two updates never start from the same copy), and the process's lock is taken only
    # now, for the commit, so the embedding above does not stall every other writer. Same
    # order as serialised: the user's lock first, then the process's.
    with ctx.write_lock:
        with span("graphmem.update.commit") as step:
            versioned = content is not None and before.content != mem.content
            if versioned:
                ctx.temporal.keep_version(before, mem)  # a new version, not an overwrite
            ctx.records.update_content(mem, search_text(mem.content), secrets=secrets)
            step.set(version=versioned)
        with span("graphmem.update.project", memories=1):
            if vec is not None:
                ctx.project([mem], vec)
            else:
                ctx.projector.apply(ctx.records.outbox_for([mem.id]))
        ctx.invalidate(mem.user_id)  # last: a search cached before it was made is unreachable
        ctx.records.audit(
            mem.user_id,
            "update",
            [mem.id],
            {
                "content_changed": vec is not None,
                "tool": tool,
                **audit_by(),
                "screen": decision.audit_details() if decision else None,
            },
        )
    return mem


def forget(
    ctx: ChangePorts, user_id: str, memory_ids: list[str], *, reason: str = "forget"
) -> list[str]:
    """Hard-delete memories from every store at once; returns the ids that existed.
    `reason` is the audit action (forget, or expire when a TTL ran out)."""
    user_id = check_user(user_id)
    ids = [str(i) for i in memory_ids]
    with ctx.serialised(user_id):
        versions = ctx.temporal.version_copies(user_id, ids)  # earlier contents go too
        images = shas_of(list(ctx.records.get(user_id, ids + versions).values()))
        deleted = ctx.records.delete(user_id, ids + versions)
        if deleted:
            sweep(ctx, user_id, images)  # an image's files go with its last memory
            ctx.projector.apply(ctx.records.outbox_for(deleted))
            ctx.invalidate(user_id)  # last: a search cached before it was made is unreachable
            ctx.records.audit(user_id, reason, deleted, {"count": len(deleted)})
    return [i for i in deleted if i not in versions]


def set_status(
    ctx: ChangePorts, user_id: str, ids: list[str], status: Status, only_from: Status
) -> list[str]:
    """Archive or restore: one records transaction, then the projections follow."""
    with ctx.serialised(user_id):
        done = ctx.records.set_status(user_id, ids, status.value, only_from=only_from.value)
        if done:
            ctx.projector.apply(ctx.records.outbox_for(done), ctx.stored_vectors(done))
            ctx.invalidate(user_id)  # last: a search cached before it was made is unreachable
            ctx.records.audit(
                user_id,
                "archive" if status == Status.ARCHIVED else "restore",
                done,
                {"count": len(done)},
            )
    return done


def archive(ctx: ChangePorts, user_id: str, memory_ids: list[str]) -> list[str]:
    """Take active memories out of default recall (`include_archived` still finds them)."""
    ids = [str(i) for i in memory_ids]
    return set_status(ctx, check_user(user_id), ids, Status.ARCHIVED, Status.ACTIVE)


def restore(ctx: ChangePorts, user_id: str, memory_ids: list[str]) -> list[str]:
    """Bring archived memories back into default recall; returns the ids restored."""
    ids = [str(i) for i in memory_ids]
    return set_status(ctx, check_user(user_id), ids, Status.ACTIVE, Status.ARCHIVED)


def similar(
    ctx: VectorPorts, user_id: str, query: str, threshold: float, limit: int
) -> list[Memory]:
    """Memories whose embedding is at least `threshold` cosine-similar to `query`."""
    qvec = ctx.embedder.encode_query(query, user_id)
    # superseded versions too: "forget my old address" must reach the old address
    flt = VectorFilter(
        user_id,
        None,
        readable_statuses((Status.ACTIVE.value, Status.ARCHIVED.value, Status.SUPERSEDED.value)),
        kind=Kind.MEMORY.value,  # forgetting what was said never deletes a document's chunks
    )
    hits = [h for h in ctx.vectors.search(qvec, flt, limit) if h.score >= threshold]
    rows = only_visible(ctx.records.get(user_id, [h.memory_id for h in hits]))
    return [rows[h.memory_id] for h in hits if h.memory_id in rows]


def forget_by_query(
    ctx: WritePorts,
    user_id: str,
    query: str,
    *,
    threshold: float | None = None,
    limit: int = 10,
    dry_run: bool = False,
) -> list[Memory]:
    """Delete the memories at least `threshold` similar to `query` (cosine)."""
    user_id = check_user(user_id)
    query = check_content(query, ctx.settings.writes.max_content_chars, "query")
    thr = ctx.forget_similarity
    if threshold is not None:
        thr = check_number(threshold, "threshold", 0.0, 1.0, low_open=True)
    limit = check_top_k(limit, 1000)
    matches = similar(ctx, user_id, query, thr, limit)
    if not dry_run and matches:
        forget(ctx, user_id, [m.id for m in matches])
    return matches


__all__ = ["archive", "forget", "forget_by_query", "restore", "set_status", "update"]
