"""Writing memories: validate and screen every item, then embed, extract, link, commit, project.

Everything in a batch is validated and screened before anything is written; one records
transaction holds the rows, entities, relations and outbox entries, and the projections follow
(a projection failure delays a projection but never loses or half-writes a memory).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

import numpy as np

from graphmem.domain import lifecycle
from graphmem.domain.actor import audit_by
from graphmem.domain.model import Kind, Memory, Status, check_user, new_id, utcnow
from graphmem.domain.requests import WriteItem
from graphmem.domain.summary import MAX_SUMMARY, summarize
from graphmem.domain.temporal import WritePlan
from graphmem.domain.text import search_text
from graphmem.errors import FirewallRejected, InvalidInputError
from graphmem.guard import WriteDecision
from graphmem.guard.policy import Sealer
from graphmem.infra import metrics, workers
from graphmem.infra.tracing import carry, span
from graphmem.stores.records import SecretRow
from graphmem.usecases.merge import merge_on_write
from graphmem.usecases.ports import RecordsPorts, WritePorts

log = logging.getLogger("graphmem.service")


def prepare(
    ctx: WritePorts, user_id: str, item: WriteItem | Mapping[str, Any], now: datetime
) -> tuple[Memory, WriteDecision]:
    """Validate one write and pass it through the firewall: the returned memory holds the
    masked content and metadata, and is quarantined if the screen said so."""
    s = ctx.settings
    w = WriteItem.of(item)
    content, source, metadata = w.checked_content(s.writes.max_content_chars)
    sealer = Sealer()  # one numbering of vault references for the content, metadata, summary
    decision = ctx.guard.screen_write(content, source.value, metadata, sealer=sealer)
    metrics.write_decision(decision.action)
    if decision.action == "reject":
        reason = decision.reasons or "refused by the memory firewall"
        raise FirewallRejected(decision.source_field, reason)  # the field: metadata, if that
    status = decision.status
    assert status is not None  # only a rejection stores nothing, and it raised above
    content = decision.content_after_masking
    if decision.metadata_after_masking is not None:
        metadata = decision.metadata_after_masking
    rest = w.checked_rest(now, s.writes.max_content_chars)
    summary = (
        ctx.guard.screen_write(rest.summary, source.value, sealer=sealer).content_after_masking
        if rest.summary
        else llm_summary(ctx, content)
    )
    decision = replace(decision, sealed=sealer.items)
    mem = Memory(
        id=new_id(),
        user_id=user_id,
        content=content,
        memory_type=rest.memory_type,
        summary=summarize(summary),
        session_id=rest.session_id,
        source=source,
        confidence=rest.confidence,
        metadata=metadata,
        status=Status(status),
        created_at=rest.created_at,
        updated_at=now,
        valid_from=rest.valid_from,
        valid_to=rest.valid_to,
        agent_id=rest.agent_id,
        run_id=rest.run_id,
    )
    mem.expires_at = rest.expires_at or lifecycle.expiry(mem.memory_type.value, now, s)
    mem.decay_score = lifecycle.decay_score(mem, now, s)
    return mem, decision


def llm_summary(ctx: RecordsPorts, content: str) -> str:
    """The configured LLM's summary of one memory, else the content (summarised
    extractively by the caller). Short content needs no LLM."""
    s = ctx.settings
    if not s.llm.summary_url or len(content) <= MAX_SUMMARY:
        return content
    from graphmem.infra.llm import complete

    try:
        return complete(
            s.llm.summary_url,
            s.llm.model,
            s.llm.api_key.get_secret_value() if s.llm.api_key else None,
            f"Summarise this memory in at most {MAX_SUMMARY} characters. Use only what it"
            " says. Answer with the summary alone.",
            content,
            timeout=s.llm.summary_timeout_seconds,
            max_tokens=40,
        )
    except Exception as e:  # noqa: BLE001 - the extractive summary always works
        log.warning("LLM summary unavailable, using the extractive one: %s", e)
        return content


def write_many(
    ctx: WritePorts,
    user_id: str,
    items: list[WriteItem | Mapping[str, Any]],
    *,
    tool: str | None = None,
    stamp: Callable[[Memory], None] | None = None,
) -> list[Memory]:
    """Store a batch: all validated and screened before any is written; one transaction;
    one embed batch. `tool` names the interface calling (e.g. "memory_write") in the audit
    row; rate limits are charged by the interface, per call, before it gets here. `stamp`
    marks each screened memory before it is embedded (its kind, metadata graphmem itself
    computed, such as an image's size: graphmem.usecases.images), after the firewall, so
    what the caller did not write is not screened as if it had.
    """
    user_id = check_user(user_id)
    if not isinstance(items, list) or not items:
        raise InvalidInputError("items", "must be a non-empty list")
    if len(items) > ctx.settings.writes.max_batch:
        raise InvalidInputError("items", f"at most {ctx.settings.writes.max_batch} per batch")
    with span("graphmem.write", user=user_id, items=len(items)):
        return _write(ctx, user_id, items, tool, stamp)


def _write(
    ctx: WritePorts,
    user_id: str,
    items: list[WriteItem | Mapping[str, Any]],
    tool: str | None,
    stamp: Callable[[Memory], None] | None,
) -> list[Memory]:
    now = utcnow()
    memories: list[Memory] = []
    decisions: list[WriteDecision] = []
    with span("graphmem.write.screen", items=len(items)) as step:
        for i, item in enumerate(items):
            try:
                m, d = prepare(ctx, user_id, item, now)
            except InvalidInputError as e:
                if isinstance(e, FirewallRejected):
                    ctx.records.audit(user_id, "reject", [], {"item": i, "tool": tool})
                if len(items) == 1:
                    raise
                raise InvalidInputError(f"items[{i}].{e.field}", e.message) from None
            if stamp is not None:
                stamp(m)
            memories.append(m)
            decisions.append(d)
        step.set(quarantined=sum(m.status == Status.QUARANTINED for m in memories))
    texts = [m.content for m in memories]
    # Embedding and entity extraction are the two big costs of a write and independent of
    # each other; ONNX Runtime (and torch) release the GIL while they compute, so the batch
    # is embedded in a worker thread while this thread runs spaCy: on 2 cores the two
    # overlap instead of adding up.
    embed = carry(ctx.embedder.encode, "graphmem.write.embed", texts=len(texts))
    pending = workers.pool("embed").submit(embed, texts)
    try:
        with span("graphmem.write.extract", texts=len(texts)):
            extractions = ctx.extractor.extract_many(texts)
    finally:
        vecs = pending.result()
    secrets = seal(ctx, user_id, memories, decisions)
    with ctx.serialised(user_id):
        with span("graphmem.write.plan") as step:
            plan = _plan(ctx, user_id, memories, vecs)
            graph = ctx.linker.link(user_id, memories, extractions)
            graph.relations.extend(plan.relations)
            step.set(supersede=len(plan.supersede), relations=len(graph.relations))
        with span("graphmem.write.commit", memories=len(memories)):
            ctx.records.insert(
                memories,
                [search_text(m.content) for m in memories],
                graph,
                plan.supersede,
                secrets,
            )
        with span("graphmem.write.project", memories=len(memories)):
            ctx.project(memories, vecs)
            if plan.supersede:
                ctx.projector.apply(ctx.records.outbox_for([x.old_id for x in plan.supersede]))
        # Last: a search on any replica that ran between the commit and the projection
        # cached its result under the version this moves past, so nobody is served it.
        ctx.invalidate(user_id)
    audit_writes(ctx, user_id, memories, decisions, tool, plan.outcomes)
    with span("graphmem.write.merge"):
        return merge_on_write(ctx, user_id, memories, vecs)


def _plan(ctx: WritePorts, user_id: str, memories: list[Memory], vecs: np.ndarray) -> WritePlan:
    """The temporal plan of a batch's memories. Only what was said plans updates: text read
    from an image (or a document) is untrusted and never ends a memory the user stated."""
    said = [i for i, m in enumerate(memories) if m.kind == Kind.MEMORY]
    if len(said) == len(memories):
        return ctx.temporal.plan(user_id, memories, vecs)
    for m in memories:
        m.valid_from = m.valid_from or m.created_at
    return ctx.temporal.plan(user_id, [memories[i] for i in said], vecs[said])


def seal(
    ctx: WritePorts, user_id: str, memories: Sequence[Memory], decisions: Sequence[WriteDecision]
) -> list[SecretRow]:
    """The vault rows of a batch's secrets, encrypted before the transaction that stores them
    with their memories: a memory is never stored holding a reference to nothing."""
    return ctx.vault.seal(
        user_id,
        [(m.id, it) for m, d in zip(memories, decisions, strict=True) for it in d.sealed],
    )


def audit_writes(
    ctx: RecordsPorts,
    user_id: str,
    memories: list[Memory],
    decisions: list[WriteDecision],
    tool: str | None,
    temporal: Mapping[str, Any] | None = None,
) -> None:
    """One audit row per batch: ids and screening outcomes, never content or PII values."""
    flagged = {
        m.id: d.audit_details()
        for m, d in zip(memories, decisions, strict=True)
        if d.action != "allow" or d.pii_found
    }
    ctx.records.audit(
        user_id,
        "write",
        [m.id for m in memories],
        {
            "count": len(memories),
            "tool": tool,
            "quarantined": sum(m.status == Status.QUARANTINED for m in memories),
            "pii_masked": sum(len(d.pii_found) for d in decisions),
            "flagged": flagged,
            **audit_by(),
            **({"temporal": dict(temporal)} if temporal else {}),
        },
    )


def hold_update(
    ctx: WritePorts, before: Memory, proposed: Memory, decision: WriteDecision, tool: str | None
) -> Memory:
    """Store a quarantined update as its own pending version, written like a new memory
    (embedded, linked, indexed, held out of recall by its status); `before` is not touched."""
    s = ctx.settings
    pending = ctx.temporal.held_update(before, proposed)
    pending.expires_at = lifecycle.expiry(pending.memory_type.value, pending.created_at, s)
    pending.decay_score = lifecycle.decay_score(pending, pending.created_at, s)
    vec = ctx.embedder.encode([pending.content])
    extractions = ctx.extractor.extract_many([pending.content])
    secrets = seal(ctx, pending.user_id, [pending], [decision])
    with ctx.serialised(pending.user_id):
        graph = ctx.linker.link(pending.user_id, [pending], extractions)
        ctx.records.insert([pending], [search_text(pending.content)], graph, None, secrets)
        ctx.project([pending], vec)
        ctx.invalidate(pending.user_id)  # last: a search cached before it was made is unreachable
        ctx.records.audit(
            pending.user_id,
            "update",
            [before.id, pending.id],
            {
                "content_changed": False,
                "held_for_review": pending.id,
                "tool": tool,
                **audit_by(),
                "screen": decision.audit_details(),
            },
        )
    return pending


__all__ = ["audit_writes", "hold_update", "llm_summary", "prepare", "seal", "write_many"]
