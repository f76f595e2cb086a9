"""What happens around every MCP call: who is calling, what the call costs, and what a failure
says.

Every tool that writes or reads memory content is charged to one of the caller's two rate-limit
budgets (graphmem.guard.ratelimit) before it runs, in one place (this middleware), so a new tool
cannot forget to pay and no tool is a way around another's limit. `TOOL_BUDGETS` is the table;
`charges` turns one call's arguments into what it costs; `check_budgets` holds the table to the
tools the server registered. The middleware applies to every transport, so stdio callers get
the same limits as HTTP ones.

Every failure a caller can fix comes back as a tool error whose text starts with the field to
fix; argument validation errors are rewritten from pydantic's into that form here.
"""

import contextlib
import json
import logging
import time
from collections.abc import Callable, Collection, Mapping
from typing import Any

from fastmcp.exceptions import ResourceError, ToolError
from fastmcp.exceptions import ValidationError as FastMCPValidationError
from fastmcp.server.dependencies import get_http_headers
from fastmcp.server.middleware import Middleware
from pydantic import ValidationError as PydanticValidationError

from graphmem.domain.actor import current_actor
from graphmem.domain.requests import ListRequest, SearchRequest
from graphmem.errors import InvalidInputError
from graphmem.guard import RateLimitExceeded
from graphmem.guard.ratelimit import Budget
from graphmem.infra import logs, metrics, tracing
from graphmem.mcp.context import Lane, ToolContext, current_lane
from graphmem.settings import Settings

log = logging.getLogger("graphmem.mcp")

# The budget each tool draws on, one unit per call unless `charges` says otherwise.
# - write: anything that stores, changes or deletes memory content (working memory included);
#   reviewing quarantine approves or deletes memories, erasing a user deletes everything.
# - search: anything that returns memory content.
# - none: `memory_health` returns counts and status, no content, and it is where a caller reads
#   its budgets, so it must answer when they are used up.
TOOL_BUDGETS: dict[str, Budget | None] = {
    "memory_write": "write",
    "memory_write_image": "write",
    "memory_update": "write",
    "memory_observe": "write",
    "memory_relate": "write",
    "memory_forget": "write",
    "memory_forget_user": "write",
    "memory_quarantine_review": "write",
    "working_memory_set": "write",
    "memory_search": "search",
    "memory_get": "search",
    "memory_reveal": "search",
    "memory_list": "search",
    "memory_history": "search",
    "memory_graph": "search",
    "memory_summarize": "search",
    "memory_quarantine_list": "search",
    "working_memory_get": "search",
    "memory_health": None,
    "document_ingest": "write",
    "document_delete": "write",
    "document_list": "search",
    "memory_import": "write",
}
# Reading a resource (memory://{id}, working://{session}) returns content like a search.
RESOURCE_BUDGET: Budget = "search"


def charges(tool: str, args: Mapping[str, Any]) -> list[tuple[Budget, float]]:
    """What one call costs, as (budget, units) pairs, from its raw arguments.

    - `memory_observe` pays one write per turn it screens, dry run or not: screening (entity
      extraction, the firewall, a similarity search per "forget ...") is the work, and
      the result says which turns would be kept, so a dry run is no cheaper to serve.
    - `memory_forget` by `query` searches, and returns what matched, so it pays a search, and a
      write as well unless it is a dry run; by `memory_id` it pays a write.
    Unknown tools cost nothing here; the server refuses them anyway.
    """
    if tool == "memory_forget" and args.get("query") is not None:
        cost: list[tuple[Budget, float]] = [("search", 1.0)]
        if args.get("dry_run") is not True:
            cost.append(("write", 1.0))
        return cost
    budget = TOOL_BUDGETS.get(tool)
    if budget is None:
        return []
    if tool == "document_ingest":  # each document is a write (a batch of chunk writes)
        sources = args.get("sources")
        n = (len(sources) if isinstance(sources, list) else 0) + (args.get("content") is not None)
        return [(budget, float(max(1, n)))]
    if tool == "memory_observe":
        turns = args.get("turns")
        return [(budget, float(max(1, len(turns)) if isinstance(turns, list) else 1))]
    return [(budget, 1.0)]


def lane_of(cost: list[tuple[Budget, float]]) -> Lane:
    """A call that spends from the write budget writes, so it waits in the write lane (see
    graphmem.mcp.context.WorkerLanes); every other call reads."""
    return "write" if any(budget == "write" for budget, _ in cost) else "read"


def check_budgets(tools: Collection[str]) -> None:
    """Refuse to build a server whose tools and budget table disagree: a registered tool without
    an entry would run unpriced, an entry without a tool is a typo that prices nothing."""
    unpriced = sorted(set(tools) - set(TOOL_BUDGETS))
    unknown = sorted(set(TOOL_BUDGETS) - set(tools))
    if unpriced or unknown:
        raise RuntimeError(
            f"TOOL_BUDGETS is out of step with the registered tools: no budget for {unpriced},"
            f" budgets for tools that do not exist: {unknown}"
        )


# Arguments typed as objects/arrays that some clients send as a JSON string instead.
JSON_ARGS = {
    "working_memory_set": ("content",),
    "memory_write": ("metadata",),
    "memory_summarize": ("memory_ids",),
    "memory_get": ("memory_ids",),
    "memory_search": ("metadata", "source", "relation_types"),
    "memory_list": ("metadata", "source", "status"),
    "memory_observe": ("turns", "metadata"),
}


# The requests whose checks are the rules behind a tool's JSON schema. The schema tells a model
# what to send; when it refuses an argument, the rule's own words are the error, the same the
# service, the CLI and the Python client give for that input (graphmem.domain.validation).
RULES: dict[str, Callable[[dict[str, Any], Settings], object]] = {
    "memory_search": lambda args, settings: SearchRequest(**args).validated(settings),
    "memory_list": lambda args, _settings: ListRequest(**args).checked(),
}


def rule_message(tool: str, args: Mapping[str, Any], settings: Settings) -> str | None:
    """The rule's one-line error for these arguments, or None when the tool has no request,
    the arguments do not make one, or the rule accepts them (the schema is stricter there)."""
    check = RULES.get(tool)
    if check is None:
        return None
    try:
        check(dict(args), settings)
    except InvalidInputError as e:
        return str(e)
    except Exception:  # an argument the request does not take: the schema's words stand
        return None
    return None


def pydantic_message(e: PydanticValidationError, rule: str | None = None) -> str:
    """The schema's refusals, one `field: message` each; a refusal of the field `rule` (a
    rule_message) names is said in the rule's words instead."""
    ruled = rule.split(":", 1)[0].split(".", 1)[0] if rule else None
    parts: list[str] = []
    for d in e.errors(include_url=False, include_input=False):
        loc = ".".join(str(x) for x in d["loc"]) or "arguments"
        msg = d["msg"]
        if rule and d["loc"] and str(d["loc"][0]) == ruled:
            if rule not in parts:
                parts.append(rule)
            continue
        if d["type"] == "unexpected_keyword_argument":
            msg = "is not an argument of this tool"
        elif d["type"] in ("missing_argument", "missing"):
            msg = "is required"
        elif d["type"] == "string_pattern_mismatch" and loc == "time_range":
            msg = "must be a number and a unit m/h/d/w/y, like '24h', '7d' or '2w'"
        parts.append(f"{loc}: {msg}")
    return "; ".join(parts)


class GuardMiddleware(Middleware):
    """Identity, size limit, argument repair and the rate-limit charge before a tool runs;
    concise errors and per-user timing after.

    `tools` is set by the server once every tool is registered: a name outside it (a call to
    a tool that does not exist) is counted as "(unknown tool)", so made-up names cannot grow
    the statistics or the metrics series.
    """

    def __init__(self, ctx: ToolContext) -> None:
        self.ctx = ctx
        self.tools: frozenset[str] = frozenset()

    def _charge(self, user: str, tool: str, cost: list[tuple[Budget, float]]) -> None:
        for budget, units in cost:
            self.ctx.service.guard.check_rate(user, tool, units, kind=budget)

    async def on_call_tool(self, context: Any, call_next: Any) -> Any:
        headers = get_http_headers()
        name = context.message.name
        tool = name if name in self.tools else "(unknown tool)"  # made-up names stay out
        with (
            logs.request_context(logs.new_request_id(headers.get(logs.REQUEST_ID_HEADER))),
            tracing.joined(headers, "graphmem.mcp.call", tool=tool),
        ):
            return await self._call_tool(context, call_next)

    async def on_read_resource(self, context: Any, call_next: Any) -> Any:
        user, actor = self.ctx.identify()
        token = current_actor.set(actor)
        try:
            self._charge(user, "resources/read", [(RESOURCE_BUDGET, 1.0)])
        except RateLimitExceeded as e:
            raise ResourceError(str(e)) from None
        finally:
            current_actor.reset(token)
        return await call_next(context)

    async def _call_tool(self, context: Any, call_next: Any) -> Any:
        cfg, stats = self.ctx.settings, self.ctx.stats
        name = context.message.name
        args = context.message.arguments or {}
        user, actor = self.ctx.identify()
        size = len(json.dumps(args, ensure_ascii=False, default=str).encode())
        if size > cfg.max_request_bytes:
            stats.record(user, name, 0.0, ok=False)
            raise ToolError(
                f"arguments: {size} bytes; this server accepts at most"
                f" {cfg.max_request_bytes} per call (GRAPHMEM_MAX_REQUEST_BYTES)"
            )
        for key in JSON_ARGS.get(name, ()):
            value = args.get(key)
            if isinstance(value, str) and value.strip()[:1] in ("{", "["):
                with contextlib.suppress(json.JSONDecodeError):
                    args[key] = json.loads(value)
        start = time.perf_counter()
        ok = limited = False
        cost = charges(name, args)
        actor_token = current_actor.set(actor)  # audit rows written by the tool name it
        lane_token = current_lane.set(lane_of(cost))
        try:
            try:
                self._charge(user, name, list(cost))
            except RateLimitExceeded as e:
                limited = True
                raise ToolError(str(e)) from None
            result = await call_next(context)
            ok = not getattr(result, "is_error", False)
            return result
        except FastMCPValidationError as e:
            cause = e.__cause__
            if isinstance(cause, PydanticValidationError):
                rule = rule_message(name, args, self.ctx.service.settings)
                raise ToolError(pydantic_message(cause, rule)) from None
            raise
        finally:
            current_lane.reset(lane_token)
            current_actor.reset(actor_token)
            ms = (time.perf_counter() - start) * 1000
            metrics.observe_tool(name if name in self.tools else "(unknown tool)", ms / 1000, ok)
            stats.record(
                user,
                name if name in self.tools else "(unknown tool)",  # made-up names stay out
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


__all__ = [
    "RESOURCE_BUDGET",
    "TOOL_BUDGETS",
    "GuardMiddleware",
    "charges",
    "check_budgets",
    "lane_of",
]
