"""What a client can read besides calling tools: one memory (memory://{memory_id}) and one
session's working memory (working://{session_id}), as JSON, and an image memory's image
(image://{memory_id}) and thumbnail (image://{memory_id}/thumbnail), for the caller only.

Reading a resource returns content like a search and is charged like one (see middleware)."""

import contextlib
import json
from collections.abc import Iterator

from fastmcp import FastMCP
from fastmcp.exceptions import ResourceError
from fastmcp.resources import ResourceContent, ResourceResult

from graphmem.domain.working import check_session_id, empty
from graphmem.errors import GraphmemError
from graphmem.mcp.context import ToolContext
from graphmem.mcp.tools.common import memory_dict


@contextlib.contextmanager
def resource_errors() -> Iterator[None]:
    """graphmem's own errors -> an MCP resource error carrying their message, the chain cut
    (`tool_errors` does the same for tools): one translation shared by every resource."""
    try:
        yield
    except GraphmemError as e:
        raise ResourceError(str(e)) from None


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
        with resource_errors():
            m = await ctx.run(svc.get, user, memory_id)
        return json.dumps(memory_dict(m), ensure_ascii=False)

    async def image_of(memory_id: str, thumbnail: bool) -> ResourceResult:
        user = ctx.caller()
        with resource_errors():
            data, mime = await ctx.run(svc.image, user, memory_id, thumbnail=thumbnail)
        return ResourceResult([ResourceContent(data, mime_type=mime)])

    @mcp.resource(
        "image://{memory_id}",
        name="image",
        description="The image of one of the caller's image memories (kind image), as written:"
        " PNG, JPEG, WebP or GIF (for a PDF page, the page's scanned picture as the scanner"
        " wrote it, or the page rendered, a PNG). Another user's memory, a memory that is no"
        " image and one held"
        " in quarantine are all 'no memory'.",
        mime_type="application/octet-stream",
    )
    async def image_resource(memory_id: str) -> ResourceResult:
        return await image_of(memory_id, False)

    @mcp.resource(
        "image://{memory_id}/thumbnail",
        name="image_thumbnail",
        description="A small PNG of one of the caller's image memories (at most 256 px a side"
        " by default), to show without fetching the whole image.",
        mime_type="image/png",
    )
    async def image_thumbnail_resource(memory_id: str) -> ResourceResult:
        return await image_of(memory_id, True)

    @mcp.resource(
        "working://{session_id}",
        name="working_memory",
        description="The caller's working memory for one session (task context, recent turns,"
        " entity slots), as JSON.",
        mime_type="application/json",
    )
    async def working_resource(session_id: str) -> str:
        user = ctx.caller()
        with resource_errors():
            sid = check_session_id(session_id)
            cur = await ctx.run(wm.get, user, sid)
        return json.dumps((cur or empty(sid)).to_dict(), ensure_ascii=False)


__all__ = ["register"]
