"""Working memory: the short-lived, structured state of one conversation.

Long-term memories are rows that live until someone forgets them; working memory is the scratch
pad an agent keeps for the session it is in: what the task is, what the last few turns said,
and the names, numbers and preferences that came up. It is keyed by (user_id, session_id),
structured rather than raw text so an agent can patch one slot without rewriting the rest, and
it expires on its own (a TTL refreshed by every write) so abandoned sessions cost nothing.

This module holds the rules: the limits, what a patch may say, and `apply_patch`, the pure
merge. Where sessions are kept is graphmem.stores.working (an in-process and a Redis adapter);
both run `apply_patch` inside one atomic read-modify-write, so two concurrent patches never lose
each other's changes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from graphmem.domain import model
from graphmem.errors import InvalidInputError
from graphmem.stores.working import SLOT_KINDS, WorkingMemory, WorkingMemoryStore

MAX_TURNS = 5
"""Turn summaries kept; older ones fall off the front. The seed asks for the last 3-5 turns."""
MAX_TASK_CONTEXT = 2000
MAX_TURN_CHARS = 500
MAX_SLOTS_PER_KIND = 32
MAX_SLOT_KEY = 64
MAX_SLOT_VALUE = 300
MAX_SESSION_ID = 128

SlotKey = Annotated[str, Field(min_length=1, max_length=MAX_SLOT_KEY)]
SlotText = Annotated[str, Field(max_length=MAX_SLOT_VALUE)]
SlotNumber = Annotated[float, Field(allow_inf_nan=False)]


class SlotsPatch(BaseModel):
    """Entity slots to set. A key mapped to null removes that slot; keys not named stay as they
    are."""

    model_config = ConfigDict(extra="forbid")

    names: dict[SlotKey, SlotText | None] | None = Field(
        None,
        description="People, places, products, projects by role, e.g."
        ' {"manager": "Priya", "project": "Atlas"}.',
    )
    numbers: dict[SlotKey, int | SlotNumber | SlotText | None] | None = Field(
        None,
        description='Quantities, amounts, dates, ids, e.g. {"budget_eur": 5000,'
        ' "deadline": "2024-06-30", "order_id": "A-1138"}.',
    )
    preferences: dict[SlotKey, SlotText | None] | None = Field(
        None,
        description='How the user wants things for this task, e.g. {"tone": "brief",'
        ' "language": "German"}.',
    )


class WorkingMemoryPatch(BaseModel):
    """A change to one session's working memory. Every field is optional; fields left out are
    kept as they are."""

    model_config = ConfigDict(extra="forbid")

    task_context: str | None = Field(
        None,
        max_length=MAX_TASK_CONTEXT,
        description="What the user is trying to get done right now, in one or two sentences."
        ' Replaces the previous task context; "" clears it.',
    )
    add_turns: list[Annotated[str, Field(min_length=1, max_length=MAX_TURN_CHARS)]] | None = Field(
        None,
        max_length=MAX_TURNS,
        description="One-line summaries of the latest turns, oldest first, appended to"
        f" recent_turns; only the last {MAX_TURNS} are kept.",
    )
    recent_turns: list[Annotated[str, Field(max_length=MAX_TURN_CHARS)]] | None = Field(
        None,
        max_length=MAX_TURNS,
        description="Replaces the whole list of turn summaries (use [] to clear it); applied"
        " before add_turns.",
    )
    slots: SlotsPatch | None = Field(None, description="Entity slots to set or remove.")
    clear: bool = Field(
        False, description="Start from an empty working memory before applying the rest."
    )


def empty(session_id: str) -> WorkingMemory:
    return WorkingMemory(session_id=session_id)


def check_session_id(value: Any) -> str:
    """The same rule as a long-term memory's session id, so one id works in both."""
    return model.check_session_id(value, MAX_SESSION_ID)


def check_patch_text(patch: WorkingMemoryPatch) -> None:
    """Every text of a patch under the rule long-term memories follow (no control characters,
    no lone surrogates): working memory is handed to the agent verbatim at session start."""
    texts: list[tuple[str, str]] = []
    if patch.task_context is not None:
        texts.append(("content.task_context", patch.task_context))
    for name in ("recent_turns", "add_turns"):
        texts += [(f"content.{name}[{i}]", t) for i, t in enumerate(getattr(patch, name) or [])]
    for kind in SLOT_KINDS:
        for key, value in ((patch.slots and getattr(patch.slots, kind)) or {}).items():
            texts.append((f"content.slots.{kind}", key))
            if isinstance(value, str):
                texts.append((f"content.slots.{kind}.{key[:MAX_SLOT_KEY]}", value))
    for field_name, text in texts:
        model.check_chars(text, field_name)


def apply_patch(
    current: WorkingMemory | None,
    patch: WorkingMemoryPatch,
    session_id: str,
    now: float,
    ttl_seconds: float,
) -> WorkingMemory:
    """The merged working memory after `patch`; raises InvalidInputError before changing anything.

    Pure: the adapters call it inside their atomic update, so the merge rules are the same
    whichever store holds the data.
    """
    check_patch_text(patch)
    base = empty(session_id) if current is None or patch.clear else current
    turns = list(base.recent_turns) if patch.recent_turns is None else list(patch.recent_turns)
    turns = [t.strip() for t in [*turns, *(patch.add_turns or [])] if t.strip()][-MAX_TURNS:]
    slots = {k: dict(base.slots.get(k, {})) for k in SLOT_KINDS}
    if patch.slots is not None:
        for kind in SLOT_KINDS:
            for key, value in (getattr(patch.slots, kind) or {}).items():
                key = key.strip()
                if not key:
                    raise InvalidInputError(f"content.slots.{kind}", "slot names must not be blank")
                if value is None:
                    slots[kind].pop(key, None)
                else:
                    slots[kind][key] = value.strip() if isinstance(value, str) else value
            if len(slots[kind]) > MAX_SLOTS_PER_KIND:
                raise InvalidInputError(
                    f"content.slots.{kind}",
                    f"would hold {len(slots[kind])} entries; the limit is {MAX_SLOTS_PER_KIND}"
                    " (remove some with null values)",
                )
    task = base.task_context if patch.task_context is None else patch.task_context.strip()
    return WorkingMemory(
        session_id=session_id,
        task_context=task,
        recent_turns=turns,
        slots=slots,
        updated_at=now,
        expires_at=now + ttl_seconds,
        long_term=list(base.long_term),
    )


def patch_session(
    store: WorkingMemoryStore,
    user_id: str,
    session_id: str,
    patch: WorkingMemoryPatch,
    clock: Callable[[], float] = time.time,
) -> WorkingMemory:
    """Validate the ids, then merge `patch` into the session's working memory atomically."""
    session_id = check_session_id(session_id)
    return store.update(
        user_id,
        session_id,
        lambda cur: apply_patch(cur, patch, session_id, clock(), store.ttl_seconds),
    )


__all__ = [
    "MAX_TURNS",
    "SlotsPatch",
    "WorkingMemoryPatch",
    "apply_patch",
    "check_patch_text",
    "check_session_id",
    "empty",
    "patch_session",
]
