"""graphmem as an MCP server: MemoryService's operations as tools an LLM agent calls.

`graphmem serve` speaks streamable HTTP on 127.0.0.1 (one process, many agents, each
identified by its bearer token); `graphmem serve --stdio` serves the one local agent that
started it, as the user from settings. Both run the same FastMCP server built by
`create_server`, so a tool behaves identically whichever way it is reached.

Design choices that matter to callers:

* The user is never a tool argument. Over HTTP it comes from the token (see identity.py), over
  stdio from GRAPHMEM_USER_ID, so no argument can reach another user's memories.
* Every failure a caller can fix comes back as an MCP tool error whose text starts with the
  field to fix ("top_k: Input should be greater than or equal to 1"). Anything else is
  logged and masked, so the server never crashes on input and never leaks internals.
* Limits are checked before work: the HTTP body size before it is parsed, the serialised
  arguments before validation, every field by its JSON Schema before the tool body runs, and
  the service validates a whole write before embedding or storing anything.
"""

import argparse
import contextlib
import json
import logging
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

from pydantic import Field, SecretStr
from pydantic import ValidationError as PydanticValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from graphmem import __version__, logs, metrics
from graphmem.actor import Actor, current_actor
from graphmem.errors import (
    GraphmemError,
    NotFoundError,
    StoreUnavailableError,
    ValidationError,
)
from graphmem.guard import RateLimitExceeded
from graphmem.mcp.identity import TokenTable, add_token, check_role, token_verifier
from graphmem.mcp_access import RESOURCE_BUDGET, ToolStats, charges, mean, percentile
from graphmem.model import Status, check_user
from graphmem.observe import MAX_TURNS as MAX_OBSERVE_TURNS
from graphmem.observe import observe
from graphmem.preload import get_session, patch_session_preloaded
from graphmem.settings import Settings
from graphmem.stores.private_files import write_private
from graphmem.summary import summarize_many
from graphmem.temporal import validity
from graphmem.visibility import HeldForReviewError
from graphmem.working import (
    WorkingMemoryPatch,
    WorkingMemoryStore,
    check_session_id,
    empty,
    open_working,
)

if TYPE_CHECKING:
    from fastmcp import FastMCP
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

    from graphmem.model import Hit, Memory
    from graphmem.service import MemoryService

log = logging.getLogger("graphmem.mcp")
T = TypeVar("T")

MemoryTypeName = Literal["fact", "preference", "event", "task"]
SourceName = Literal["user", "agent", "document", "system"]
RelationName = Literal[
    "causal",
    "temporal",
    "related",
    "mentions",
    "merged_from",
    "explicit",
    "superseded_by",
    "contradicts",
]
TIME_RANGE_PATTERN = r"^\s*[1-9]\d*\s*[mhdwyMHDWY]\s*$"
TOOL_NAMES = frozenset(
    {
        "memory_write",
        "memory_search",
        "memory_update",
        "memory_forget",
        "memory_summarize",
        "working_memory_get",
        "working_memory_set",
        "memory_health",
        "memory_relate",
        "memory_graph",
        "memory_forget_user",
        "memory_quarantine_list",
        "memory_quarantine_review",
        "memory_history",
        "memory_observe",
    }
)
MAX_TOP_K = 50
MAX_IDS = 50
NEW_TODAY_CAP = 100_000


class McpSettings(BaseSettings):
    """Settings of the MCP server only; the store settings stay in graphmem.settings.Settings.

    Same GRAPHMEM_ prefix and .env file, so one environment configures both.
    """

    model_config = SettingsConfigDict(env_prefix="GRAPHMEM_", env_file=".env", extra="ignore")

    host: str = Field("127.0.0.1", description="HTTP bind address; loopback unless you mean it")
    port: int = Field(8765, ge=0, le=65535, description="HTTP port (0 picks a free one)")
    mcp_path: str = Field("/mcp", description="the streamable-HTTP endpoint path")
    tokens_file: Path | None = Field(
        None, description="hashed bearer tokens; default <data_dir>/mcp_tokens.json"
    )
    tokens: SecretStr | None = Field(
        None, description="GRAPHMEM_TOKENS: 'token=user' pairs, hashed when read"
    )
    working_backend: Literal["auto", "memory", "redis"] = Field(
        "auto", description="auto: redis when GRAPHMEM_REDIS_URL is set, else in-process"
    )
    redis_url: str | None = Field(None, description="Redis for working memory")
    working_ttl_seconds: float = Field(86_400, gt=0, description="working memory expires after")
    working_max_sessions: int = Field(10_000, gt=0, description="in-process adapter's bound")
    max_request_bytes: int = Field(
        262_144, gt=0, description="larger HTTP bodies / tool arguments are refused unread"
    )
    llm_url: str | None = Field(
        None, description="OpenAI-compatible base URL for memory_summarize, e.g. .../v1"
    )
    llm_model: str | None = None
    llm_api_key: SecretStr | None = None
    llm_timeout_seconds: float = Field(20.0, gt=0)
    metrics: bool = Field(True, description="serve Prometheus metrics over HTTP (GET /metrics)")
    metrics_path: str = Field("/metrics", description="where the Prometheus endpoint is")
    metrics_token: SecretStr | None = Field(
        None, description="if set, GET /metrics needs 'Authorization: Bearer <this>'"
    )
    torch_threads: int = Field(
        1,
        ge=0,
        description="intra-op threads for the embedding model in the server (0: torch's"
        " default). Requests already run in parallel threads; more intra-op threads only"
        " oversubscribe the CPU, which on a busy machine slows every embedding many times over",
    )

    def tokens_path(self, settings: Settings) -> Path:
        return (self.tokens_file or settings.data_dir / "mcp_tokens.json").expanduser()


GUIDANCE = """\
You have a long-term memory about the user, reached through the graphmem tools. Use it like
this:

1. Search before you answer anything about the past. When a question depends on what the user
   told you before - who they are, their preferences, people and projects they mentioned,
   earlier decisions, events, open tasks - call memory_search first, with the key names and
   nouns of the question. Add memory_type or time_range (e.g. "7d") when the question names a
   kind of thing or a period. Search again with other words if the first search misses.
2. Write personal facts, preferences and events when they appear. When the user states
   something lasting about themselves or their world (a fact), how they like things done
   (a preference), something that happened or is planned at a time (an event), or a commitment
   (a task), call memory_write with one self-contained sentence that says who, what and when,
   and the matching memory_type. Do not store small talk, passwords or other secrets, or what
   only matters for this turn.
3. Keep memory correct. If a stored memory turns out to be outdated or wrong, memory_update it.
   If the user asks you to forget something, memory_forget it and tell them what was deleted.
4. Never pretend to remember. Only state what a memory_search hit actually says. If nothing
   relevant comes back, say you do not have that in memory and ask - do not guess, and do not
   fill gaps with plausible details.
5. Keep this conversation's working memory current: working_memory_get at the start of a
   session, working_memory_set with the task context, a one-line summary of each turn and the
   names, numbers and preferences that come up.
"""

INSTRUCTIONS = (
    "graphmem: long-term and working memory for this user. Search memory (memory_search)"
    " before answering anything about the past; write personal facts, preferences, events and"
    " tasks (memory_write) when they appear; never pretend to remember - if a search finds"
    " nothing, say so. The prompt 'memory_guidance' has the full rules."
)


# ----------------------------------------------------------------------------- helpers
def _annotations(
    title: str,
    *,
    read_only: bool,
    destructive: bool = False,
    idempotent: bool = False,
    open_world: bool = False,
) -> Any:
    from mcp.types import ToolAnnotations

    return ToolAnnotations(
        title=title,
        read_only_hint=read_only,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=open_world,
    )


@contextlib.contextmanager
def _tool_errors() -> Iterator[None]:
    """graphmem's own errors -> MCP tool errors that name the field; everything else masked."""
    from fastmcp.exceptions import ToolError

    try:
        yield
    except ValidationError as e:
        raise ToolError(f"{e.field}: {e.message}") from None
    except NotFoundError as e:
        raise ToolError(str(e)) from None
    except StoreUnavailableError as e:
        raise ToolError(f"a store is unavailable, try again shortly ({e})") from None
    except GraphmemError as e:
        raise ToolError(str(e)) from None


def _compact_hit(h: "Hit") -> dict[str, Any]:
    """What a model needs from a hit: the text, its kind and age, and why it ranked there."""
    m = h.memory
    d: dict[str, Any] = {
        "memory_id": m.id,
        "content": m.content,
        "memory_type": m.memory_type.value,
        "score": round(h.score, 4),
        "scores": {k: round(v, 4) for k, v in h.scores.items()},
        "created_at": m.created_at.isoformat(),
        "source": m.source.value,
        **validity(m),
    }
    if m.session_id:
        d["session_id"] = m.session_id
    if m.metadata:
        d["metadata"] = m.metadata
    path = getattr(h, "path", None)
    if path:
        d["path"] = [step.to_dict() for step in path]
    return d


def _memory_dict(m: "Memory") -> dict[str, Any]:
    d = m.to_dict()
    d.pop("user_id", None)  # the caller is that user; echoing it adds nothing
    d["memory_id"] = d.pop("id")
    return d


# Arguments typed as objects/arrays that some clients send as a JSON string instead.
_JSON_ARGS = {
    "working_memory_set": ("content",),
    "memory_write": ("metadata",),
    "memory_summarize": ("memory_ids",),
    "memory_observe": ("turns",),
}


def _pydantic_message(e: PydanticValidationError) -> str:
    parts = []
    for d in e.errors(include_url=False, include_input=False):
        loc = ".".join(str(x) for x in d["loc"]) or "arguments"
        msg = d["msg"]
        if d["type"] == "unexpected_keyword_argument":
            msg = "is not an argument of this tool"
        elif d["type"] in ("missing_argument", "missing"):
            msg = "is required"
        elif d["type"] == "string_pattern_mismatch" and loc == "time_range":
            msg = "must be a number and a unit m/h/d/w/y, like '24h', '7d' or '2w'"
        parts.append(f"{loc}: {msg}")
    return "; ".join(parts)


def _guard_middleware(
    cfg: McpSettings,
    stats: ToolStats,
    identify: Callable[[], tuple[str, Actor]],
    charge: Callable[[str, str, list[tuple[str, float]]], None],
) -> Any:
    from fastmcp.exceptions import ResourceError, ToolError
    from fastmcp.exceptions import ValidationError as FastMCPValidationError
    from fastmcp.server.middleware import Middleware

    class GuardMiddleware(Middleware):
        """Identity, size limit, argument repair and the rate-limit charge before a tool runs;
        concise errors and per-user timing after.

        Applies to every transport, so stdio callers get the same limits as HTTP ones. The
        charge is taken here, for every tool from one table (graphmem.mcp_access), so no tool
        body can forget it.
        """

        async def on_call_tool(self, context: Any, call_next: Any) -> Any:
            from fastmcp.server.dependencies import get_http_headers

            incoming = get_http_headers().get(logs.REQUEST_ID_HEADER)
            with logs.request_context(logs.new_request_id(incoming)):
                return await self._call_tool(context, call_next)

        async def on_read_resource(self, context: Any, call_next: Any) -> Any:
            user, actor = identify()
            token = current_actor.set(actor)
            try:
                charge(user, "resources/read", [(RESOURCE_BUDGET, 1.0)])
            except RateLimitExceeded as e:
                raise ResourceError(str(e)) from None
            finally:
                current_actor.reset(token)
            return await call_next(context)

        async def _call_tool(self, context: Any, call_next: Any) -> Any:
            name = context.message.name
            args = context.message.arguments or {}
            user, actor = identify()
            size = len(json.dumps(args, ensure_ascii=False, default=str).encode())
            if size > cfg.max_request_bytes:
                stats.record(user, name, 0.0, ok=False)
                raise ToolError(
                    f"arguments: {size} bytes; this server accepts at most"
                    f" {cfg.max_request_bytes} per call (GRAPHMEM_MAX_REQUEST_BYTES)"
                )
            for key in _JSON_ARGS.get(name, ()):
                value = args.get(key)
                if isinstance(value, str) and value.strip()[:1] in ("{", "["):
                    with contextlib.suppress(json.JSONDecodeError):
                        args[key] = json.loads(value)
            start = time.perf_counter()
            ok = limited = False
            cost = charges(name, args)
            actor_token = current_actor.set(actor)  # audit rows written by the tool name it
            try:
                try:
                    charge(user, name, list(cost))
                except RateLimitExceeded as e:
                    limited = True
                    raise ToolError(str(e)) from None
                result = await call_next(context)
                ok = not getattr(result, "is_error", False)
                return result
            except FastMCPValidationError as e:
                cause = e.__cause__
                if isinstance(cause, PydanticValidationError):
                    raise ToolError(_pydantic_message(cause)) from None
                raise
            finally:
                current_actor.reset(actor_token)
                ms = (time.perf_counter() - start) * 1000
                metrics.observe_tool(
                    name if name in TOOL_NAMES else "(unknown tool)", ms / 1000, ok
                )
                stats.record(
                    user,
                    name if name in TOOL_NAMES else "(unknown tool)",  # made-up names stay out
                    ms,
                    ok,
                    rate_limited=limited,
                    charged=0.0 if limited else sum(units for _, units in cost),
                )
                log.info(
                    "tool call %s %s in %.1f ms",
                    name,
                    "ok" if ok else "failed",
                    ms,
                    extra={
                        "tool": name,
                        "outcome": "ok" if ok else "error",
                        "duration_ms": round(ms, 3),
                    },
                )

    return GuardMiddleware()


def _llm_summary(texts: list[str], cfg: McpSettings) -> str:
    """One call to an OpenAI-compatible chat-completions endpoint; raises on any failure."""
    from graphmem.llm import complete

    if not cfg.llm_url:
        raise ValueError("no LLM endpoint configured")
    return complete(
        cfg.llm_url,
        cfg.llm_model,
        cfg.llm_api_key.get_secret_value() if cfg.llm_api_key else None,
        "Summarise the user's memories below in at most three sentences."
        " Use only what they say; do not add facts.",
        "\n".join(f"{i}. {t}" for i, t in enumerate(texts, 1)),
        timeout=cfg.llm_timeout_seconds,
    )


def _count_new_since(svc: "MemoryService", user_id: str, since: datetime) -> int:
    """Memories created since `since`, capped. The records port has no count-by-time yet."""
    from graphmem.stores.records import RecordQuery

    q = RecordQuery(user_id, None, tuple(s.value for s in Status), created_after=since)
    return len(svc.records.list(q, NEW_TODAY_CAP))


# ----------------------------------------------------------------------------- the server
def create_server(
    service: "MemoryService",
    *,
    settings: McpSettings | None = None,
    working: WorkingMemoryStore | None = None,
    auth: Any = None,
    default_user: str | None = None,
) -> "FastMCP":
    """The FastMCP server over one MemoryService.

    With `auth` (a TokenVerifier) every call must carry a token and the token's user is the
    caller; without it (stdio, in-process) the caller is `default_user`, else the settings user.
    """
    import anyio
    from fastmcp import FastMCP
    from fastmcp.exceptions import ResourceError, ToolError
    from fastmcp.server.dependencies import get_access_token

    cfg = settings or McpSettings()
    svc = service
    wm = working or open_working(
        cfg.working_backend,
        ttl_seconds=cfg.working_ttl_seconds,
        redis_url=cfg.redis_url,
        max_sessions=cfg.working_max_sessions,
    )
    # Erasing a user reaches their working memory too.
    svc.purgers["working_memory"] = (wm.delete_user, wm.count_user)
    metrics.bind(svc)
    metrics.register_tools(TOOL_NAMES)
    local_user = check_user(default_user or svc.settings.user_id)
    local_actor = Actor("stdio", "agent")
    require_token = auth is not None
    stats = ToolStats()
    started = time.time()
    max_chars = svc.settings.max_content_chars
    llm_on = bool(cfg.llm_url)

    def identify() -> tuple[str, Actor]:
        """The user this request acts for and who is acting. Fails closed: a token server never
        falls back. The one local agent of a stdio (or in-process) server is an agent too."""
        token = get_access_token()
        if token is not None:
            claims = token.claims or {}
            user = claims.get("graphmem_user")
            if not isinstance(user, str) or not user:
                raise ToolError("authentication: this token does not name a graphmem user")
            try:
                role = check_role(claims.get("graphmem_role", "agent"))
            except ValidationError:
                raise ToolError("authentication: this token carries an unknown role") from None
            return user, Actor(str(claims.get("graphmem_label") or "token"), role)
        if require_token:
            raise ToolError("authentication: a bearer token is required")
        return local_user, local_actor

    def caller() -> str:
        return identify()[0]

    def charge(user: str, tool: str, cost: list[tuple[str, float]]) -> None:
        for budget, units in cost:
            svc.guard.check_rate(user, tool, units, kind=budget)

    mcp = FastMCP(
        "graphmem",
        instructions=INSTRUCTIONS,
        version=__version__,
        auth=auth,
        middleware=[_guard_middleware(cfg, stats, identify, charge)],
        mask_error_details=True,
    )

    async def run(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Service calls block (embedding, SQLite); keep them off the event loop."""
        return await anyio.to_thread.run_sync(partial(fn, *args, **kwargs))

    # ---------------------------------------------------------------- tools
    @mcp.tool(
        description="Store one new long-term memory about the user and return its memory_id."
        " Call it when the user states a lasting personal fact, a preference, an event (past or"
        " planned, with its date) or a task/commitment. Write one self-contained statement per"
        " call, with who, what and when, e.g. 'The user's manager is Priya (since March 2024).'"
        " Don't store small talk, secrets, or what only matters for this turn; if the memory"
        " already exists but changed, use memory_update instead.",
        annotations=_annotations("Write a memory", read_only=False),
    )
    async def memory_write(
        content: Annotated[
            str,
            Field(
                min_length=1,
                max_length=max_chars,
                description="The memory, one self-contained statement (who, what, when).",
            ),
        ],
        memory_type: Annotated[
            MemoryTypeName,
            Field(
                description="fact: a stable truth about the user or their world;"
                " preference: a like, dislike or way they want things done;"
                " event: something that happened or will happen at a time;"
                " task: something to do, a commitment or reminder."
            ),
        ],
        metadata: Annotated[
            dict[str, Any] | None,
            Field(description='Optional small JSON object (≤16 KiB), e.g. {"project": "Atlas"}.'),
        ] = None,
        source: Annotated[
            SourceName,
            Field(
                description="Who it came from: agent (you, the caller: the default), user (the"
                " user said it in so many words), document, or system."
            ),
        ] = "agent",
        session_id: Annotated[
            str | None,
            Field(max_length=128, description="The conversation it came from, if you track one."),
        ] = None,
    ) -> dict[str, Any]:
        user = caller()
        fields = {"metadata": metadata, "source": source, "session_id": session_id}
        with _tool_errors():
            m = await run(
                svc.write,
                user,
                content,
                memory_type,
                tool="memory_write",
                **{k: v for k, v in fields.items() if v is not None},
            )
        return {
            "memory_id": m.id,
            "memory_type": m.memory_type.value,
            "summary": m.summary,
            "created_at": m.created_at.isoformat(),
            # quarantined: held for an operator's review, not recalled until approved
            "status": m.status.value,
            # a true duplicate of a stored memory was merged into it: this is that memory's id
            **({"merged_into": m.merged_into} if m.merged_into else {}),
        }

    @mcp.tool(
        description="Recall the user's long-term memories most relevant to a query, best first."
        " Call it before answering anything that depends on the past (what the user said,"
        " their preferences, people, projects, events, tasks). Each hit has its content, a"
        " score in [0, 1] and the per-channel breakdown (vector similarity, keyword match,"
        " recency, frequency) and its validity (valid_from, valid_to, current). Only current"
        " facts are returned unless the query asks about the past or as_of/include_history is"
        " given. Only state what the hits say; if none is relevant, say you"
        " don't remember rather than guessing.",
        annotations=_annotations("Search memories", read_only=True, idempotent=True),
    )
    async def memory_search(
        query: Annotated[
            str,
            Field(
                min_length=1,
                max_length=max_chars,
                description="What to recall, in natural language; include the key names/nouns.",
            ),
        ],
        top_k: Annotated[
            int, Field(ge=1, le=MAX_TOP_K, description="How many hits to return.")
        ] = 5,
        memory_type: Annotated[
            MemoryTypeName | None,
            Field(description="Only memories of this type: fact, preference, event or task."),
        ] = None,
        time_range: Annotated[
            str | None,
            Field(
                pattern=TIME_RANGE_PATTERN,
                description="Only memories created within this window back from now: a number"
                " and a unit m/h/d/w/y, e.g. '24h', '7d', '2w'.",
            ),
        ] = None,
        expand_hops: Annotated[
            int | None,
            Field(
                ge=0,
                le=4,
                description="Also follow the memory graph this many hops from"
                " the best hits (default 2; 0 = only direct matches). Hits found this way"
                " carry the 'path' of relations that led to them.",
            ),
        ] = None,
        relation_types: Annotated[
            list[RelationName] | None,
            Field(description="Only follow these relation types when expanding."),
        ] = None,
        as_of: Annotated[
            str | None,
            Field(
                max_length=40,
                description="ISO-8601 date or time: recall what was true then (e.g. where the"
                " user lived in 2023). Default: what is true now.",
            ),
        ] = None,
        include_history: Annotated[
            bool,
            Field(
                description="Also return superseded (outdated) memories. Not needed for"
                " questions with 'before', 'used to', 'previously', '以前', '之前'."
            ),
        ] = False,
    ) -> dict[str, Any]:
        user = caller()
        with _tool_errors():
            res = await run(
                svc.search,
                user,
                query,
                top_k,
                memory_type=memory_type,
                time_range=time_range,
                expand_hops=expand_hops,
                relation_types=relation_types,
                as_of=as_of,
                include_history=include_history,
                tool="memory_search",
            )
        return {
            "hits": [_compact_hit(h) for h in res.hits],
            "count": len(res.hits),
            "took_ms": round(res.took_ms, 3),
            "degraded": res.degraded,
        }

    @mcp.tool(
        description="Replace the content of one existing memory (it is re-embedded and"
        " re-indexed; the previous content is kept as a superseded version, see"
        " memory_history). Use it when a stored memory is outdated or wrong, e.g. the user"
        " changed jobs. The memory_id comes from memory_search or memory_write.",
        annotations=_annotations(
            "Update a memory", read_only=False, destructive=True, idempotent=True
        ),
    )
    async def memory_update(
        memory_id: Annotated[
            str, Field(min_length=1, max_length=64, description="The memory to change.")
        ],
        content: Annotated[
            str,
            Field(
                min_length=1,
                max_length=max_chars,
                description="The complete new content; it replaces the old content entirely.",
            ),
        ],
    ) -> dict[str, Any]:
        user = caller()
        with _tool_errors():
            m = await run(svc.update, user, memory_id, content, tool="memory_update")
        if m.status == Status.QUARANTINED:
            # The firewall held the new content: the old version stays current until an
            # operator approves this pending one, so the caller must not think it changed.
            return {
                "memory_id": memory_id,
                "updated": False,
                "status": m.status.value,
                "pending_id": m.id,
                "reason": "the new content is held for review; the current version is unchanged",
            }
        return {
            "memory_id": m.id,
            "updated": True,
            "content": m.content,
            "summary": m.summary,
            "updated_at": m.updated_at.isoformat(),
        }

    @mcp.tool(
        description="Permanently delete memories, either one by memory_id or all memories"
        " similar to a query. Call it when the user asks you to forget something. Give exactly"
        " one of memory_id or query; with query, try dry_run=true first to see what would go."
        " Returns what was deleted so you can tell the user.",
        annotations=_annotations(
            "Forget memories", read_only=False, destructive=True, idempotent=True
        ),
    )
    async def memory_forget(
        memory_id: Annotated[
            str | None, Field(max_length=64, description="Delete exactly this memory.")
        ] = None,
        query: Annotated[
            str | None,
            Field(
                max_length=max_chars,
                description="Delete the memories about this (cosine similarity ≥ threshold).",
            ),
        ] = None,
        threshold: Annotated[
            float | None,
            Field(
                gt=0,
                le=1,
                description="Similarity a memory needs to match query (default 0.75);"
                " higher deletes less.",
            ),
        ] = None,
        limit: Annotated[
            int, Field(ge=1, le=MAX_IDS, description="At most this many memories (with query).")
        ] = 10,
        dry_run: Annotated[
            bool, Field(description="With query: only list what would be deleted.")
        ] = False,
    ) -> dict[str, Any]:
        user = caller()
        if (memory_id is None) == (query is None):
            raise ToolError("memory_id: give exactly one of memory_id or query")
        with _tool_errors():
            if memory_id is not None:
                m = await run(svc.get, user, memory_id)
                if not dry_run:
                    await run(svc.forget, user, [m.id])
                matched = [m]
            else:
                matched = await run(
                    svc.forget_by_query,
                    user,
                    query,
                    threshold=threshold,
                    limit=limit,
                    dry_run=dry_run,
                )
        items = [
            {"memory_id": m.id, "content": m.content, "memory_type": m.memory_type.value}
            for m in matched
        ]
        return {
            ("would_delete" if dry_run else "deleted"): items,
            "count": len(items),
            "dry_run": dry_run,
        }

    @mcp.tool(
        description="Hand over raw conversation turns and let graphmem decide what is worth"
        " keeping: an explicit 'remember ...', a preference, key task data (deadlines,"
        " appointments), a dated event, or a new person/place/thing become typed, summarised"
        " memories; an explicit 'forget ...' deletes the matching memories; small talk,"
        " questions and assistant turns are skipped. Rules, no LLM. Returns one decision per"
        " turn with its reason and the memory ids written or deleted.",
        annotations=_annotations("Observe conversation", read_only=False, destructive=True),
    )
    async def memory_observe(
        turns: Annotated[
            list[str | dict[str, str]],
            Field(
                min_length=1,
                max_length=MAX_OBSERVE_TURNS,
                description='Turns oldest first: strings (user turns) or {"role": "user" |'
                ' "assistant", "content": "..."} objects.',
            ),
        ],
        session_id: Annotated[
            str | None,
            Field(max_length=128, description="The conversation they came from, if tracked."),
        ] = None,
        dry_run: Annotated[
            bool, Field(description="Only decide: write and delete nothing.")
        ] = False,
    ) -> dict[str, Any]:
        user = caller()
        with _tool_errors():
            decisions = await run(
                observe,
                svc,
                user,
                turns,
                session_id=session_id,
                dry_run=dry_run,
                tool="memory_observe",
            )
        return {"decisions": [d.to_dict() for d in decisions], "dry_run": dry_run}

    @mcp.tool(
        description="Summarise the given memories into a short text, e.g. to brief yourself"
        " on several hits at once. Extractive (each memory's first sentence) unless the"
        " operator configured an LLM. Ids that don't exist are listed under 'missing', ids"
        " held in quarantine pending review under 'quarantined' (their content is withheld).",
        annotations=_annotations(
            "Summarise memories", read_only=True, idempotent=True, open_world=llm_on
        ),
    )
    async def memory_summarize(
        memory_ids: Annotated[
            list[Annotated[str, Field(min_length=1, max_length=64)]],
            Field(min_length=1, max_length=MAX_IDS, description="The memories to summarise."),
        ],
    ) -> dict[str, Any]:
        user = caller()
        found: list[Memory] = []
        missing: list[str] = []
        held: list[str] = []
        with _tool_errors():
            for mid in dict.fromkeys(memory_ids):
                try:
                    found.append(await run(svc.get, user, mid))
                except HeldForReviewError:
                    held.append(mid)
                except NotFoundError:
                    missing.append(mid)
        if not found:
            if held:
                raise ToolError(
                    f"memory_ids: {held} quarantined, pending review (content withheld);"
                    f" missing: {missing}"
                )
            raise ToolError(f"memory_ids: none of these exist for this user: {missing}")
        texts = [m.content for m in found]
        out: dict[str, Any] = {"memory_ids": [m.id for m in found], "missing": missing}
        if held:
            out["quarantined"] = held
        if llm_on:
            try:
                out["summary"] = await run(_llm_summary, texts, cfg)
                out["method"] = "llm"
                return out
            except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
                log.warning("LLM summary failed, using the extractive one: %s", e)
                out["llm_error"] = f"{type(e).__name__}: {e}"[:300]
        out["summary"] = summarize_many(texts)
        out["method"] = "extractive"
        return out

    @mcp.tool(
        description="Read this session's working memory: the current task context, summaries"
        " of the last few turns, and entity slots (names, numbers, preferences). Call it at"
        " the start of a session or after a break. A session that was never set or has expired"
        " comes back empty with exists=false.",
        annotations=_annotations("Get working memory", read_only=True, idempotent=True),
    )
    async def working_memory_get(
        session_id: Annotated[
            str, Field(min_length=1, max_length=128, description="The conversation's id.")
        ],
    ) -> dict[str, Any]:
        user = caller()
        with _tool_errors():
            sid = check_session_id(session_id)
            cur = await run(get_session, svc, wm, user, sid)
        return cur.to_dict()

    @mcp.tool(
        description="Update this session's working memory by patching it: set task_context,"
        " append turn summaries with add_turns (only the last 5 are kept), and set entity"
        ' slots, e.g. {"slots": {"names": {"manager": "Priya"}, "numbers": {"budget_eur":'
        " 5000}}}. Fields you leave out are kept; a slot set to null is removed; clear=true"
        " starts over. Every write renews the session's expiry. Returns the whole working"
        " memory after the change.",
        annotations=_annotations("Set working memory", read_only=False, destructive=True),
    )
    async def working_memory_set(
        session_id: Annotated[
            str, Field(min_length=1, max_length=128, description="The conversation's id.")
        ],
        content: Annotated[WorkingMemoryPatch, Field(description="The change to apply.")],
    ) -> dict[str, Any]:
        user = caller()
        with _tool_errors():
            new = await run(patch_session_preloaded, svc, wm, user, session_id, content)
        return new.to_dict()

    @mcp.tool(
        description="Health report: the caller's memory totals and new today, their recall"
        " latency, per-tool call counts and latency, rate-limit budgets, and whether each store"
        " is up. An operator token also gets the figures of all users together. Not needed"
        " for normal conversations.",
        annotations=_annotations("Memory health", read_only=True, idempotent=True),
    )
    async def memory_health() -> dict[str, Any]:
        user, actor = identify()
        return await run(_health, user, actor)

    def _health(user: str, actor: Actor) -> dict[str, Any]:
        """A tenant sees its own figures only: what other users store, how often they call
        which tool and how fast the service answers them say what they are doing. Store status
        is kept (up or not, and which backend); its counts are not. An operator runs the
        service for everyone and sees the totals as before."""
        everything = actor.is_operator
        out: dict[str, Any] = {"user_id": user, "role": actor.role, "version": __version__}
        st: dict[str, Any] = {}
        try:
            st = svc.stats(user)
            midnight = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
            out["memories"] = {
                "total": st.get("total"),
                "new_today": _count_new_since(svc, user, midnight),
                "by_type": st.get("by_type"),
                "by_status": st.get("by_status"),
            }
            if everything:
                out["memories"]["all_users_total"] = svc.records.count()
                out["outbox_pending"] = st.get("outbox_pending")
            stores = dict(st.get("stores", {}))
        except Exception as e:  # noqa: BLE001 - a health report must report, not fail
            log.warning("health: records unavailable: %s", e)
            out["memories"] = None
            stores = {
                "records": {"ok": False, "error": str(e)},
                "vectors": svc.vectors.health(),
            }
        lat = list(svc.latencies_ms) if everything else stats.latencies(user, "memory_search")
        out["recall"] = {
            "searches": len(lat),
            "avg_ms": mean(lat),
            "p50_ms": percentile(lat, 50),
            "p95_ms": percentile(lat, 95),
        }
        out["tools"] = stats.snapshot(user)
        out["rate_limits"] = (
            {
                budget: {"limit_per_minute": svc.guard.settings.rate_limits.get(budget, 0.0)}
                for budget in ("write", "search")
            }
            if svc.guard.limiter is not None
            else None
        )
        stores["working_memory"] = wm.health()
        out["status"] = "ok" if all(s.get("ok") for s in stores.values()) else "degraded"
        if not everything:
            stores = {
                k: {"backend": v.get("backend"), "ok": v.get("ok")} for k, v in stores.items()
            }
        out["stores"] = stores
        out["uptime_s"] = round(time.time() - started, 1)
        if everything:
            # Every cache the service reports (query embeddings, search results, ...), by name.
            rates = {
                k[: -len("_cache_hit_rate")]: v
                for k, v in st.items()
                if k.endswith("_cache_hit_rate")
            }
            rates.setdefault("query", round(svc.embedder.cache_hit_rate, 4))
            out["cache_hit_rate"] = rates
            out["all_users_tools"] = stats.snapshot()
            # The numbers GET /metrics serves, from the same collection (all users together).
            out["metrics"] = metrics.snapshot()
        return out

    @mcp.tool(
        description="State a relation between two of the user's memories, e.g. that one"
        " caused the other (causal), came before it (temporal) or is about the same thing"
        " (related). Recall then finds one from the other. Ids come from memory_search.",
        annotations=_annotations("Relate memories", read_only=False, idempotent=True),
    )
    async def memory_relate(
        source_id: Annotated[str, Field(min_length=1, max_length=64)],
        target_id: Annotated[str, Field(min_length=1, max_length=64)],
        relation_type: Annotated[
            RelationName, Field(description="The kind of relation.")
        ] = "related",
        strength: Annotated[float, Field(gt=0, le=1, description="How strong, 0-1.")] = 1.0,
    ) -> dict[str, Any]:
        user = caller()
        with _tool_errors():
            rel = await run(svc.relate, user, source_id, target_id, relation_type, strength)
        return {
            "source_id": rel.source_id,
            "target_id": rel.target_id,
            "relation_type": rel.relation_type,
            "strength": rel.strength,
        }

    @mcp.tool(
        description="Show every version of a memory, oldest first: what it superseded and what"
        " superseded it, each with valid_from / valid_to. Use it to answer how something"
        " changed over time (e.g. the user's previous addresses).",
        annotations=_annotations("Memory history", read_only=True, idempotent=True),
    )
    async def memory_history(
        memory_id: Annotated[str, Field(min_length=1, max_length=64)],
    ) -> dict[str, Any]:
        user = caller()
        with _tool_errors():
            versions = await run(svc.history, user, memory_id)
        return {
            "memory_id": memory_id,
            "versions": [{**_memory_dict(m), **validity(m)} for m in versions],
            "count": len(versions),
        }

    @mcp.tool(
        description="Show a memory's neighbourhood in the memory graph: the memories related"
        " to it within `hops`, with the relation types and the entities they mention.",
        annotations=_annotations("Memory graph", read_only=True, idempotent=True),
    )
    async def memory_graph(
        memory_id: Annotated[str, Field(min_length=1, max_length=64)],
        hops: Annotated[int, Field(ge=1, le=3)] = 1,
    ) -> dict[str, Any]:
        user = caller()
        with _tool_errors():
            return await run(svc.graph, user, memory_id, hops)

    @mcp.tool(
        description="Erase EVERYTHING stored about the calling user, in every store (memories,"
        " relations, entities, vectors, graph, working memory, caches). Irreversible. Only when"
        " the user explicitly asks to be forgotten entirely; `confirm` must be 'ERASE'. Returns"
        " a receipt with counts per store and a verification that nothing is left.",
        annotations=_annotations(
            "Erase the user", read_only=False, destructive=True, idempotent=True
        ),
    )
    async def memory_forget_user(
        confirm: Annotated[str, Field(description="Type ERASE to confirm.")],
    ) -> dict[str, Any]:
        user = caller()
        if confirm != "ERASE":
            raise ToolError("confirm: erasing a user is irreversible; pass confirm='ERASE'")
        with _tool_errors():
            receipt = await run(svc.forget_user, user, requested_by="mcp:memory_forget_user")
        return receipt.to_dict()

    @mcp.tool(
        description="List the user's memories that the memory firewall quarantined (held out"
        " of recall because they looked like injected instructions or contradicted what the"
        " user said before), with their ids, for review with memory_quarantine_review.",
        annotations=_annotations("Quarantined memories", read_only=True, idempotent=True),
    )
    async def memory_quarantine_list(
        limit: Annotated[int, Field(ge=1, le=500)] = 50,
    ) -> dict[str, Any]:
        user = caller()
        with _tool_errors():
            items = await run(svc.quarantined, user, limit)
        return {"quarantined": [_memory_dict(m) for m in items], "count": len(items)}

    @mcp.tool(
        description="Approve quarantined memories (they return to recall) or reject them"
        " (deleted from every store). Needs an operator token: an agent's call is refused, since"
        " the firewall holds back what agents write; ask the user to have the operator review.",
        annotations=_annotations(
            "Review quarantined memories", read_only=False, destructive=True, idempotent=True
        ),
    )
    async def memory_quarantine_review(
        memory_ids: Annotated[list[str], Field(min_length=1, max_length=MAX_IDS)],
        approve: Annotated[bool, Field(description="true: approve; false: reject and delete")],
    ) -> dict[str, Any]:
        user, actor = identify()
        with _tool_errors():
            done = await run(svc.review, user, memory_ids, approve=approve, reviewer=actor)
        return {("approved" if approve else "rejected"): done, "count": len(done)}

    # ---------------------------------------------------------------- resources
    @mcp.resource(
        "memory://{memory_id}",
        name="memory",
        description="One of the caller's long-term memories, as JSON. A memory held in"
        " quarantine is an error saying it is pending review, without its content.",
        mime_type="application/json",
    )
    async def memory_resource(memory_id: str) -> str:
        user = caller()
        try:
            m = await run(svc.get, user, memory_id)
        except GraphmemError as e:
            raise ResourceError(str(e)) from None
        return json.dumps(_memory_dict(m), ensure_ascii=False)

    @mcp.resource(
        "working://{session_id}",
        name="working_memory",
        description="The caller's working memory for one session (task context, recent turns,"
        " entity slots), as JSON.",
        mime_type="application/json",
    )
    async def working_resource(session_id: str) -> str:
        user = caller()
        try:
            sid = check_session_id(session_id)
            cur = await run(wm.get, user, sid)
        except GraphmemError as e:
            raise ResourceError(str(e)) from None
        return json.dumps((cur or empty(sid)).to_dict(), ensure_ascii=False)

    # ---------------------------------------------------------------- metrics
    if cfg.metrics:
        mcp.custom_route(cfg.metrics_path, methods=["GET"], include_in_schema=False)(
            partial(_metrics_endpoint, cfg)
        )

    # ---------------------------------------------------------------- prompt
    @mcp.prompt(
        name="memory_guidance",
        description="How to use graphmem: search before answering about the past, write"
        " personal facts/preferences/events as they appear, never pretend to remember.",
    )
    def memory_guidance() -> str:
        return GUIDANCE

    return mcp


# ----------------------------------------------------------------------------- HTTP layer
async def _metrics_endpoint(cfg: McpSettings, request: Any) -> Any:
    """GET /metrics: Prometheus exposition text. Counts only, no user ids and no content; still,
    set GRAPHMEM_METRICS_TOKEN when the port is reachable by anyone but your scraper."""
    import hmac

    import anyio
    from starlette.responses import JSONResponse, Response

    if cfg.metrics_token is not None:
        sent = request.headers.get("authorization", "")
        want = "Bearer " + cfg.metrics_token.get_secret_value()
        if not hmac.compare_digest(sent.encode(), want.encode()):
            return JSONResponse(
                {
                    "error": "invalid_token",
                    "error_description": "GET /metrics needs 'Authorization: Bearer <token>'"
                    " with the token in GRAPHMEM_METRICS_TOKEN.",
                },
                status_code=401,
                headers={"www-authenticate": "Bearer"},
            )
    body, content_type = await anyio.to_thread.run_sync(metrics.render)  # reads the stores
    return Response(body, media_type=content_type)


class HttpGate:
    """ASGI middleware in front of the MCP endpoint: clear 401s and a body-size limit.

    It runs after fastmcp's bearer authentication has set scope["user"], and before the MCP
    handler parses anything. fastmcp's own RequireAuthMiddleware still guards the route; this
    layer exists to answer a missing or wrong token with a JSON message a person can act on,
    and to refuse an oversized body before reading it into the JSON parser.
    """

    def __init__(self, app: "ASGIApp", *, mcp_path: str, max_bytes: int) -> None:
        self.app = app
        self.path = mcp_path.rstrip("/") or "/"
        self.max_bytes = max_bytes

    async def __call__(self, scope: "Scope", receive: "Receive", send: "Send") -> None:
        if scope["type"] != "http" or (scope["path"].rstrip("/") or "/") != self.path:
            await self.app(scope, receive, send)
            return
        scope, send = _with_request_id(scope, send)
        user = scope.get("user")
        if not getattr(user, "is_authenticated", False):
            await self._unauthorized(scope, send)
            return
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.max_bytes:
            await self._too_large(send, int(length))
            return
        if scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await self._too_large(send, size)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        replayed = False

        async def replay() -> "Message":
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _unauthorized(self, scope: "Scope", send: "Send") -> None:
        auth = next((v for k, v in scope.get("headers") or [] if k == b"authorization"), None)
        if auth is None:
            error = "missing_token"
            text = (
                "This graphmem MCP server needs a bearer token: send the header"
                " 'Authorization: Bearer <token>'. An operator creates tokens with"
                " `graphmem serve --add-token USER`."
            )
        elif auth[:7].lower() != b"bearer ":
            error = "invalid_request"
            text = "Use the Bearer scheme: 'Authorization: Bearer <token>'."
        else:
            error = "invalid_token"
            text = (
                "The bearer token was not recognised by this graphmem server (unknown,"
                " revoked or mistyped). Check the token your client sends; an operator"
                " creates new ones with `graphmem serve --add-token USER`."
            )
        challenge = f'Bearer error="{error}"' if error != "missing_token" else "Bearer"
        await _json_response(
            send,
            401,
            {"error": error, "error_description": text},
            [(b"www-authenticate", challenge.encode())],
        )

    async def _too_large(self, send: "Send", size: int) -> None:
        await _json_response(
            send,
            413,
            {
                "error": "payload_too_large",
                "error_description": f"The request body is at least {size} bytes; this server"
                f" accepts at most {self.max_bytes} (GRAPHMEM_MAX_REQUEST_BYTES). Nothing was"
                " processed.",
            },
            [(b"connection", b"close")],
        )


def _with_request_id(scope: "Scope", send: "Send") -> tuple["Scope", "Send"]:
    """Give the request an X-Request-Id (the caller's, if usable) that the tool call logs
    under, and echo it in the response so a client can quote it in a bug report."""
    key = logs.REQUEST_ID_HEADER.encode()
    headers = [(k, v) for k, v in scope.get("headers") or [] if k != key]
    sent = next((v for k, v in scope.get("headers") or [] if k == key), b"")
    rid = logs.new_request_id(sent.decode("latin-1")).encode()
    scope = {**scope, "headers": [*headers, (key, rid)]}

    async def send_with_id(message: "Message") -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), (key, rid)]}
        await send(message)

    return scope, send_with_id


async def _json_response(
    send: "Send", status: int, body: dict[str, Any], extra: list[tuple[bytes, bytes]]
) -> None:
    data = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(data)).encode()),
                *extra,
            ],
        }
    )
    await send({"type": "http.response.body", "body": data})


def http_middleware(cfg: McpSettings) -> list[Any]:
    from starlette.middleware import Middleware

    return [Middleware(HttpGate, mcp_path=cfg.mcp_path, max_bytes=cfg.max_request_bytes)]


async def serve_http(server: "FastMCP", cfg: McpSettings, *, log_level: str = "warning") -> None:
    """Run streamable HTTP until SIGINT/SIGTERM (uvicorn handles both gracefully).

    Host/Origin checking is on ("auto": enforced while bound to loopback), so a web page the
    user visits cannot reach the server through DNS rebinding or a cross-origin request.
    """
    uvicorn_config: dict[str, Any] = {"access_log": False}
    if logs.json_enabled():
        logs.route_framework_logs()
        uvicorn_config["log_config"] = None  # uvicorn logs through the root (JSON) handler
    await server.run_http_async(
        transport="http",
        host=cfg.host,
        port=cfg.port,
        path=cfg.mcp_path,
        host_origin_protection="auto",
        middleware=http_middleware(cfg),
        show_banner=False,
        log_level=log_level,
        uvicorn_config=uvicorn_config,
    )


# ----------------------------------------------------------------------------- CLI entry
def load_tokens(settings: Settings, cfg: McpSettings) -> TokenTable:
    env = cfg.tokens.get_secret_value() if cfg.tokens else None
    return TokenTable(cfg.tokens_path(settings), env)


def serve_command(args: argparse.Namespace) -> None:
    """`graphmem serve`: HTTP by default, --stdio for one local agent, --add-token to mint."""
    overrides: dict[str, Any] = {}
    if args.data_dir:
        overrides["data_dir"] = args.data_dir
    settings = Settings(**overrides)
    cfg = McpSettings()
    if args.host:
        cfg.host = args.host
    if args.port is not None:
        cfg.port = args.port
    if not 0 <= cfg.port <= 65535:
        raise ValidationError("port", "must be between 0 and 65535")

    role = getattr(args, "role", None)
    label = getattr(args, "label", None)
    if (role or label) and not args.add_token:
        raise ValidationError("role" if role else "label", "applies to --add-token only")
    if args.add_token:
        path = cfg.tokens_path(settings)
        role = role or "agent"
        token = add_token(path, args.add_token, role=role, label=label)
        if args.json:
            print(
                json.dumps(
                    {
                        "user_id": args.add_token,
                        "role": role,
                        "token": token,
                        "tokens_file": str(path),
                    }
                )
            )
        else:
            print(token)
            print(
                f"({role} token for user {args.add_token!r}; its SHA-256 is in {path}, the token"
                " itself is stored nowhere - keep it now. Clients send 'Authorization: Bearer"
                " <token>'.)",
                file=sys.stderr,
            )
        return

    level = logging.getLogger().getEffectiveLevel()
    log_level = logging.getLevelName(level).lower() if level <= logging.INFO else "warning"

    if args.stdio:
        import anyio

        user = check_user(args.user or settings.user_id)
        # Nothing but protocol may reach stdout; model loading gets stderr instead.
        with contextlib.redirect_stdout(sys.stderr):
            svc, working = _open_service(settings, cfg)
        try:
            server = create_server(svc, settings=cfg, working=working, default_user=user)
            anyio.run(partial(server.run_stdio_async, show_banner=False))
        except KeyboardInterrupt:
            pass  # the client went away or the user pressed Ctrl-C: a normal stop
        finally:
            working.close()
            svc.close()
        return

    if args.user:
        raise ValidationError(
            "user", "over HTTP the bearer token decides the user; --user applies to --stdio only"
        )
    table = load_tokens(settings, cfg)
    if len(table) == 0:
        _first_token(settings, cfg)
        table = load_tokens(settings, cfg)
    import anyio

    svc, working = _open_service(settings, cfg)
    try:
        server = create_server(svc, settings=cfg, working=working, auth=token_verifier(table))
        print(
            f"graphmem MCP server on http://{cfg.host}:{cfg.port}{cfg.mcp_path}"
            f" ({len(table.users())} user(s) with tokens; data in {settings.data_dir})",
            file=sys.stderr,
            flush=True,
        )
        anyio.run(partial(serve_http, server, cfg, log_level=log_level))
    except KeyboardInterrupt:
        pass
    finally:
        working.close()
        svc.close()


FIRST_TOKEN_FILE = "mcp_first_token"


def _first_token(settings: Settings, cfg: McpSettings) -> None:
    """Create the first token, for the settings user, so a first run works but is never open.

    Shown on the terminal when there is one. When stdout or stderr is not a terminal (a
    service manager, a container, `> log`), whatever is printed ends up in log files that
    outlive the token's secrecy, so the token goes to a 0600 file in the data directory
    instead and only that file's path is printed."""
    path = cfg.tokens_path(settings)
    token = add_token(path, settings.user_id)
    where = f"Its SHA-256 is in {path}; the token itself"
    how = (
        "Clients send 'Authorization: Bearer <token>'. Add more with `graphmem serve"
        " --add-token USER`."
    )
    if sys.stdout.isatty() and sys.stderr.isatty():
        print(
            f"graphmem: no MCP tokens were configured, so one was created for user"
            f" {settings.user_id!r}:\n\n    {token}\n\n{where} is stored nowhere, so copy it"
            f" now. {how}\n",
            file=sys.stderr,
        )
        return
    saved = (settings.data_dir / FIRST_TOKEN_FILE).expanduser()
    write_private(saved, token + "\n")
    print(
        f"graphmem: no MCP tokens were configured, so one was created for user"
        f" {settings.user_id!r} and written to {saved} (readable by this account only; not"
        f" printed, since this output is not a terminal). {where} is stored nowhere else:"
        f" read it, then delete that file. {how}",
        file=sys.stderr,
        flush=True,
    )


def _open_service(
    settings: Settings, cfg: McpSettings
) -> tuple["MemoryService", WorkingMemoryStore]:
    from graphmem.service import MemoryService

    if cfg.torch_threads:
        import torch

        torch.set_num_threads(cfg.torch_threads)

    working = open_working(
        cfg.working_backend,
        ttl_seconds=cfg.working_ttl_seconds,
        redis_url=cfg.redis_url,
        max_sessions=cfg.working_max_sessions,
    )
    svc = MemoryService(settings)
    svc.start_background()  # periodic compaction (if configured) and the outbox drain
    return svc, working


__all__ = [
    "GUIDANCE",
    "HttpGate",
    "McpSettings",
    "create_server",
    "http_middleware",
    "serve_command",
    "serve_http",
]
