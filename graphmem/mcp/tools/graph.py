"""How memories connect: relations between two of them, the versions one went through, and the
neighbourhood of one in the memory graph."""

from typing import Annotated

from pydantic import Field

from graphmem.domain.temporal import validity
from graphmem.mcp.context import ToolContext, ToolRegistry
from graphmem.mcp.results import GraphResult, HistoryResult, RelateResult
from graphmem.mcp.tools.common import RelationName, memory_dict, tool_annotations, tool_errors


def register(mcp: ToolRegistry, ctx: ToolContext) -> None:
    """Register the relation, history and graph tools; `mcp` records their names."""
    svc = ctx.service

    @mcp.tool(
        description="State a relation between two of the user's memories, e.g. that one"
        " caused the other (causal), came before it (temporal) or is about the same thing"
        " (related). Recall then finds one from the other. Ids come from memory_search.",
        annotations=tool_annotations("Relate memories", read_only=False, idempotent=True),
    )
    async def memory_relate(
        source_id: Annotated[str, Field(min_length=1, max_length=64)],
        target_id: Annotated[str, Field(min_length=1, max_length=64)],
        relation_type: Annotated[
            RelationName, Field(description="The kind of relation.")
        ] = "related",
        strength: Annotated[float, Field(gt=0, le=1, description="How strong, 0-1.")] = 1.0,
    ) -> RelateResult:
        user = ctx.caller()
        with tool_errors():
            rel = await ctx.run(svc.relate, user, source_id, target_id, relation_type, strength)
        return RelateResult.model_validate(
            {
                "source_id": rel.source_id,
                "target_id": rel.target_id,
                "relation_type": rel.relation_type,
                "strength": rel.strength,
            }
        )

    @mcp.tool(
        description="Show every version of a memory, oldest first: what it superseded and what"
        " superseded it, each with valid_from / valid_to. Use it to answer how something"
        " changed over time (e.g. the user's previous addresses).",
        annotations=tool_annotations("Memory history", read_only=True, idempotent=True),
    )
    async def memory_history(
        memory_id: Annotated[str, Field(min_length=1, max_length=64)],
    ) -> HistoryResult:
        user = ctx.caller()
        with tool_errors():
            versions = await ctx.run(svc.history, user, memory_id)
        return HistoryResult.model_validate(
            {
                "memory_id": memory_id,
                "versions": [{**memory_dict(m), **validity(m)} for m in versions],
                "count": len(versions),
            }
        )

    @mcp.tool(
        description="Show a memory's neighbourhood in the memory graph: the memories related"
        " to it within `hops`, with the relation types and the entities they mention.",
        annotations=tool_annotations("Memory graph", read_only=True, idempotent=True),
    )
    async def memory_graph(
        memory_id: Annotated[str, Field(min_length=1, max_length=64)],
        hops: Annotated[int, Field(ge=1, le=3)] = 1,
    ) -> GraphResult:
        user = ctx.caller()
        with tool_errors():
            return GraphResult.model_validate(await ctx.run(svc.graph, user, memory_id, hops))


__all__ = ["register"]
