"""The review queue: memories the firewall held back, why, and an operator's verdict on them.

Why a memory was held is read from the audit row its write (or held update) left: the
firewall's reasons are recorded there already, redacted, keyed by memory id. Keeping the reason
in the memory's metadata instead would put it in recall results and exports, let an agent
forge or erase it with its own metadata, and need clearing on approval; the audit row is
written once by the service, outlives an approval, and an erasure deletes it with the user.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from graphmem.domain.actor import CLI, Actor
from graphmem.domain.model import Memory, Status, check_top_k, check_user
from graphmem.errors import InvalidInputError, explain
from graphmem.infra import metrics
from graphmem.stores.records import RecordQuery
from graphmem.usecases.ports import ChangePorts, RecordsPorts
from graphmem.usecases.update import forget


def quarantined(ctx: RecordsPorts, user_id: str, limit: int = 100) -> list[Memory]:
    """Memories the firewall held back from recall, waiting for review."""
    user_id = check_user(user_id)
    return ctx.records.list(
        RecordQuery(user_id, None, (Status.QUARANTINED.value,)), check_top_k(limit, 10_000)
    )


UNKNOWN_REASON = "held by the memory firewall (no reason recorded)"
AUDIT_SCAN = 10_000
"""Audit rows read, newest first, to find the reasons of a queue: a queue older than that many
audited calls shows UNKNOWN_REASON for its oldest entries."""


@dataclass(frozen=True)
class HeldMemory:
    """A quarantined memory and why the firewall held it (its rules or classifier evidence,
    with the quoted excerpt, personal values redacted)."""

    memory: Memory
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {**self.memory.to_dict(), "reason": self.reason}


def reason_text(details: Mapping[str, Any] | None) -> str:
    """One line from a screening's audit details: its first reasons, else its risk."""
    if not details:
        return UNKNOWN_REASON
    reasons = [str(r) for r in details.get("reasons") or []]
    if reasons:
        return explain(reasons)
    risk = details.get("risk")
    return f"risk {float(risk):.2f}" if isinstance(risk, int | float) else UNKNOWN_REASON


def hold_reasons(ctx: RecordsPorts, user_id: str, memory_ids: Iterable[str]) -> dict[str, str]:
    """Why each of `memory_ids` was held, from the audit rows of the writes and held updates
    that created them (UNKNOWN_REASON when no row names it)."""
    user_id = check_user(user_id)
    wanted = set(memory_ids)
    found: dict[str, str] = {}
    if not wanted:
        return found
    for row in ctx.records.audit_rows(user_id, AUDIT_SCAN):
        details = row.get("details") or {}
        if row.get("action") == "write":
            for mid, screen in (details.get("flagged") or {}).items():
                if mid in wanted and mid not in found:
                    found[mid] = reason_text(screen)
        elif row.get("action") == "update":
            mid = details.get("held_for_review")
            if mid in wanted and mid not in found:
                found[mid] = reason_text(details.get("screen"))
        if len(found) == len(wanted):
            break
    return {mid: found.get(mid, UNKNOWN_REASON) for mid in wanted}


def held_for_review(ctx: RecordsPorts, user_id: str, limit: int = 100) -> list[HeldMemory]:
    """The review queue with each memory's reason (see the module docstring for where from)."""
    items = quarantined(ctx, user_id, limit)
    why = hold_reasons(ctx, user_id, [m.id for m in items])
    return [HeldMemory(m, why[m.id]) for m in items]


def review(
    ctx: ChangePorts, user_id: str, memory_ids: list[str], *, approve: bool, reviewer: Actor = CLI
) -> list[str]:
    """Approve (back into recall) or reject (deleted from every store) quarantined
    memories; only quarantined ones are touched. Returns the ids acted on.

    Only an operator reviews: the firewall quarantines what an agent wrote, so an agent
    that could approve would switch the firewall off for itself. In-process callers and the
    CLI act as the local operator; the MCP server passes the caller's token."""
    user_id = check_user(user_id)
    if not reviewer.is_operator:
        raise InvalidInputError(
            "role",
            f"reviewing quarantined memories is an operator's act; {reviewer.label!r} is"
            f" an {reviewer.role} token. Ask the operator to review them (`graphmem"
            " quarantine approve|reject ID`, or a token created with `graphmem serve"
            " --add-token USER --role operator`)",
        )
    ids = [str(i) for i in memory_ids]
    if not ids:
        raise InvalidInputError("memory_ids", "give at least one memory id")
    pending = {m.id for m in quarantined(ctx, user_id, 10_000)}
    ids = [i for i in ids if i in pending]
    if approve:
        with ctx.serialised(user_id):
            done = ctx.records.set_status(
                user_id, ids, Status.ACTIVE.value, only_from=Status.QUARANTINED.value
            )
            ended = ctx.temporal.on_approved(user_id, list(ctx.records.get(user_id, done).values()))
            done_and_ended = [*done, *(x.old_id for x in ended)]
            ctx.projector.apply(ctx.records.outbox_for(done_and_ended))
            ctx.invalidate(user_id)  # last: a search cached before it was made is unreachable
    else:
        done = forget(ctx, user_id, ids)
    metrics.quarantine_review(approve, len(done))
    ctx.records.audit(
        user_id,
        "approve" if approve else "reject_quarantined",
        done,
        {"reviewer": reviewer.label, "role": reviewer.role, "count": len(done)},
    )
    return done


__all__ = [
    "HeldMemory",
    "held_for_review",
    "hold_reasons",
    "quarantined",
    "reason_text",
    "review",
]
