"""Images over MCP: memory_write_image, search hits of kind image, the image:// resources, and
tenant isolation (another user's token never reads the image or finds it), in process and over
HTTP with a real `graphmem serve` and bearer tokens. Real stores and the real Tesseract."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client, FastMCP
from mcp.types import BlobResourceContents

from graphmem import MemoryService, Settings
from graphmem.embedding import Embedder
from graphmem.mcp.server import create_server
from graphmem.stores import open_working
from tests.helpers.imaging import needs_ocr, png_bomb, render
from tests.helpers.mcp import http_client, start_http_server
from tests.helpers.pdfs import jpeg_header_bomb, scanned_pdf

RECEIPT = ["Invoice 4471 from Hollis Bakery", "Total due: 38.50 EUR by March 3"]


def run(coro: Any) -> Any:
    return asyncio.run(coro)


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Iterator[MemoryService]:
    needs_ocr()
    service = MemoryService(
        Settings(data_dir=tmp_path_factory.mktemp("mcp-images") / "data"), embedder=embedder
    )
    yield service
    service.close()


def server_for(svc: MemoryService, user: str) -> FastMCP:
    return create_server(svc, working=open_working("memory"), default_user=user)


async def call(client: Client, tool: str, args: dict[str, Any]) -> Any:
    return await client.call_tool(tool, args, raise_on_error=False)


async def read_blob(client: Client, uri: str) -> tuple[bytes, str | None]:
    (content,) = await client.read_resource(uri)
    assert isinstance(content, BlobResourceContents), content
    return base64.b64decode(content.blob), content.mime_type


def test_write_search_and_read_back_an_image(svc: MemoryService) -> None:
    png = render(RECEIPT)
    alice, bob = server_for(svc, "alice"), server_for(svc, "bob")

    async def go() -> None:
        async with Client(alice) as c:
            w = await call(
                c,
                "memory_write_image",
                {"image": base64.b64encode(png).decode(), "caption": "receipt from the bakery"},
            )
            assert not w.is_error, w.content[0].text
            r = w.structured_content
            mid = r["memory_id"]
            assert r["kind"] == "image" and r["ocr"] == "read" and r["status"] == "active"
            assert "Hollis Bakery" in r["text"] and r["text"].startswith("receipt from the bakery")
            assert r["image"] == {
                "resource": f"image://{mid}",
                "thumbnail": f"image://{mid}/thumbnail",
                "format": "png",
                "width": 1000,
                "height": 400,
            }
            s = await call(c, "memory_search", {"query": "Hollis Bakery invoice total"})
            hit = s.structured_content["hits"][0]
            assert hit["memory_id"] == mid and hit["kind"] == "image"
            assert hit["image"]["resource"] == f"image://{mid}"
            k = await call(c, "memory_search", {"query": "Hollis Bakery", "kinds": "image"})
            assert [h["kind"] for h in k.structured_content["hits"]] == ["image"]

            data, mime = await read_blob(c, f"image://{mid}")
            assert data == png and mime == "image/png"
            thumb, tmime = await read_blob(c, f"image://{mid}/thumbnail")
            assert tmime == "image/png" and thumb[:8] == b"\x89PNG\r\n\x1a\n"
            # a data URL is accepted as it is
            w2 = await call(
                c,
                "memory_write_image",
                {"image": "data:image/png;base64," + base64.b64encode(png).decode()},
            )
            assert not w2.is_error and w2.structured_content["text"].startswith("Invoice 4471")

        async with Client(bob) as c:
            with pytest.raises(Exception, match="no memory"):
                await c.read_resource(f"image://{mid}")
            with pytest.raises(Exception, match="no memory"):
                await c.read_resource(f"image://{mid}/thumbnail")
            s = await call(c, "memory_search", {"query": "Hollis Bakery invoice total"})
            assert s.structured_content["hits"] == []

    run(go())


def test_refused_images_name_the_field(svc: MemoryService) -> None:
    alice = server_for(svc, "alice-refused")
    bomb = base64.b64encode(png_bomb()).decode()

    async def go() -> list[str]:
        async with Client(alice) as c:
            out = []
            for args in ({"image": "%%% not base64"}, {"image": bomb}, {"image": "aGVsbG8="}):
                res = await call(c, "memory_write_image", args)
                assert res.is_error
                out.append(res.content[0].text)
            return out

    bad, bombed, not_image = run(go())
    assert bad == "image: not valid base64"
    assert bombed.startswith("image: ") and "decompression bomb" in bombed
    assert not_image.startswith("image: is not an image")
    assert svc.records.count("alice-refused") == 0


def test_another_token_cannot_read_or_find_the_image_over_http(tmp_path: Path) -> None:
    needs_ocr()
    png = render(["Locker 88 code on the sticky note"], size=(1000, 200))
    with start_http_server(tmp_path) as srv:

        async def go() -> None:
            async with http_client(srv, "alice") as c:
                w = await call(c, "memory_write_image", {"image": base64.b64encode(png).decode()})
                assert not w.is_error, w.content[0].text
                mid = w.structured_content["memory_id"]
                assert (await read_blob(c, f"image://{mid}"))[0] == png
            async with http_client(srv, "bob") as c:
                for uri in (f"image://{mid}", f"image://{mid}/thumbnail", f"memory://{mid}"):
                    with pytest.raises(Exception, match="no memory"):
                        await c.read_resource(uri)
                s = await call(c, "memory_search", {"query": "locker code sticky note"})
                assert s.structured_content["hits"] == []
                s = await call(
                    c, "memory_search", {"query": "locker code sticky note", "kinds": "image"}
                )
                assert s.structured_content["hits"] == []

        run(go())


def test_a_page_of_a_scanned_pdf_is_written_found_and_read_back(svc: MemoryService) -> None:
    """A PDF sent as base64 (a data:application/pdf prefix allowed) stores one page as an image
    memory with `page`, or every page without it (listed in `pages`); each refusal is one tool
    error line."""
    pdf = scanned_pdf(["Tenancy for Flat 3"], ["Monthly rent of 1450 EUR to Norrland Bank"])
    as_data_url = "data:application/pdf;base64," + base64.b64encode(pdf).decode()
    alice = server_for(svc, "alice-pdf")

    async def go() -> list[str]:
        async with Client(alice) as c:
            w = await call(
                c, "memory_write_image", {"image": as_data_url, "page": 2, "caption": "lease"}
            )
            assert not w.is_error, w.content[0].text
            r = w.structured_content
            mid = r["memory_id"]
            assert r["kind"] == "image" and r["ocr"] == "read" and "1450 EUR" in r["text"]
            assert r["image"]["format"] == "jpeg" and r["image"]["pdf_page"] == 2
            s = await call(c, "memory_search", {"query": "monthly rent Norrland", "kinds": "image"})
            hit = s.structured_content["hits"][0]
            assert hit["memory_id"] == mid and hit["image"]["pdf_page"] == 2
            data, mime = await read_blob(c, f"image://{mid}")
            assert mime == "image/jpeg" and data[:2] == b"\xff\xd8"

            whole = await call(c, "memory_write_image", {"image": as_data_url})
            assert not whole.is_error, whole.content[0].text
            pages = whole.structured_content["pages"]
            assert [(p["page"], p["ocr"], p["status"]) for p in pages] == [
                (1, "read", "active"),
                (2, "read", "active"),
            ]
            assert whole.structured_content["memory_id"] == pages[0]["memory_id"]
            assert whole.structured_content["image"]["pdf_page"] == 1

            errors = []
            for args in (
                {"image": base64.b64encode(pdf[:3000]).decode(), "page": 1},
                {"image": base64.b64encode(jpeg_header_bomb(30000)).decode()},
                {"image": as_data_url, "page": 0},
            ):
                res = await call(c, "memory_write_image", args)
                assert res.is_error
                errors.append(res.content[0].text)
            return errors

    broken, bomb, zero = run(go())
    assert broken.startswith("image: is not a readable PDF")
    assert bomb == "image: page 1 is refused: its image's header declares a decompression bomb"
    assert "page" in zero and "\n" not in zero
    assert svc.records.count("alice-pdf") == 3
