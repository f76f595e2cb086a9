"""The review queue: memories the firewall held back, and an operator's verdict on them."""

from __future__ import annotations

from graphmem import metrics
from graphmem.actor import CLI, Actor
from graphmem.context import Context
from graphmem.errors import InvalidInputError
from graphmem.model import Memory, Status, check_top_k, check_user
from graphmem.stores.records import RecordQuery
from graphmem.usecases.update import forget


def quarantined(ctx: Context, user_id: str, limit: int = 100) -> list[Memory]:
    """Memories the firewall held back from recall, waiting for review."""
    user_id = check_user(user_id)
    return ctx.records.list(
        RecordQuery(user_id, None, (Status.QUARANTINED.value,)), check_top_k(limit, 10_000)
    )


def review(
    ctx: Context, user_id: str, memory_ids: list[str], *, approve: bool, reviewer: Actor = CLI
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
        with ctx.writing(user_id), ctx.write_lock:
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


__all__ = ["quarantined", "review"]
