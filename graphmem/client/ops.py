"""What the Python client does, written once for every way of running it.

`graphmem.open()` talks to an embedded MemoryService, `graphmem.open(url=...)` to a running
`graphmem serve`; each comes sync and async. The four must check arguments the same way and
return the same shapes, so the logic lives here once, as generators that never do I/O
themselves: each step yields a `Call` (an operation a backend performs, e.g. "search") and
receives its result. `run_sync` and `run_async` drive a generator against a backend; an error a
backend raises is thrown back into the generator, so a step can handle it.

Backends return memories as plain dicts in `Memory.to_dict()` form (the MCP tools' `memory_id`
is accepted for `id`); `item` turns one into the mem0-like shape the client returns.
`search`, which reads memories and documents alike, is in graphmem.client.documents.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from graphmem.errors import InvalidInputError, NotFoundError

R = TypeVar("R")


@dataclass(frozen=True)
class Call:
    """One backend operation (a method name of the backends) and its keyword arguments."""

    op: str
    args: dict[str, Any] = field(default_factory=dict)


Op = Generator[Call, Any, R]
"""A client operation: yields the calls it needs, returns its result."""


@dataclass(frozen=True)
class Identity:
    """Whose memories a client reaches: embedded, any user (default: the settings' user);
    remote, only its token's user (`fixed`)."""

    user_id: str
    fixed: bool


def run_sync(op: Op[R], call: Callable[[Call], Any]) -> R:
    """Drive `op`, running each call with `call` in this thread."""
    try:
        step = next(op)
        while True:
            try:
                result = call(step)
            except Exception as e:  # handed to the operation, which may handle it
                step = op.throw(e)
            else:
                step = op.send(result)
    except StopIteration as done:
        return done.value


async def run_async(op: Op[R], call: Callable[[Call], Awaitable[Any]]) -> R:
    """Drive `op`, awaiting each call."""
    try:
        step = next(op)
        while True:
            try:
                result = await call(step)
            except Exception as e:
                step = op.throw(e)
            else:
                step = op.send(result)
    except StopIteration as done:
        return done.value


# ------------------------------------------------------------------ arguments

# The same limits as graphmem.domain.requests (SORTS, MAX_LIST_LIMIT), checked before any call;
# restated, not imported, so that a remote client does not load the settings, the stores and
# numpy (tests/client/test_client.py checks they agree). The search rules every interface shares
# (graphmem.domain.validation, which is light) are imported.
PAGE_SIZE = 100  # the most one listing page holds
FORGET_BATCH = 50
SEARCH_FILTERS = ("session_id", "source", "min_confidence", "metadata", "memory_type")
LIST_FILTERS = (
    *SEARCH_FILTERS,
    "status",
    "created_after",
    "created_before",
    "valid_at",
)
SCOPES = ("agent_id", "run_id")
SORTS = ("newest", "oldest", "most_accessed", "decay")
ALL_STATUSES = ["active", "archived", "superseded"]  # what delete_all removes


def resolve_user(given: str | None, ident: Identity) -> str:
    """The user a call acts for. A remote client never acts for anyone but its token's user:
    asking for another is an error, never a silent switch (nor a silent read of the wrong
    user's memories)."""
    if given is None:
        return ident.user_id
    if not isinstance(given, str) or not given.strip():
        raise InvalidInputError("user_id", "must be a non-empty string")
    if ident.fixed and given != ident.user_id:
        raise InvalidInputError(
            "user_id",
            f"this client acts for {ident.user_id!r}, the user of its token; open a client"
            f" with the token of {given!r} to reach their memories",
        )
    return given


def _scope(name: str, value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(name, "must be a non-empty string")
    return value


def scopes(agent_id: Any, run_id: Any) -> dict[str, str]:
    """The scope arguments that were given, checked."""
    given = {"agent_id": _scope("agent_id", agent_id), "run_id": _scope("run_id", run_id)}
    return {k: v for k, v in given.items() if v is not None}


def check_filters(filters: Any, allowed: tuple[str, ...]) -> dict[str, Any]:
    """A `filters` dict: only known keys (an unknown one is most often a typo, and ignoring it
    would widen the search silently). `agent_id` and `run_id` are accepted here too, as in
    mem0's filters; values are checked where they are used (the service or the server)."""
    if filters is None:
        return {}
    if not isinstance(filters, Mapping):
        raise InvalidInputError("filters", "must be a dict, e.g. {'memory_type': 'fact'}")
    known = (*allowed, *SCOPES)
    unknown = sorted(str(k) for k in filters if k not in known)
    if unknown:
        raise InvalidInputError(
            "filters", f"unknown key(s) {', '.join(unknown)}; allowed: {', '.join(known)}"
        )
    return {k: v for k, v in filters.items() if v is not None}


def merged_filters(
    filters: Any, allowed: tuple[str, ...], agent_id: Any, run_id: Any
) -> dict[str, Any]:
    """Filters and scope arguments in one dict of SearchRequest / ListRequest field names
    (the MCP tools' argument names too); a scope given both ways must agree."""
    out = check_filters(filters, allowed)
    for key, value in scopes(agent_id, run_id).items():
        if key in out and out[key] != value:
            raise InvalidInputError(key, f"given as {value!r} and as filters[{key!r}]")
        out[key] = value
    for key in SCOPES:
        if key in out:
            out[key] = _scope(key, out[key])
    return out


def check_int(value: Any, name: str, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInputError(name, f"must be an integer, not {type(value).__name__}")
    if value < low:
        raise InvalidInputError(name, f"must be at least {low}")
    if high is not None and value > high:
        raise InvalidInputError(name, f"must be at most {high}")
    return value


def check_memory_id(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError("memory_id", "must be a non-empty string")
    return value


def check_text(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(name, "must be a non-empty string")
    return value


def parse_messages(messages: Any) -> list[dict[str, str]]:
    """Chat messages as mem0 takes them: a list of {"role", "content"} dicts (plain strings
    count as user turns)."""
    if not isinstance(messages, list) or not messages:
        raise InvalidInputError(
            "messages", "give a string or a non-empty list of {'role', 'content'} messages"
        )
    out: list[dict[str, str]] = []
    for i, m in enumerate(messages):
        if isinstance(m, str):
            m = {"role": "user", "content": m}
        if not isinstance(m, Mapping):
            raise InvalidInputError(f"messages[{i}]", "must be a {'role', 'content'} dict")
        role, content = m.get("role", "user"), m.get("content")
        if not isinstance(role, str) or role not in ("user", "assistant", "system", "tool"):
            raise InvalidInputError(
                f"messages[{i}].role", "must be 'user', 'assistant', 'system' or 'tool'"
            )
        if not isinstance(content, str):
            raise InvalidInputError(f"messages[{i}].content", "must be a string")
        out.append({"role": role, "content": content})
    return out


# ------------------------------------------------------------------ results

ITEM_KEYS = (
    "id",
    "memory",
    "memory_type",
    "metadata",
    "created_at",
    "updated_at",
    "user_id",
    "agent_id",
    "run_id",
    "session_id",
    "source",
    "confidence",
    "status",
    "summary",
    "valid_from",
    "valid_to",
)


def item(rec: Mapping[str, Any], user_id: str) -> dict[str, Any]:
    """One memory, mem0-like: `memory` is its text. Search hits add `score` (0..1), `scores`
    (per channel) and, when the graph brought them, `path`. A key the backend did not report
    is None, so every item has the same keys."""
    out: dict[str, Any] = {k: rec.get(k) for k in ITEM_KEYS}
    out["id"] = rec.get("id") or rec.get("memory_id")
    out["memory"] = rec.get("content")
    out["metadata"] = dict(rec.get("metadata") or {})
    out["user_id"] = rec.get("user_id") or user_id
    if "score" in rec:
        out["score"] = rec["score"]
        out["scores"] = dict(rec.get("scores") or {})
    if rec.get("path"):
        out["path"] = rec["path"]
    return out


def added(rec: Mapping[str, Any], user_id: str) -> dict[str, Any]:
    """A written memory with its mem0 event: ADD, or NONE when it duplicated a stored memory
    and was merged into it (`id` is then that memory's)."""
    out = item(rec, user_id)
    merged = rec.get("merged_into")
    if merged:
        out["id"] = merged
        out["merged_into"] = merged
    out["event"] = "NONE" if merged else "ADD"
    return out


# ------------------------------------------------------------------ operations


def add(
    data: Any,
    *,
    user_id: str | None,
    agent_id: str | None,
    run_id: str | None,
    metadata: dict[str, Any] | None,
    memory_type: str | None,
    infer: bool,
    session_id: str | None,
) -> Op[dict[str, Any]]:
    ident = yield Call("identity")
    user = resolve_user(user_id, ident)
    scope = scopes(agent_id, run_id)
    common = {
        **scope,
        **({"metadata": metadata} if metadata is not None else {}),
        **({"session_id": session_id} if session_id is not None else {}),
    }
    if isinstance(data, str):
        one = {"content": data, "memory_type": memory_type or "fact", "source": "user", **common}
        written = yield Call("write", {"user_id": user, "items": [one]})
        return {"results": [added(r, user) for r in written]}
    messages = parse_messages([data] if isinstance(data, Mapping) else data)
    if not infer:
        # Stored as said, one memory per message; system prompts are instructions, not memories.
        kept = [m for m in messages if m["role"] in ("user", "assistant")]
        if not kept:
            raise InvalidInputError("messages", "no user or assistant message to store")
        items = [
            {
                "content": m["content"],
                "memory_type": memory_type or "fact",
                "source": "user" if m["role"] == "user" else "agent",
                **common,
            }
            for m in kept
        ]
        written = yield Call("write", {"user_id": user, "items": items})
        return {"results": [added(r, user) for r in written]}
    if memory_type is not None:
        raise InvalidInputError(
            "memory_type",
            "the write policy types what it keeps from messages; give memory_type with a"
            " string or with infer=False",
        )
    turns = [m for m in messages if m["role"] in ("user", "assistant")]
    if not turns:
        raise InvalidInputError("messages", "no user or assistant message to observe")
    decisions = yield Call("observe", {"user_id": user, "turns": turns, **common})
    results: list[dict[str, Any]] = []
    for d in decisions:
        if d.get("action") == "write":
            for mid in d.get("memory_ids") or []:
                try:
                    rec = yield Call("get", {"user_id": user, "memory_id": mid})
                except NotFoundError:  # held for review: written, but its content withheld
                    rec = {"id": mid, "status": "quarantined", "memory_type": d.get("memory_type")}
                results.append({**item(rec, user), "event": "ADD"})
        elif d.get("action") == "forget":
            results.extend(
                {"id": mid, "memory": None, "event": "DELETE"} for mid in d.get("memory_ids") or []
            )
    return {"results": results, "decisions": decisions}


def get(memory_id: Any, *, user_id: str | None) -> Op[dict[str, Any]]:
    ident = yield Call("identity")
    user = resolve_user(user_id, ident)
    rec = yield Call("get", {"user_id": user, "memory_id": check_memory_id(memory_id)})
    return item(rec, user)


def _listing(
    user: str, where: dict[str, Any], limit: int, sort: str
) -> Generator[Call, Any, list[dict[str, Any]]]:
    """Up to `limit` memories, following the listing's cursors page by page."""
    out: list[dict[str, Any]] = []
    cursor: str | None = None
    while len(out) < limit:
        size = min(PAGE_SIZE, limit - len(out))
        params = {**where, "limit": size, "sort": sort, "cursor": cursor}
        records, cursor = yield Call("listing", {"user_id": user, "params": params})
        out.extend(records)
        if not cursor or not records:
            break
    return out[:limit]


def get_all(
    *,
    user_id: str | None,
    agent_id: str | None,
    run_id: str | None,
    filters: Any,
    limit: Any,
    sort: Any,
) -> Op[dict[str, Any]]:
    ident = yield Call("identity")
    user = resolve_user(user_id, ident)
    limit = check_int(limit, "limit", 1)
    if sort not in SORTS:
        raise InvalidInputError("sort", f"must be one of {', '.join(SORTS)}")
    where = merged_filters(filters, LIST_FILTERS, agent_id, run_id)
    records = yield from _listing(user, where, limit, sort)
    return {"results": [item(r, user) for r in records]}


def update(memory_id: Any, text: Any, *, user_id: str | None) -> Op[dict[str, Any]]:
    ident = yield Call("identity")
    user = resolve_user(user_id, ident)
    memory_id = check_memory_id(memory_id)
    text = check_text(text, "text")
    pending = yield Call("update", {"user_id": user, "memory_id": memory_id, "content": text})
    if pending:
        # The firewall held the new text for review: the memory is unchanged until approved.
        return {
            "id": memory_id,
            "event": "NONE",
            "status": "quarantined",
            "pending_id": pending,
            "message": "the new text is held for review; the memory is unchanged",
        }
    rec = yield Call("get", {"user_id": user, "memory_id": memory_id})
    return {**item(rec, user), "event": "UPDATE"}


def delete(memory_id: Any, *, user_id: str | None) -> Op[dict[str, Any]]:
    ident = yield Call("identity")
    user = resolve_user(user_id, ident)
    memory_id = check_memory_id(memory_id)
    gone = yield Call("forget", {"user_id": user, "memory_ids": [memory_id]})
    if memory_id not in gone:
        raise NotFoundError(memory_id)
    return {"id": memory_id, "event": "DELETE", "message": "Memory deleted"}


def delete_all(
    *, user_id: str | None, agent_id: str | None, run_id: str | None
) -> Op[dict[str, Any]]:
    if user_id is None and agent_id is None and run_id is None:
        # As in mem0: erasing everything must be asked for by name, never by a default.
        raise InvalidInputError(
            "user_id", "give user_id, agent_id or run_id: which memories to delete"
        )
    ident = yield Call("identity")
    user = resolve_user(user_id, ident)
    where = {**scopes(agent_id, run_id), "status": list(ALL_STATUSES)}
    # Every id first, then delete: deleting while paging could move the pages.
    ids: list[str] = []
    cursor: str | None = None
    while True:
        params = {**where, "limit": PAGE_SIZE, "sort": "oldest", "cursor": cursor}
        records, cursor = yield Call("listing", {"user_id": user, "params": params})
        ids.extend(r.get("id") or r["memory_id"] for r in records)
        if not cursor or not records:
            break
    gone: list[str] = []
    for start in range(0, len(ids), FORGET_BATCH):
        batch = ids[start : start + FORGET_BATCH]
        gone.extend((yield Call("forget", {"user_id": user, "memory_ids": batch})))
    n = len(gone)
    return {"deleted": gone, "count": n, "message": f"{n} memor{'y' if n == 1 else 'ies'} deleted"}


def reveal(memory_id: Any, refs: list[str] | None, *, user_id: str | None) -> Op[dict[str, Any]]:
    """A memory's vaulted secrets, for its owner: {"memory_id", "secrets": [{ref, type, value}]}."""
    ident = yield Call("identity")
    user = resolve_user(user_id, ident)
    args = {"user_id": user, "memory_id": check_memory_id(memory_id), "refs": refs}
    return (yield Call("reveal", args))


def history(memory_id: Any, *, user_id: str | None) -> Op[list[dict[str, Any]]]:
    ident = yield Call("identity")
    user = resolve_user(user_id, ident)
    versions = yield Call("history", {"user_id": user, "memory_id": check_memory_id(memory_id)})
    return [item(v, user) for v in versions]


__all__ = [
    "Call",
    "Identity",
    "Op",
    "add",
    "delete",
    "delete_all",
    "get",
    "get_all",
    "history",
    "item",
    "run_async",
    "run_sync",
    "update",
]
