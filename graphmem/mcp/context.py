"""What the tool modules share: the context every tool runs in, how a call learns who the
caller is, and the registry that records which tools exist.

A tool module gets everything through `register(mcp, ctx)`, so each can be read and imported
on its own, and none reaches into the server's assembly.
"""

import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import anyio
from fastmcp.exceptions import ToolError
from fastmcp.server.dependencies import get_access_token

from graphmem.domain.actor import Actor
from graphmem.errors import InvalidInputError
from graphmem.mcp.identity import check_role
from graphmem.mcp.stats import ToolStats
from graphmem.settings.server import McpSettings
from graphmem.stores.working import WorkingMemoryStore

if TYPE_CHECKING:
    from fastmcp import FastMCP
    from mcp.types import ToolAnnotations

    from graphmem.service.facade import MemoryService

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

Identify = Callable[[], tuple[str, Actor]]

Lane = Literal["read", "write"]
current_lane: ContextVar[Lane] = ContextVar("graphmem_mcp_lane", default="read")
"""The lane of the tool call in progress; the middleware sets it from the tool's budget."""


class WorkerLanes:
    """How many service calls run at once, in two lanes: writes, and everything else.

    Service calls block, so each runs in a worker thread. With one shared pool (anyio's
    default: 40 threads) a burst of writes fills it with threads that only wait for the
    service's write lock, and every search behind them waits for a free thread too: under
    200 clients a search that takes 50 ms once it runs waited seconds for a thread. Writes
    are serialised by that lock anyway, so a few write threads keep it busy (one writes while
    the others screen, embed and extract), and searches get their own threads and never queue
    behind writes. Fewer threads also leave the event loop more of the GIL, which it needs for
    every request it parses and every answer it sends.
    """

    def __init__(self, read: int, write: int) -> None:
        self.read = anyio.CapacityLimiter(read)
        self.write = anyio.CapacityLimiter(write)

    def limiter(self, lane: Lane) -> anyio.CapacityLimiter:
        return self.write if lane == "write" else self.read


def caller_lookup(*, require_token: bool, local_user: str) -> Identify:
    """The function that says which user a request acts for and who is acting.

    Fails closed: a server with token auth never falls back to `local_user`. The one local
    agent of a stdio (or in-process) server is an agent too.
    """
    local_actor = Actor("stdio", "agent")

    def identify() -> tuple[str, Actor]:
        token = get_access_token()
        if token is not None:
            claims = token.claims or {}
            user = claims.get("graphmem_user")
            if not isinstance(user, str) or not user:
                raise ToolError("authentication: this token does not name a graphmem user")
            try:
                role = check_role(claims.get("graphmem_role", "agent"))
            except InvalidInputError:
                raise ToolError("authentication: this token carries an unknown role") from None
            return user, Actor(str(claims.get("graphmem_label") or "token"), role)
        if require_token:
            raise ToolError("authentication: a bearer token is required")
        return local_user, local_actor

    return identify


@dataclass(frozen=True)
class ToolContext:
    """What tools need from the server: the service, the working memory, the settings, the
    per-user tool figures, and who is calling."""

    service: "MemoryService"
    working: WorkingMemoryStore
    settings: McpSettings
    stats: ToolStats
    identify: Identify
    lanes: WorkerLanes = field(default_factory=lambda: WorkerLanes(16, 4))
    started: float = field(default_factory=time.time)

    def caller(self) -> str:
        """The user this request acts for; the user is never a tool argument."""
        return self.identify()[0]

    @property
    def max_chars(self) -> int:
        return self.service.settings.writes.max_content_chars

    @property
    def llm_on(self) -> bool:
        return bool(self.service.settings.llm.url)

    async def run(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """Service calls block (embedding, SQLite); keep them off the event loop, in the
        worker lane of the call in progress (see WorkerLanes)."""
        limiter = self.lanes.limiter(current_lane.get())
        return await anyio.to_thread.run_sync(partial(fn, *args, **kwargs), limiter=limiter)


class ToolRegistry:
    """FastMCP's `tool` decorator, recording the name of every tool it registers.

    These names are the server's one list of tools: the budgets are checked against them, the
    metrics series are created for them and the middleware counts no other name, so a tool
    exists by being registered and no second list can fall out of step.
    """

    def __init__(self, app: "FastMCP") -> None:
        self.app = app
        self.names: list[str] = []

    def tool(self, *, description: str, annotations: "ToolAnnotations") -> Callable[[F], F]:
        register = self.app.tool(description=description, annotations=annotations)

        def record(fn: F) -> F:
            self.names.append(fn.__name__)
            return register(fn)

        return record


__all__ = [
    "Identify",
    "Lane",
    "ToolContext",
    "ToolRegistry",
    "WorkerLanes",
    "caller_lookup",
    "current_lane",
]
