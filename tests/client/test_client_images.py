"""The Python client's image methods, embedded and against a real `graphmem serve` over HTTP:
the same calls, the same results, and a remote client reading only its own token's images."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import graphmem
from graphmem.errors import GraphmemError, NotFoundError
from tests.helpers.imaging import needs_ocr, render
from tests.helpers.mcp import HttpServer, start_http_server
from tests.helpers.pdfs import scanned_pdf

SIGN = ["Platform 9 closed until Monday", "Use the east entrance"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    needs_ocr()
    with start_http_server(tmp_path_factory.mktemp("client-images-http")) as srv:
        yield srv


def check_round_trip(client: graphmem.MemoryClient, folder: Path) -> str:
    path = folder / "sign.png"
    path.write_bytes(render(SIGN))
    rec = client.add_image(path, "sign at the station")
    assert rec["kind"] == "image" and "Platform 9 closed" in rec["content"]
    hits = client.search("is platform 9 open?")["results"]
    assert hits[0]["id"] == rec["id"] and hits[0]["kind"] == "image"
    data, mime = client.get_image(rec["id"])
    assert data == path.read_bytes() and mime == "image/png"
    saved = client.save_image(rec["id"], folder)
    assert saved == folder / f"{rec['id']}.png" and saved.read_bytes() == data
    thumb, _ = client.get_image(rec["id"], thumbnail=True)
    assert thumb[:4] == b"\x89PNG"
    return str(rec["id"])


def test_embedded_client_writes_finds_and_saves_an_image(tmp_path: Path) -> None:
    needs_ocr()
    with graphmem.open(data_dir=tmp_path / "data") as client:
        check_round_trip(client, tmp_path)


def test_remote_client_does_the_same_and_reads_only_its_own_images(
    server: HttpServer, tmp_path: Path
) -> None:
    with graphmem.open(url=server.url, token=server.tokens["alice"]) as alice:
        mid = check_round_trip(alice, tmp_path)
    with graphmem.open(url=server.url, token=server.tokens["bob"]) as bob:
        with pytest.raises(NotFoundError):
            bob.get_image(mid)
        assert bob.search("is platform 9 open?")["results"] == []


def test_remote_client_sends_a_url_for_the_server_to_fetch_under_its_rules(
    server: HttpServer,
) -> None:
    """The server fetches, so its rules apply: its own loopback address is refused by default,
    in one line on the field url, and nothing is stored."""
    with graphmem.open(url=server.url, token=server.tokens["alice"]) as alice:
        before = alice.search("status page")["results"]
        with pytest.raises(GraphmemError) as e:
            alice.add_image(url=f"{server.url}/healthz", caption="status page")
        assert str(e.value).startswith("url: ") and "private or loopback" in str(e.value)
        assert "\n" not in str(e.value)
        assert alice.search("status page")["results"] == before


def test_a_page_of_a_pdf_through_the_embedded_and_the_remote_client(
    server: HttpServer, tmp_path: Path
) -> None:
    """`add_image(path, page=N)` stores one page of a scanned PDF in both clients; without
    `page` every page is stored, the first returned with `pages` listing them all."""
    path = tmp_path / "lease.pdf"
    path.write_bytes(scanned_pdf(["Tenancy for Flat 3"], ["Monthly rent of 1450 EUR"]))
    with (
        graphmem.open(data_dir=tmp_path / "data") as embedded,
        graphmem.open(url=server.url, token=server.tokens["alice"]) as remote,
    ):
        for client in (embedded, remote):
            rec = client.add_image(path, "the lease", page=2)
            assert rec["kind"] == "image" and "1450 EUR" in rec["content"]
            assert rec["metadata"]["image_pdf_page"] == 2
            hits = client.search("how much is the monthly rent?")["results"]
            assert hits[0]["id"] == rec["id"]
            data, mime = client.get_image(rec["id"])
            assert mime == "image/jpeg" and data[:2] == b"\xff\xd8"
            whole = client.add_image(path, "the lease")
            assert whole["metadata"]["image_pdf_page"] == 1 and "Flat 3" in whole["content"]
            assert [p["page"] for p in whole["pages"]] == [1, 2]
            assert whole["pages"][0]["memory_id"] == whole["id"]
            assert client.get(whole["pages"][1]["memory_id"])["metadata"]["image_pdf_page"] == 2
