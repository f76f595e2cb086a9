"""memory_import: an operator moves another memory system's export into the caller's memory.

Operator only: the source is a path on the server or a database address the server can reach,
which no agent may point the server at (the same rule as document_ingest's server paths). The
records land in the caller's own memory only: an operator token belongs to one user, so a
multi-user source is narrowed to one `source_user`, never spread over other users.
"""

from typing import Annotated, Literal

from fastmcp.exceptions import ToolError
from pydantic import Field

from graphmem.mcp.context import ToolContext, ToolRegistry
from graphmem.mcp.results_ops import ImportResult
from graphmem.mcp.tools.common import tool_annotations, tool_errors

FormatName = Literal[
    "graphmem-v1", "mcp-memory", "neo4j-memory", "graphiti", "mem0", "letta", "chat", "markdown"
]
MAX_PROBLEMS = 50


def register(mcp: ToolRegistry, ctx: ToolContext) -> None:
    """Register memory_import; `mcp` records its name."""
    svc = ctx.service

    @mcp.tool(
        description="Import another memory system's export into the caller's memory (operator"
        " only): the MCP reference memory server's memory.json (mcp-memory), a live"
        " mcp-neo4j-memory or Graphiti database (neo4j-memory, graphiti: a Bolt address), mem0's"
        " get_all() JSON, a Letta agent file, ChatGPT / Claude conversations.json (chat), or a"
        " folder of Markdown notes, or graphmem's own graphmem-v1 export folder (restored as it"
        " was: ids, versions, documents). Every record is screened like any write and carries"
        " its original id; importing again changes nothing, and an interrupted import goes on"
        " where it stopped. Returns counts and one line per record skipped.",
        annotations=tool_annotations(
            "Import from another memory system",
            read_only=False,
            idempotent=True,
            open_world=True,
        ),
    )
    async def memory_import(
        format: Annotated[FormatName, Field(description="The source's format.")],
        source: Annotated[
            str,
            Field(
                min_length=1,
                max_length=1000,
                description="A file or folder on the server, or a bolt:// address.",
            ),
        ],
        source_user: Annotated[
            str | None,
            Field(
                max_length=128,
                description="For a source holding several users (mem0 users, Graphiti groups):"
                " import only this one's records.",
            ),
        ] = None,
        dry_run: Annotated[bool, Field(description="Count what would be written.")] = False,
    ) -> ImportResult:
        user, actor = ctx.identify()
        if not actor.is_operator:
            raise ToolError(
                "role: importing reads files or databases on the server; it needs an operator token"
            )
        mapping = {source_user: user} if source_user else None
        with tool_errors():
            report = await ctx.run(
                svc.import_from,
                user,
                format,
                source,
                dry_run=dry_run,
                map_user=mapping,
                tool="mcp:memory_import",
            )
        data = report.to_dict()
        data["problems"] = data["problems"][:MAX_PROBLEMS]
        data.pop("users", None)
        return ImportResult.model_validate(data)


__all__ = ["register"]
