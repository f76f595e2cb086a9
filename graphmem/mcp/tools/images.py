"""The image tool: store an image an agent saw as a memory (the image itself is read back
through the image://{memory_id} resource, graphmem.mcp.resources).

The image comes as base64, the way MCP carries ImageContent, or as an http(s) URL the server
fetches under the images settings' URL rules (graphmem.images.fetch: addresses inside the
server's network refused unless the operator allowed them, redirects and bytes limited).
Server paths are not taken from an agent, for the reasons the document tools give
(graphmem.mcp.tools.documents).
"""

import base64
import binascii
import re
from typing import Annotated, Any

from fastmcp.exceptions import ToolError
from pydantic import Field

from graphmem.domain.model import Memory, Status
from graphmem.mcp.context import ToolContext, ToolRegistry
from graphmem.mcp.results import ImageInfo, ImagePage, ImageWriteResult
from graphmem.mcp.tools.common import MemoryTypeName, SourceName, tool_annotations, tool_errors
from graphmem.mcp.tools.filters import SCOPE_MAX

_DATA_URL = re.compile(r"^data:(image/[a-z0-9.+-]+|application/pdf);base64,", re.IGNORECASE)


def decode_base64(text: str, max_bytes: int) -> bytes:
    """The image bytes of a base64 string (a data: URL's prefix is allowed); ToolError when
    it is not base64 or decodes to more than max_bytes."""
    text = _DATA_URL.sub("", text.strip(), count=1)
    if len(text) > (max_bytes + 2) // 3 * 4 + 4:
        raise ToolError(f"image: more than {max_bytes:,} bytes; refused before decoding")
    try:
        return base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError):
        raise ToolError("image: not valid base64") from None


def image_info(m: Memory) -> ImageInfo | None:
    """The image fields of an image memory's result (None for any other kind)."""
    md = m.metadata
    if m.kind.value != "image" or not isinstance(md.get("image_sha256"), str):
        return None
    taken = md.get("image_taken_at")
    return ImageInfo(
        resource=f"image://{m.id}",
        thumbnail=f"image://{m.id}/thumbnail",
        format=str(md.get("image_format", "")),
        width=int(md.get("image_width", 0)),
        height=int(md.get("image_height", 0)),
        taken_at=str(taken) if taken else None,
        pdf_page=page if isinstance(page := md.get("image_pdf_page"), int) else None,
    )


def register(mcp: ToolRegistry, ctx: ToolContext) -> None:
    """Register memory_write_image."""
    svc = ctx.service
    max_bytes = svc.settings.images.max_bytes

    @mcp.tool(
        description="Store an image the user shared or you saw (a screenshot, a photo of a"
        " receipt or whiteboard, a scanned page) as one long-term memory and return its"
        " memory_id. The text in the image is read (English and Chinese) and, with your"
        " caption, becomes searchable like any memory; memory_search finds it (kind: image)"
        " and the image itself is read back from the image://{memory_id} resource. Send the"
        " image as base64 in `image`, or a public http(s) `url` to fetch it from. A PDF (a"
        " scan, slides) is stored as one image memory a page (its pages listed in `pages`),"
        " or only `page`; to store a long text document, use document_ingest instead. Give a"
        " caption that says what it is and why it matters, e.g. 'Receipt for the team lunch"
        " at Hollis Bakery, 3 March'.",
        annotations=tool_annotations("Write an image memory", read_only=False),
    )
    async def memory_write_image(
        image: Annotated[
            str | None,
            Field(
                min_length=1,
                description="The image file as base64 (a data:image/...;base64, or"
                " data:application/pdf;base64, prefix is allowed): PNG, JPEG, WebP, GIF (its"
                " first frame) or a PDF (each page is stored as an image). Or give `url`.",
            ),
        ] = None,
        url: Annotated[
            str | None,
            Field(
                min_length=1,
                max_length=2048,
                description="Instead of `image`: an http(s) URL of the image, fetched by the"
                " server (public addresses only, unless the operator allowed others).",
            ),
        ] = None,
        page: Annotated[
            int | None,
            Field(
                ge=1,
                description="For a PDF: store only this page (1 = the first). Without it, every"
                " page is stored, one image memory a page (at most the server's"
                " images.pdf_pages_per_write, 20 by default).",
            ),
        ] = None,
        caption: Annotated[
            str | None,
            Field(
                max_length=ctx.max_chars,
                description="What the image is and why it matters (who, what, when).",
            ),
        ] = None,
        memory_type: Annotated[
            MemoryTypeName,
            Field(description="fact (default), preference, event or task, as memory_write."),
        ] = "fact",
        metadata: Annotated[
            dict[str, Any] | None,
            Field(description='Optional small JSON object (≤16 KiB), e.g. {"project": "Atlas"}.'),
        ] = None,
        source: Annotated[
            SourceName,
            Field(description="Who it came from: agent (default), user, document or system."),
        ] = "agent",
        session_id: Annotated[
            str | None,
            Field(max_length=128, description="The conversation it came from, if you track one."),
        ] = None,
        agent_id: Annotated[
            str | None,
            Field(min_length=1, max_length=SCOPE_MAX, description="The agent it belongs to."),
        ] = None,
        run_id: Annotated[
            str | None,
            Field(min_length=1, max_length=SCOPE_MAX, description="The run it belongs to."),
        ] = None,
    ) -> ImageWriteResult:
        user = ctx.caller()
        if (image is None) == (url is None):
            raise ToolError("image: send the image as base64 in `image`, or its `url` (one)")
        data = decode_base64(image, max_bytes) if image is not None else None
        fields = {
            "metadata": metadata,
            "source": source,
            "session_id": session_id,
            "agent_id": agent_id,
            "run_id": run_id,
        }
        with tool_errors():
            written = await ctx.run(
                svc.write_image_pages,
                user,
                data,
                caption,
                memory_type,
                url=url,
                page=page,
                tool="memory_write_image",
                **{k: v for k, v in fields.items() if v is not None},
            )
            held = [w.id for w in written if w.status == Status.QUARANTINED]
            why = (await ctx.run(svc.hold_reasons, user, held)) if held else {}
        m = written[0]
        info = image_info(m)
        assert info is not None  # write_image writes image memories only
        pages = [
            ImagePage(
                page=int(w.metadata.get("image_pdf_page") or 0),
                memory_id=w.id,
                status=w.status.value,
                ocr=w.metadata.get("image_ocr", "off"),
                reason=f"held for review: {why[w.id]}" if w.id in why else None,
            )
            for w in written
        ]
        return ImageWriteResult(
            memory_id=m.id,
            memory_type=m.memory_type.value,
            summary=m.summary,
            created_at=m.created_at.isoformat(),
            status=m.status.value,
            reason=f"held for review: {why[m.id]}" if m.id in why else None,
            kind="image",
            image=info,
            text=m.content,
            ocr=m.metadata.get("image_ocr", "off"),
            pages=pages if len(pages) > 1 else None,
        )


__all__ = ["decode_base64", "image_info", "register"]
