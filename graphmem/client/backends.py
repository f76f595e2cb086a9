"""The two places a Python client's calls go: a MemoryService in this process, or the MCP tools
of a running `graphmem serve`.

Both backends take the same operations (graphmem.client.ops.Call) with the same arguments and
answer with plain dicts in `Memory.to_dict()` form, so the operations and the result shapes in
graphmem.client.ops hold for both. The embedded backend is synchronous (the service is); the
remote one is asynchronous (fastmcp's client is); graphmem.client.clients bridges each to the
other side.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
from collections.abc import Coroutine, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from graphmem.client.ops import Call, Identity
from graphmem.errors import (
    DocumentNotFoundError,
    FirewallRejected,
    GraphmemError,
    InvalidInputError,
    NotFoundError,
    StoreUnavailableError,
)

if TYPE_CHECKING:
    from fastmcp import Client

    from graphmem.service.facade import MemoryService

T = TypeVar("T")

TOOL = "python_client"
"""How the audit rows name the interface of a write made through this client."""


class EmbeddedBackend:
    """Calls on a MemoryService opened by this process (its data home, its settings)."""

    def __init__(self, service: MemoryService) -> None:
        self.service = service

    def call(self, step: Call) -> Any:
        return getattr(self, step.op)(**step.args)

    def close(self) -> None:
        self.service.close()

    def identity(self) -> Identity:
        return Identity(self.service.settings.user_id, fixed=False)

    def write(self, user_id: str, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        from graphmem.domain.requests import WriteItem

        batch = [WriteItem(**i) for i in items]
        return [m.to_dict() for m in self.service.write_many(user_id, list(batch), tool=TOOL)]

    def observe(
        self, user_id: str, turns: list[dict[str, str]], **options: Any
    ) -> list[dict[str, Any]]:
        decisions = self.service.observe(user_id, turns, tool=TOOL, **options)
        return [d.to_dict() for d in decisions]

    def search(
        self, user_id: str, query: str, top_k: int, filters: dict[str, Any]
    ) -> list[dict[str, Any]]:
        from graphmem.domain.requests import SearchRequest

        request = SearchRequest(query=query, top_k=top_k, **filters)
        out = []
        for hit in self.service.search_request(user_id, request).hits:
            d = hit.to_dict()
            path = getattr(hit, "path", None)
            if path:
                d["path"] = [step.to_dict() for step in path]
            out.append(d)
        return out

    def get(self, user_id: str, memory_id: str) -> dict[str, Any]:
        return self.service.get(user_id, memory_id).to_dict()

    def listing(
        self, user_id: str, params: dict[str, Any]
    ) -> tuple[list[dict[str, Any]], str | None]:
        from graphmem.domain.requests import ListRequest

        page = self.service.list_memories(user_id, ListRequest(**params))
        return [m.to_dict() for m in page.memories], page.next_cursor

    def update(self, user_id: str, memory_id: str, content: str) -> str | None:
        """None when the memory changed; the pending version's id when it is held for review."""
        from graphmem.domain.model import Status

        m = self.service.update(user_id, memory_id, content, tool=TOOL)
        return m.id if m.status == Status.QUARANTINED else None

    def forget(self, user_id: str, memory_ids: list[str]) -> list[str]:
        return self.service.forget(user_id, memory_ids)

    def write_image(
        self,
        user_id: str,
        image: bytes | None,
        caption: str | None,
        memory_type: str,
        **fields: Any,
    ) -> dict[str, Any]:
        written = self.service.write_image_pages(
            user_id, image, caption, memory_type, tool=TOOL, **fields
        )
        rec = written[0].to_dict()
        if len(written) > 1:  # a PDF written whole: the pages as memory_write_image lists them
            rec["pages"] = [
                {
                    "page": w.metadata.get("image_pdf_page"),
                    "memory_id": w.id,
                    "status": w.status.value,
                    "ocr": w.metadata.get("image_ocr", "off"),
                }
                for w in written
            ]
        return rec

    def image(self, user_id: str, memory_id: str, thumbnail: bool) -> tuple[bytes, str]:
        return self.service.image(user_id, memory_id, thumbnail=thumbnail)

    def history(self, user_id: str, memory_id: str) -> list[dict[str, Any]]:
        return [m.to_dict() for m in self.service.history(user_id, memory_id)]

    def reveal(self, user_id: str, memory_id: str, refs: list[str] | None) -> dict[str, Any]:
        return self.service.reveal(user_id, memory_id, refs, tool=TOOL)

    def ingest(
        self, user_id: str, sources: list[str], library: str | None, dry_run: bool
    ) -> dict[str, Any]:
        report = self.service.ingest(user_id, sources, library=library, dry_run=dry_run, tool=TOOL)
        return report.to_dict()

    def ingest_text(
        self,
        user_id: str,
        text: str,
        name: str,
        format: str,  # noqa: A002 - the MCP tool's name for it
        library: str | None,
        dry_run: bool,
    ) -> dict[str, Any]:
        """The text read as the MCP tool reads inline content, then ingested like a file."""
        from graphmem.documents import load_bytes

        doc = load_bytes(text.encode("utf-8"), name, fmt=format)
        report = self.service.ingest(user_id, [doc], library=library, dry_run=dry_run, tool=TOOL)
        return report.to_dict()

    def documents(self, user_id: str, library: str | None) -> list[dict[str, Any]]:
        return self.service.documents(user_id, library=library)

    def delete_document(self, user_id: str, source: str, library: str | None) -> list[str]:
        return self.service.delete_document(user_id, source, library=library)


# ------------------------------------------------------------------ remote

_FIELD_ERROR = re.compile(r"^(?P<field>[A-Za-z_][\w.\[\]]*): (?P<message>.+)$", re.DOTALL)


def remote_error(text: str, memory_id: str | None = None) -> GraphmemError:
    """A tool error's text (graphmem.mcp.tools.common.tool_errors wrote it) as the error the
    embedded client would have raised, so callers handle both alike."""
    from graphmem.domain.visibility import HeldForReviewError

    if text.startswith("memory_id: ") and memory_id is not None:
        if "review" in text or "quarantin" in text:
            return HeldForReviewError(memory_id)
        if "no memory" in text:
            return NotFoundError(memory_id)
    if text.startswith("a store is unavailable"):
        return StoreUnavailableError(text)
    m = _FIELD_ERROR.match(text)
    if m:
        refused = "rejected by the memory firewall: "
        if m["message"].startswith(refused):
            return FirewallRejected(m["field"], m["message"][len(refused) :])
        return InvalidInputError(m["field"], m["message"])
    return GraphmemError(text)


class RemoteBackend:
    """Calls on the MCP tools of a running `graphmem serve`, over streamable HTTP, as the user
    of `token`."""

    def __init__(self, url: str, token: str, timeout: float) -> None:
        from fastmcp import Client
        from fastmcp.client.transports import StreamableHttpTransport

        self.url, self.token = url, token
        self.client: Client[Any] = Client(StreamableHttpTransport(url, auth=token), timeout=timeout)
        self.ident: Identity | None = None

    async def call(self, step: Call) -> Any:
        return await getattr(self, step.op)(**step.args)

    async def connect(self) -> None:
        """Open the session, and learn the token's user (who every call acts for)."""
        from mcp import MCPError

        try:
            await self.client.__aenter__()
        except (MCPError, OSError, RuntimeError) as e:
            # The MCP handshake reports a refused token as a bare "error response": ask
            # the endpoint itself what it answers this token.
            status = await asyncio.to_thread(_status_of, self.url, self.token)
            if status == 401:
                raise InvalidInputError(
                    "token", f"the server at {self.url} refused this token (401)"
                ) from None
            if status == 404:
                raise InvalidInputError("url", f"no MCP endpoint at {self.url} (404)") from None
            raise StoreUnavailableError(
                f"no graphmem server answers at {self.url} ({type(e).__name__}: {e})"
            ) from None
        health = await self.tool("memory_health", {})
        self.ident = Identity(str(health["user_id"]), fixed=True)

    async def close(self) -> None:
        await self.client.close()

    async def tool(
        self, name: str, args: Mapping[str, Any], memory_id: str | None = None
    ) -> dict[str, Any]:
        from fastmcp.exceptions import ToolError
        from mcp import MCPError

        try:
            res = await self.client.call_tool(name, dict(args))
        except ToolError as e:
            raise remote_error(str(e), memory_id) from None
        except (MCPError, OSError, RuntimeError) as e:
            raise StoreUnavailableError(
                f"the server at {self.url} did not answer {name} ({type(e).__name__}: {e})"
            ) from None
        data = res.structured_content
        if data is None and isinstance(res.data, dict):
            data = res.data
        return dict(data or {})

    async def identity(self) -> Identity:
        if self.ident is None:
            await self.connect()
        assert self.ident is not None
        return self.ident

    async def write(self, user_id: str, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """One memory_write per item (the tool writes one memory)."""
        out = []
        for one in items:
            res = await self.tool("memory_write", one)
            rec = {**one, **res, "id": res.get("merged_into") or res["memory_id"]}
            if "content" not in res and rec.get("status") != "quarantined":
                # What the server stored (the firewall may have masked part of the text); best
                # effort, as the write is done either way.
                with contextlib.suppress(GraphmemError):
                    rec = {**rec, **(await self.get(user_id, rec["id"]))}
            out.append(rec)
        return out

    async def observe(
        self, user_id: str, turns: list[dict[str, str]], **options: Any
    ) -> list[dict[str, Any]]:
        res = await self.tool("memory_observe", {"turns": turns, **options})
        return list(res.get("decisions") or [])

    async def search(
        self, user_id: str, query: str, top_k: int, filters: dict[str, Any]
    ) -> list[dict[str, Any]]:
        res = await self.tool("memory_search", {"query": query, "top_k": top_k, **filters})
        return list(res.get("hits") or [])

    async def get(self, user_id: str, memory_id: str) -> dict[str, Any]:
        """memory_get answers for many ids at once, listing the ids it cannot return instead
        of failing: here one id, and the error the embedded service raises for it."""
        from graphmem.domain.visibility import HeldForReviewError

        res = await self.tool("memory_get", {"memory_ids": [memory_id]}, memory_id)
        memories = res.get("memories") or []
        if memories:
            return dict(memories[0])
        if memory_id in (res.get("quarantined") or []):
            raise HeldForReviewError(memory_id)
        raise NotFoundError(memory_id)

    async def listing(
        self, user_id: str, params: dict[str, Any]
    ) -> tuple[list[dict[str, Any]], str | None]:
        res = await self.tool("memory_list", {k: v for k, v in params.items() if v is not None})
        return list(res.get("memories") or []), res.get("next_cursor")

    async def update(self, user_id: str, memory_id: str, content: str) -> str | None:
        args = {"memory_id": memory_id, "content": content}
        res = await self.tool("memory_update", args, memory_id)
        return None if res.get("updated", True) else str(res.get("pending_id") or memory_id)

    async def forget(self, user_id: str, memory_ids: list[str]) -> list[str]:
        gone = []
        for mid in memory_ids:
            try:
                await self.tool("memory_forget", {"memory_id": mid}, mid)
            except NotFoundError:
                continue
            gone.append(mid)
        return gone

    async def history(self, user_id: str, memory_id: str) -> list[dict[str, Any]]:
        res = await self.tool("memory_history", {"memory_id": memory_id}, memory_id)
        return list(res.get("versions") or [])

    async def reveal(self, user_id: str, memory_id: str, refs: list[str] | None) -> dict[str, Any]:
        args: dict[str, Any] = {"memory_id": memory_id, **({"refs": refs} if refs else {})}
        return await self.tool("memory_reveal", args, memory_id)

    async def write_image(
        self,
        user_id: str,
        image: bytes | None,
        caption: str | None,
        memory_type: str,
        **fields: Any,
    ) -> dict[str, Any]:
        """memory_write_image with the bytes as base64 (or the `url` in fields, which the
        server fetches under its own rules); returns the memory as stored."""
        import base64

        args: dict[str, Any] = {"memory_type": memory_type}
        if image is not None:
            args["image"] = base64.b64encode(image).decode("ascii")
        args.update({k: v for k, v in {"caption": caption, **fields}.items() if v is not None})
        res = await self.tool("memory_write_image", args)
        rec = {**res, "id": res["memory_id"], "content": res.get("text", "")}
        with contextlib.suppress(GraphmemError):  # best effort: the write is done either way
            rec = {**rec, **(await self.get(user_id, rec["id"]))}
        return rec

    async def image(self, user_id: str, memory_id: str, thumbnail: bool) -> tuple[bytes, str]:
        """The image://{memory_id} resource (or its /thumbnail), read as the token's user."""
        import base64

        from mcp import MCPError
        from mcp.types import BlobResourceContents

        uri = f"image://{memory_id}" + ("/thumbnail" if thumbnail else "")
        try:
            contents = await self.client.read_resource(uri)
        except (MCPError, RuntimeError) as e:
            if "no memory" in str(e):
                raise NotFoundError(memory_id) from None
            raise StoreUnavailableError(f"the server at {self.url} did not answer {uri}") from None
        blob = next((c for c in contents if isinstance(c, BlobResourceContents)), None)
        if blob is None:
            raise NotFoundError(memory_id)
        return base64.b64decode(blob.blob), str(blob.mime_type or "application/octet-stream")

    async def ingest(
        self, user_id: str, sources: list[str], library: str | None, dry_run: bool
    ) -> dict[str, Any]:
        """document_ingest in batches of the most sources one call takes, as one report."""
        from graphmem.client.documents import MAX_SOURCES, merged_reports

        extra = {"library": library} if library else {}
        reports = []
        for start in range(0, len(sources), MAX_SOURCES):
            batch = sources[start : start + MAX_SOURCES]
            args = {"sources": batch, "dry_run": dry_run, **extra}
            reports.append(await self.tool("document_ingest", args))
        return merged_reports(reports)

    async def ingest_text(
        self,
        user_id: str,
        text: str,
        name: str,
        format: str,  # noqa: A002
        library: str | None,
        dry_run: bool,
    ) -> dict[str, Any]:
        args = {"content": text, "name": name, "format": format, "dry_run": dry_run}
        return await self.tool(
            "document_ingest", {**args, **({"library": library} if library else {})}
        )

    async def documents(self, user_id: str, library: str | None) -> list[dict[str, Any]]:
        res = await self.tool("document_list", {"library": library} if library else {})
        return list(res.get("documents") or [])

    async def delete_document(self, user_id: str, source: str, library: str | None) -> list[str]:
        """The error the embedded service raises for a source with no document."""
        args = {"source": source, **({"library": library} if library else {})}
        try:
            res = await self.tool("document_delete", args)
        except InvalidInputError as e:
            if e.field == "source" and e.message.startswith("no document"):
                raise DocumentNotFoundError(source) from None
            raise
        return [str(i) for i in res.get("deleted") or []]


def _status_of(url: str, token: str) -> int | None:
    """The HTTP status the endpoint answers an empty request with this token; None when
    nothing answers."""
    import urllib.error
    import urllib.request

    request = urllib.request.Request(
        url,
        data=b"{}",
        method="POST",
        headers={
            "Authorization": f"Bearer {token}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as e:
        return int(e.code)
    except (OSError, ValueError):
        return None


class LoopThread:
    """An event loop of its own, in a daemon thread: where a sync client runs its remote
    session, which must outlive each call (one connection, not one per call)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(
            target=self.loop.run_forever, name="graphmem-client", daemon=True
        )
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def stop(self) -> None:
        if self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.close()


__all__ = ["EmbeddedBackend", "LoopThread", "RemoteBackend", "remote_error"]
