"""What a client can read besides calling tools: one memory (memory://{memory_id}) and one
session's working memory (working://{session_id}), as JSON, for the caller only.

Reading a resource returns content like a search and is charged like one (see middleware)."""

import json

from fastmcp import FastMCP
from fastmcp.exceptions import ResourceError

from graphmem.errors import GraphmemError
from graphmem.mcp.context import ToolContext
from graphmem.mcp.tools.common import memory_dict
from graphmem.working import check_session_id, empty


def register(mcp: FastMCP, ctx: ToolContext) -> None:
    svc, wm = ctx.service, ctx.working

    @mcp.resource(
        "memory://{memory_id}",
        name="memory",
        description="One of the caller's long-term memories, as JSON. A memory held in"
        " quarantine is an error saying it is pending review, without its content.",
        mime_type="application/json",
    )
    async def memory_resource(memory_id: str) -> str:
        user = ctx.caller()
        try:
            m = await ctx.run(svc.get, user, memory_id)
        except GraphmemError as e:
            raise ResourceError(str(e)) from None
        return json.dumps(memory_dict(m), ensure_ascii=False)

    @mcp.resource(
        "working://{session_id}",
        name="working_memory",
        description="The caller's working memory for one session (task context, recent turns,"
        " entity slots), as JSON.",
        mime_type="application/json",
    )
    async def working_resource(session_id: str) -> str:
        user = ctx.caller()
        try:
            sid = check_session_id(session_id)
            cur = await ctx.run(wm.get, user, sid)
        except GraphmemError as e:
            raise ResourceError(str(e)) from None
        return json.dumps((cur or empty(sid)).to_dict(), ensure_ascii=False)


__all__ = ["register"]
