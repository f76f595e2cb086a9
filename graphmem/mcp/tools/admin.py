"""The tools that remove or release memories wholesale: erasing the calling user, and the
quarantine the memory firewall fills (listing it, and an operator's review)."""

from typing import Annotated

from fastmcp.exceptions import ToolError
from pydantic import Field

from graphmem.mcp.context import ToolContext, ToolRegistry
from graphmem.mcp.results_ops import ErasureResult, QuarantineList, ReviewResult
from graphmem.mcp.tools.common import MAX_IDS, memory_dict, tool_annotations, tool_errors


def register(mcp: ToolRegistry, ctx: ToolContext) -> None:
    """Register the erasure and quarantine tools; `mcp` records their names."""
    svc = ctx.service

    @mcp.tool(
        description="Erase EVERYTHING stored about the calling user, in every store (memories,"
        " relations, entities, vectors, graph, working memory, caches). Irreversible. Only when"
        " the user explicitly asks to be forgotten entirely; `confirm` must be 'ERASE'. Returns"
        " a receipt with counts per store and a verification that nothing is left.",
        annotations=tool_annotations(
            "Erase the user", read_only=False, destructive=True, idempotent=True
        ),
    )
    async def memory_forget_user(
        confirm: Annotated[str, Field(description="Type ERASE to confirm.")],
    ) -> ErasureResult:
        user = ctx.caller()
        if confirm != "ERASE":
            raise ToolError("confirm: erasing a user is irreversible; pass confirm='ERASE'")
        with tool_errors():
            receipt = await ctx.run(svc.forget_user, user, requested_by="mcp:memory_forget_user")
        return ErasureResult.model_validate(receipt.to_dict())

    @mcp.tool(
        description="List the user's memories that the memory firewall quarantined (held out"
        " of recall because they looked like injected instructions or contradicted what the"
        " user said before), with their ids and why each was held, for review with"
        " memory_quarantine_review.",
        annotations=tool_annotations("Quarantined memories", read_only=True, idempotent=True),
    )
    async def memory_quarantine_list(
        limit: Annotated[int, Field(ge=1, le=500)] = 50,
    ) -> QuarantineList:
        user = ctx.caller()
        with tool_errors():
            items = await ctx.run(svc.held_for_review, user, limit)
        return QuarantineList.model_validate(
            {
                "quarantined": [{**memory_dict(h.memory), "reason": h.reason} for h in items],
                "count": len(items),
            }
        )

    @mcp.tool(
        description="Approve quarantined memories (they return to recall) or reject them"
        " (deleted from every store). Needs an operator token: an agent's call is refused, since"
        " the firewall holds back what agents write; ask the user to have the operator review.",
        annotations=tool_annotations(
            "Review quarantined memories", read_only=False, destructive=True, idempotent=True
        ),
    )
    async def memory_quarantine_review(
        memory_ids: Annotated[list[str], Field(min_length=1, max_length=MAX_IDS)],
        approve: Annotated[bool, Field(description="true: approve; false: reject and delete")],
    ) -> ReviewResult:
        user, actor = ctx.identify()
        with tool_errors():
            done = await ctx.run(svc.review, user, memory_ids, approve=approve, reviewer=actor)
        return ReviewResult.model_validate(
            {("approved" if approve else "rejected"): done, "count": len(done)}
        )


__all__ = ["register"]
