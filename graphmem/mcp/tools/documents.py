"""The document tools: ingest documents into the caller's memory, list and delete them.

An agent may ingest text it sends inline and public http(s) URLs. Paths on the server (files
and folders), addresses inside the server's network and shared libraries need an operator
token: an agent that could make the server read its own files or internal services, or write
into what every reader of a library sees, would turn the memory into a way around both.
"""

import ipaddress
import socket
import urllib.error
import urllib.request
from http.client import HTTPMessage
from typing import IO, Annotated, Any, Literal
from urllib.parse import urlsplit

from fastmcp.exceptions import ToolError
from pydantic import Field

from graphmem.documents import Document, load_bytes
from graphmem.domain.actor import Actor
from graphmem.mcp.context import ToolContext, ToolRegistry
from graphmem.mcp.results_docs import DocumentDeleteResult, DocumentList, IngestResult
from graphmem.mcp.tools.common import tool_annotations, tool_errors
from graphmem.usecases.documents import is_url

MAX_SOURCES = 50
MAX_INLINE_CHARS = 2_000_000
LibraryName = Annotated[
    str | None,
    Field(
        min_length=1,
        max_length=64,
        description="A shared library instead of the caller's own documents (operator only).",
    ),
]


def _internal(url: str) -> bool:
    """True if the URL's host is, or resolves to, a loopback, private, link-local or
    otherwise non-public address."""
    host = urlsplit(url).hostname or ""
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False  # unresolvable: the fetch fails with its own clear error
    for info in infos:
        addr = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if not addr.is_global:
            return True
    return False


class _PublicRedirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only to a public address: a public URL that redirects to
    http://127.0.0.1/... must not reach inside the server's network for an agent."""

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: IO[bytes],
        code: int,
        msg: str,
        headers: HTTPMessage,
        newurl: str,
    ) -> urllib.request.Request | None:
        if _internal(newurl):
            raise urllib.error.URLError("redirected to an address inside the server's network")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _opener(actor: Actor) -> urllib.request.OpenerDirector | None:
    """What an agent's URLs are fetched with; an operator's go through urllib as they are."""
    return None if actor.is_operator else urllib.request.build_opener(_PublicRedirects)


def _check_sources(sources: list[str], actor: Actor) -> None:
    if actor.is_operator:
        return
    for src in sources:
        if not is_url(src):
            raise ToolError(
                f"sources: {src[:80]!r} is not an http(s) URL; reading files and folders on"
                " the server needs an operator token (send the text as `content` instead)"
            )
        if _internal(src):
            raise ToolError(
                f"sources: {src[:80]!r} is an address inside the server's network; only an"
                " operator token may ingest from there"
            )


def _check_library(library: str | None, actor: Actor) -> None:
    if library and not actor.is_operator:
        raise ToolError("library: writing to a shared library needs an operator token")


def register(mcp: ToolRegistry, ctx: ToolContext) -> None:
    """Register document_ingest, document_list and document_delete."""
    svc = ctx.service

    @mcp.tool(
        description="Store documents (wiki pages, notes, web pages, PDFs) in the user's"
        " long-term memory, so memory_search recalls their passages next to memories. Give"
        " public http(s) URLs as `sources`, or the text itself as `content` with a `name`"
        " (a title or URL it is known by). Cut into chunks by headings and paragraphs;"
        " an unchanged document is skipped, a changed one replaces its old chunks. Chunks"
        " carrying injected instructions are quarantined, never recalled.",
        annotations=tool_annotations(
            "Ingest documents", read_only=False, idempotent=True, open_world=True
        ),
    )
    async def document_ingest(
        sources: Annotated[
            list[Annotated[str, Field(min_length=1, max_length=2048)]] | None,
            Field(
                max_length=MAX_SOURCES,
                description="http(s) URLs (an operator may also give server paths: files or"
                " folders of .md, .txt, .html, .pdf).",
            ),
        ] = None,
        content: Annotated[
            str | None,
            Field(min_length=1, max_length=MAX_INLINE_CHARS, description="A document's text."),
        ] = None,
        name: Annotated[
            str | None,
            Field(
                min_length=1,
                max_length=512,
                description="With content: the title or URL the document is known by; sending"
                " the same name again replaces that document.",
            ),
        ] = None,
        format: Annotated[
            Literal["markdown", "text", "html"],
            Field(description="With content: how to read it."),
        ] = "markdown",
        library: LibraryName = None,
        dry_run: Annotated[
            bool, Field(description="Read and chunk, store nothing: what would change.")
        ] = False,
    ) -> IngestResult:
        user, actor = ctx.identify()
        items: list[str | Document] = []
        with tool_errors():
            if not sources and content is None:
                raise ToolError("sources: give URLs as sources, or the text as content")
            if content is not None and not name:
                raise ToolError("name: content needs a name (its title or URL)")
            _check_library(library, actor)
            _check_sources(list(sources or []), actor)
            items.extend(sources or [])
            if content is not None and name:
                items.append(load_bytes(content.encode("utf-8"), name, fmt=format))
            report = await ctx.run(
                svc.ingest,
                user,
                items,
                library=library,
                dry_run=dry_run,
                tool="mcp:document_ingest",
                opener=_opener(actor),
            )
        return IngestResult.model_validate(report.to_dict())

    @mcp.tool(
        description="List the documents stored in the user's memory (or in a shared library"
        " the user may read): source, title, chunks.",
        annotations=tool_annotations("List documents", read_only=True, idempotent=True),
    )
    async def document_list(library: LibraryName = None) -> DocumentList:
        user, _actor = ctx.identify()
        with tool_errors():
            if library and library not in await ctx.run(svc.libraries, user):
                raise ToolError(f"library: no library {library!r} this user may read")
            docs: list[dict[str, Any]] = await ctx.run(svc.documents, user, library=library)
        return DocumentList.model_validate({"documents": docs, "count": len(docs)})

    @mcp.tool(
        description="Delete a document from the user's memory, by the source (URL, name or"
        " path) it was ingested from: every chunk, its history, vectors and graph links.",
        annotations=tool_annotations(
            "Delete a document", read_only=False, destructive=True, idempotent=True
        ),
    )
    async def document_delete(
        source: Annotated[str, Field(min_length=1, max_length=2048)],
        library: LibraryName = None,
    ) -> DocumentDeleteResult:
        user, actor = ctx.identify()
        with tool_errors():
            _check_library(library, actor)
            deleted = await ctx.run(svc.delete_document, user, source, library=library)
        return DocumentDeleteResult.model_validate({"deleted": deleted, "count": len(deleted)})


__all__ = ["register"]
