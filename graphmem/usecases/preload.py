"""Working memory preloaded at session start from the user's long-term memories.

A new session should not start blank: the agent gets the user's most recently touched and most
used long-term memories (ids, summaries, types) in the session's working memory (`long_term`),
so the first turn can already use them without a search. Reading a session that does not exist
yet shows the preload without creating the session (it still says exists=false); the first
write to it stores the preload with it, so it stays the same for the whole session. An
existing session is never re-preloaded.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from graphmem.domain.model import Memory, check_user
from graphmem.domain.visibility import visible
from graphmem.domain.working import WorkingMemoryPatch, check_session_id, patch_session
from graphmem.stores.working import WorkingMemory, WorkingMemoryStore
from graphmem.usecases.ports import ReadPorts


def preload_items(ctx: ReadPorts, user_id: str, limit: int) -> list[dict[str, Any]]:
    """Up to `limit` recent and `limit` most-used active memories, recent first, no repeats."""
    if limit <= 0:
        return []
    ctx.access.flush()
    found = ctx.records.preload_candidates(user_id, limit)
    out: dict[str, dict[str, Any]] = {}
    for why in ("recent", "frequent"):
        for m in found[why]:
            if visible(m):  # the store already picks active rows; the agent rule decides
                out.setdefault(m.id, _item(m, why))
    return list(out.values())


def _item(m: Memory, why: str) -> dict[str, Any]:
    return {
        "memory_id": m.id,
        "summary": m.summary,
        "memory_type": m.memory_type.value,
        "access_count": m.access_count,
        "why": why,
    }


def start_session(
    ctx: ReadPorts,
    store: WorkingMemoryStore,
    user_id: str,
    session_id: str,
    clock: Callable[[], float] = time.time,
) -> WorkingMemory:
    """The session's working memory, created with its preload if the session is new."""
    user_id = check_user(user_id)
    session_id = check_session_id(session_id)
    current = store.get(user_id, session_id)
    if current is not None:
        return current
    items = preload_items(ctx, user_id, ctx.settings.lifecycle.preload_memories)

    def create(cur: WorkingMemory | None) -> WorkingMemory:
        if cur is not None:  # another request started it meanwhile
            return cur
        now = clock()
        return WorkingMemory(
            session_id, updated_at=now, expires_at=now + store.ttl_seconds, long_term=items
        )

    return store.update(user_id, session_id, create)


def get_session(
    ctx: ReadPorts, store: WorkingMemoryStore, user_id: str, session_id: str
) -> WorkingMemory:
    """The session's working memory; a new session shows what it would be preloaded with."""
    session_id = check_session_id(session_id)
    current = store.get(user_id, session_id)
    if current is not None:
        return current
    return WorkingMemory(
        session_id, long_term=preload_items(ctx, user_id, ctx.settings.lifecycle.preload_memories)
    )


def patch_session_preloaded(
    ctx: ReadPorts,
    store: WorkingMemoryStore,
    user_id: str,
    session_id: str,
    patch: WorkingMemoryPatch,
) -> WorkingMemory:
    """`patch_session`, starting the session (with its preload) first if it is new."""
    start_session(ctx, store, user_id, session_id)
    return patch_session(store, user_id, session_id, patch)


__all__ = ["get_session", "patch_session_preloaded", "preload_items", "start_session"]
