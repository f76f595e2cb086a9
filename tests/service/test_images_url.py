"""An image memory from a URL: `svc.write_image(url=...)`, `graphmem add --image-url`,
memory_write_image's `url` and the client's `add_image(url=...)`, against a real HTTP server on
127.0.0.1 (so the tests that fetch turn `images.url_allow_private` on), with a test that
loopback is refused by default. Every failure is one line on the field `url`, and leaves no
memory and no file behind."""

from __future__ import annotations

import asyncio
import http.server
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

import graphmem
from graphmem import MemoryService, Settings
from graphmem.domain.visibility import Viewer
from graphmem.embedding import Embedder
from graphmem.errors import InvalidInputError
from graphmem.images import ImageSettings
from graphmem.mcp.server import create_server
from graphmem.stores import open_working
from tests.helpers.imaging import image_files, needs_ocr, render
from tests.helpers.pdfs import scanned_pdf

RECEIPT = render(["Invoice 4471 from Hollis Bakery", "Total due: 38.50 EUR"], size=(800, 200))
SCAN = scanned_pdf(["Berth fee for the vessel Aurora Borealis"])
LIMIT = 200_000
assert len(RECEIPT) < LIMIT


class Handler(http.server.BaseHTTPRequestHandler):
    """The paths the tests fetch: an image, redirects, and each way a response can be wrong."""

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def send(self, code: int, ctype: str | None, body: bytes, **headers: str) -> None:
        self.send_response(code)
        if ctype:
            self.send_header("Content-Type", ctype)
        for k, v in headers.items():
            self.send_header(k.replace("_", "-"), v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        path = self.path
        if path == "/receipt.png":
            self.send(200, "image/png", RECEIPT)
        elif path == "/scan.pdf":
            self.send(200, "application/pdf", SCAN)
        elif path == "/moved":
            self.send(302, None, b"", Location="/receipt.png")
        elif path.startswith("/hop"):
            n = int(path[4:] or 0)
            self.send(302, None, b"", Location=f"/hop{n + 1}")
        elif path == "/to-ftp":
            self.send(302, None, b"", Location="ftp://127.0.0.1/receipt.png")
        elif path == "/page":
            self.send(200, "text/html; charset=utf-8", b"<html>not an image</html>")
        elif path == "/declared-big":
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(LIMIT * 10))
            self.end_headers()
        elif path == "/endless":  # no Content-Length: the limit holds while streaming
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.end_headers()
            try:
                for _ in range(2000):
                    self.wfile.write(RECEIPT[:8] + bytes(65536))
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.close_connection = True
        elif path == "/slow":
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.end_headers()
            try:
                for _ in range(40):
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    time.sleep(0.1)  # a trickle: what the download deadline is tested against
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.close_connection = True
        elif path == "/not-decodable":
            self.send(200, "image/png", b"\x89PNG but not really")
        else:
            self.send(404, "text/plain", b"no")


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def open_images() -> ImageSettings:
    return ImageSettings(url_allow_private=True, max_bytes=LIMIT, url_timeout_seconds=2.0)


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Iterator[MemoryService]:
    needs_ocr()
    data = tmp_path_factory.mktemp("images-url") / "data"
    service = MemoryService(Settings(data_dir=data, images=open_images()), embedder=embedder)
    yield service
    service.close()


def test_an_image_is_fetched_stored_and_its_url_kept_as_provenance(
    svc: MemoryService, site: str
) -> None:
    m = svc.write_image("ann", url=f"{site}/moved", caption="lunch receipt")
    assert m.kind.value == "image" and m.content.startswith("lunch receipt\nInvoice 4471")
    assert m.metadata["image_url"] == f"{site}/moved"
    assert svc.image("ann", m.id) == (RECEIPT, "image/png")
    hits = svc.search("ann", "Hollis Bakery invoice", 3).hits
    assert hits[0].memory.id == m.id


def test_a_scanned_pdf_is_fetched_as_an_image_of_its_page(svc: MemoryService, site: str) -> None:
    m = svc.write_image("ann-pdf", url=f"{site}/scan.pdf", caption="berth invoice")
    assert m.metadata["image_url"] == f"{site}/scan.pdf" and m.metadata["image_pdf_page"] == 1
    assert "Aurora Borealis" in m.content and svc.image("ann-pdf", m.id)[1] == "image/jpeg"


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("/page", "is text/html, not an image"),
        ("/declared-big", f"is {LIMIT * 10:,} bytes; at most {LIMIT:,} are accepted"),
        ("/endless", f"is more than {LIMIT:,} bytes; stopped reading there"),
        ("/slow", "within 2 s"),
        ("/hop0", "redirected more than 3 times"),
        ("/to-ftp", "redirects to ftp://127.0.0.1/receipt.png, which is not an http or https"),
        ("/missing", "returned HTTP 404"),
        ("/not-decodable", None),  # fetched, then refused by the decoder: field image
    ],
)
def test_each_failure_is_one_line_and_stores_nothing(
    svc: MemoryService, site: str, path: str, says: str | None
) -> None:
    before = (svc.list("bob", viewer=Viewer.OPERATOR), image_files(svc))
    started = time.monotonic()
    with pytest.raises(InvalidInputError) as e:
        svc.write_image("bob", url=f"{site}{path}")
    assert time.monotonic() - started < 5
    assert e.value.field == ("url" if says else "image") and "\n" not in str(e.value)
    if says:
        assert str(e.value).startswith(f"url: {site}{path} ") and says in str(e.value)
    assert (svc.list("bob", viewer=Viewer.OPERATOR), image_files(svc)) == before


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("ftp://example.com/a.png", "not an http or https URL (scheme 'ftp')"),
        ("file:///etc/passwd", "not an http or https URL (scheme 'file')"),
        ("http://user:secret@example.com/a.png", "holds a user name or password"),
        ("http:///a.png", "names no host"),
        ("http://no-such-host.invalid/a.png", "could not be resolved"),
    ],
)
def test_urls_refused_before_any_connection(svc: MemoryService, url: str, says: str) -> None:
    with pytest.raises(InvalidInputError, match="^url: ") as e:
        svc.write_image("bob", url=url)
    assert says in str(e.value) and "secret" not in str(e.value)


def test_loopback_and_private_addresses_are_refused_by_default(
    tmp_path: Path, embedder: Embedder, site: str
) -> None:
    svc = MemoryService(Settings(data_dir=tmp_path / "data"), embedder=embedder)
    port = site.rsplit(":", 1)[1]
    try:
        for url in (
            f"{site}/receipt.png",
            f"http://localhost:{port}/receipt.png",
            f"http://[::ffff:127.0.0.1]:{port}/receipt.png",
            "http://169.254.169.254/latest/meta-data/",
            "http://10.0.0.1/a.png",
        ):
            with pytest.raises(InvalidInputError) as e:
                svc.write_image("ann", url=url)
            assert "private or loopback address" in str(e.value), url
            assert "images.url_allow_private" in str(e.value)
        assert svc.list("ann", viewer=Viewer.OPERATOR) == [] and image_files(svc) == []
    finally:
        svc.close()


def test_a_public_url_redirecting_inside_is_refused_by_default(
    tmp_path: Path, embedder: Embedder, site: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each hop is checked: the first address is let through here (as a public one would be),
    the redirect to loopback is not."""
    from graphmem.images import fetch

    real = fetch._connect
    calls: list[bool] = []

    def first_hop_public(host: str, port: int, timeout: float, allow: bool) -> Any:
        calls.append(allow)
        return real(host, port, timeout, allow or len(calls) == 1)

    monkeypatch.setattr(fetch, "_connect", first_hop_public)
    svc = MemoryService(Settings(data_dir=tmp_path / "data"), embedder=embedder)
    try:
        with pytest.raises(InvalidInputError, match="private or loopback"):
            svc.write_image("ann", url=f"{site}/moved")
        assert calls == [False, False]
    finally:
        svc.close()


def test_image_or_url_not_both_nor_neither(svc: MemoryService, site: str) -> None:
    with pytest.raises(InvalidInputError, match="^url: give the image or its url, not both"):
        svc.write_image("bob", RECEIPT, url=f"{site}/receipt.png")
    with pytest.raises(InvalidInputError, match="^image: give an image"):
        svc.write_image("bob")


# ------------------------------------------------------------------ CLI, MCP, client


def test_cli_add_image_url(cli, site: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    needs_ocr()
    code, out, err = cli("add", "--image-url", f"{site}/receipt.png", "--user", "ann")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"error: url: {site}/receipt.png is at a private or loopback address")
    monkeypatch.setenv("GRAPHMEM_IMAGES_URL_ALLOW_PRIVATE", "true")
    code, out, err = cli(
        "add", "--image-url", f"{site}/receipt.png", "--caption", "receipt", "--user", "ann"
    )
    assert code == 0, err
    mid = out.strip()
    code, out, err = cli("image", mid, "-o", str(tmp_path / "r.png"), "--user", "ann")
    assert code == 0 and (tmp_path / "r.png").read_bytes() == RECEIPT
    code, out, err = cli("add", "--image-url", f"{site}/page", "--user", "ann")
    assert code == 2 and err.count("\n") == 1 and "is text/html, not an image" in err
    code, out, err = cli(
        "add", "--image", "x.png", "--image-url", f"{site}/receipt.png", "--user", "ann"
    )
    assert code == 2 and err.startswith("error: image_url: give --image or --image-url")


def test_mcp_memory_write_image_with_a_url(
    svc: MemoryService, site: str, tmp_path: Path, embedder: Embedder
) -> None:
    async def go(service: MemoryService, args: dict[str, Any]) -> Any:
        server = create_server(
            service, working=open_working("memory"), default_user="cat"
        )
        async with Client(server) as c:
            return await c.call_tool("memory_write_image", args, raise_on_error=False)

    res = asyncio.run(go(svc, {"url": f"{site}/receipt.png", "caption": "receipt"}))
    assert not res.is_error, res
    data = res.structured_content
    assert data["kind"] == "image" and "Hollis Bakery" in data["text"]
    assert svc.image("cat", data["memory_id"])[0] == RECEIPT
    m = svc.get("cat", data["memory_id"])
    assert m.metadata["image_url"] == f"{site}/receipt.png"

    res = asyncio.run(go(svc, {}))
    assert res.is_error and res.content[0].text.startswith("image: send the image")
    closed = MemoryService(Settings(data_dir=tmp_path / "closed"), embedder=embedder)
    try:
        res = asyncio.run(go(closed, {"url": f"{site}/receipt.png"}))
        assert res.is_error
        assert res.content[0].text.startswith("url: ") and "private or loopback" in (
            res.content[0].text
        )
        assert closed.list("cat", viewer=Viewer.OPERATOR) == []
    finally:
        closed.close()


def test_embedded_client_add_image_url(
    site: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    needs_ocr()
    monkeypatch.setenv("GRAPHMEM_IMAGES_URL_ALLOW_PRIVATE", "true")
    with graphmem.open(data_dir=tmp_path / "data") as client:
        rec = client.add_image(url=f"{site}/receipt.png", caption="receipt")
        assert rec["kind"] == "image" and rec["metadata"]["image_url"].endswith("/receipt.png")
        assert client.get_image(rec["id"]) == (RECEIPT, "image/png")
        with pytest.raises(InvalidInputError, match="^image: give the image"):
            client.add_image()
