"""The working-memory tools: one session's task context, recent turns and entity slots, read
and patched by the agent in the conversation."""

from typing import Annotated

from pydantic import Field

from graphmem.domain.working import WorkingMemoryPatch, check_session_id
from graphmem.mcp.context import ToolContext, ToolRegistry
from graphmem.mcp.results_ops import WorkingMemoryResult
from graphmem.mcp.tools.common import tool_annotations, tool_errors


def register(mcp: ToolRegistry, ctx: ToolContext) -> None:
    """Register working_memory_get and working_memory_set; `mcp` records their names."""
    svc, wm = ctx.service, ctx.working

    @mcp.tool(
        description="Read this session's working memory: the current task context, summaries"
        " of the last few turns, and entity slots (names, numbers, preferences). Call it at"
        " the start of a session or after a break. A session that was never set or has expired"
        " comes back empty with exists=false.",
        annotations=tool_annotations("Get working memory", read_only=True, idempotent=True),
    )
    async def working_memory_get(
        session_id: Annotated[
            str, Field(min_length=1, max_length=128, description="The conversation's id.")
        ],
    ) -> WorkingMemoryResult:
        user = ctx.caller()
        with tool_errors():
            sid = check_session_id(session_id)
            cur = await ctx.run(svc.working_memory, wm, user, sid)
        return WorkingMemoryResult.model_validate(cur.to_dict())

    @mcp.tool(
        description="Update this session's working memory by patching it: set task_context,"
        " append turn summaries with add_turns (only the last 5 are kept), and set entity"
        ' slots, e.g. {"slots": {"names": {"manager": "Priya"}, "numbers": {"budget_eur":'
        " 5000}}}. Fields you leave out are kept; a slot set to null is removed; clear=true"
        " starts over. Every write renews the session's expiry. Returns the whole working"
        " memory after the change.",
        annotations=tool_annotations("Set working memory", read_only=False, destructive=True),
    )
    async def working_memory_set(
        session_id: Annotated[
            str, Field(min_length=1, max_length=128, description="The conversation's id.")
        ],
        content: Annotated[WorkingMemoryPatch, Field(description="The change to apply.")],
    ) -> WorkingMemoryResult:
        user = ctx.caller()
        with tool_errors():
            new = await ctx.run(svc.patch_working_memory, wm, user, session_id, content)
        return WorkingMemoryResult.model_validate(new.to_dict())


__all__ = ["register"]
