"""Documents through the Python API: ingest, search by kind, list and delete, on the embedded
service and on a running `graphmem serve`, with the same shapes from both.

The embedded client opens a real store in a temporary folder; the remote one talks to a real
`graphmem serve` over HTTP on a loopback port, with an agent token (which may send text inline
but not name files on the server).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import graphmem
from graphmem.client import MemoryClient
from graphmem.client.backends import EmbeddedBackend
from graphmem.client.documents import OUTCOME_KEYS
from graphmem.embedding import Embedder
from graphmem.errors import DocumentNotFoundError, InvalidInputError
from graphmem.service.facade import MemoryService
from graphmem.settings import Settings
from tests.helpers.mcp import HttpServer, start_http_server

DOC_KEYS = {"source", "title", "headings", "start", "end"}
LISTED_KEYS = {"source", "title", "chunks", "quarantined", "content_hash", "ingested_at"}
REPORT_KEYS = {
    "dry_run",
    "documents",
    "chunks",
    "skipped",
    "failed",
    "ocr_pages",
    "seconds",
    "outcomes",
}


def tag() -> str:
    """A word no other test writes (letters only: a hex run can look like a credential)."""
    return "zq" + uuid.uuid4().hex[:10].translate(str.maketrans("0123456789", "ghijklmnop"))


def page(word: str) -> str:
    return (
        f"# The {word} lighthouse\n\n"
        f"## History\n\nThe {word} lighthouse was built in 1871 on the northern cape.\n\n"
        f"## Visiting\n\nThe {word} lighthouse opens to visitors on Saturdays from May.\n"
    )


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    with start_http_server(tmp_path_factory.mktemp("client-docs-http")) as srv:
        yield srv


@pytest.fixture(scope="module")
def embedded(
    tmp_path_factory: pytest.TempPathFactory, embedder: Embedder
) -> Iterator[MemoryClient]:
    data = tmp_path_factory.mktemp("client-docs-embedded")
    service = MemoryService(Settings(data_dir=data), embedder=embedder)
    with MemoryClient(EmbeddedBackend(service)) as client:
        yield client


@pytest.fixture(scope="module")
def remote(server: HttpServer) -> Iterator[MemoryClient]:
    with graphmem.open(url=server.url, token=server.tokens["alice"]) as client:
        yield client


def the_client(request: pytest.FixtureRequest, kind: str) -> MemoryClient:
    client: MemoryClient = request.getfixturevalue(kind)
    return client


def document_hit(m: MemoryClient, word: str) -> dict[str, Any]:
    """The best document hit for `word`, checking the shape every hit has."""
    hits = m.search(f"when was the {word} lighthouse built", kinds="document", top_k=3)["results"]
    assert hits, "the ingested document is not found"
    for h in hits:
        assert h["kind"] == "document"
        assert set(h["document"]) == DOC_KEYS
        assert "library" in h
    return hits[0]


def check_report(report: dict[str, Any]) -> None:
    assert set(report) == REPORT_KEYS
    for outcome in report["outcomes"]:
        assert set(outcome) == set(OUTCOME_KEYS)


# ------------------------------------------------------------------ both backends


@pytest.mark.parametrize("kind", ["embedded", "remote"])
def test_inline_text_is_ingested_found_listed_skipped_and_deleted(
    request: pytest.FixtureRequest, kind: str
) -> None:
    m = the_client(request, kind)
    word = tag()
    name = f"https://wiki.example.org/{word}"

    dry = m.ingest_text(page(word), name=name, dry_run=True)
    check_report(dry)
    assert dry["dry_run"] is True and dry["outcomes"][0]["action"] == "would_add"
    assert not [d for d in m.documents() if d["source"] == name]

    first = m.ingest_text(page(word), name=name)
    check_report(first)
    assert (first["documents"], first["failed"]) == (1, 0)
    assert first["chunks"] >= 1 and first["outcomes"][0]["action"] == "added"

    hit = document_hit(m, word)
    assert hit["document"]["source"] == name
    assert hit["document"]["title"] == f"The {word} lighthouse"
    assert "1871" in hit["memory"] and hit["library"] is None
    assert 0 <= hit["document"]["start"] < hit["document"]["end"]
    only_memories = m.search(f"{word} lighthouse", kinds="memory")["results"]
    assert all(h["kind"] == "memory" for h in only_memories)
    assert not any(h["id"] == hit["id"] for h in only_memories)
    weighted = m.search(f"{word} lighthouse", kinds=["document"], kind_weights={"document": 0.5})
    assert weighted["results"][0]["score"] < hit["score"] + 1e-9

    again = m.ingest_text(page(word), name=name)
    assert (again["documents"], again["skipped"], again["chunks"]) == (0, 1, 0)
    assert again["outcomes"][0]["action"] == "unchanged"

    listed = [d for d in m.documents() if d["source"] == name]
    assert len(listed) == 1 and set(listed[0]) == LISTED_KEYS
    assert listed[0]["chunks"] >= 1

    gone = m.delete_document(name)
    assert gone["count"] == len(gone["deleted"]) >= listed[0]["chunks"]
    assert hit["id"] in gone["deleted"]
    assert not [d for d in m.documents() if d["source"] == name]
    assert not [
        h
        for h in m.search(f"{word} lighthouse", kinds="document")["results"]
        if word in h["memory"]
    ]
    with pytest.raises(DocumentNotFoundError):
        m.delete_document(name)


@pytest.mark.parametrize("kind", ["embedded", "remote"])
def test_bad_document_arguments_raise_input_errors(
    request: pytest.FixtureRequest, kind: str, tmp_path: Path
) -> None:
    m = the_client(request, kind)
    bad: list[tuple[str, Any]] = [
        ("kinds", lambda: m.search("x", kinds="pictures")),
        ("kinds", lambda: m.search("x", kinds=5)),  # type: ignore[arg-type] - not a kind nor a list
        ("kind_weights", lambda: m.search("x", kind_weights={"picture": 1.0})),
        ("kind_weights.document", lambda: m.search("x", kind_weights={"document": 0})),
        ("sources", lambda: m.ingest([])),
        ("sources[1]", lambda: m.ingest(["https://example.org/a", ""])),
        ("text", lambda: m.ingest_text(" ", name="n")),
        ("name", lambda: m.ingest_text("text", name="")),
        ("format", lambda: m.ingest_text("text", name="n", format="pdf")),
        ("dry_run", lambda: m.ingest_text("text", name="n", dry_run="yes")),  # type: ignore[arg-type]
        ("source", lambda: m.delete_document("")),
    ]
    for field, attempt in bad:
        with pytest.raises(InvalidInputError) as err:
            attempt()
        assert err.value.field == field, (field, err.value)
    # A file that does not exist: the embedded client reads paths and says which is missing;
    # the server refuses any path from an agent token, before looking at it.
    with pytest.raises(InvalidInputError) as err:
        m.ingest(str(tmp_path / "missing.md"))
    assert "missing.md" in str(err.value)
    assert ("no such file" in str(err.value)) == (kind == "embedded")


def test_both_backends_give_the_same_shapes(embedded: MemoryClient, remote: MemoryClient) -> None:
    word = tag()
    name = f"https://wiki.example.org/{word}"
    reports = [m.ingest_text(page(word), name=name) for m in (embedded, remote)]
    assert [set(r["outcomes"][0]) for r in reports] == [set(OUTCOME_KEYS)] * 2
    assert reports[0]["outcomes"][0] == {**reports[1]["outcomes"][0]}
    hits = [document_hit(m, word) for m in (embedded, remote)]
    assert set(hits[0]) == set(hits[1])
    assert hits[0]["document"] == hits[1]["document"]
    assert hits[0]["memory"] == hits[1]["memory"]
    listed = [[d for d in m.documents() if d["source"] == name] for m in (embedded, remote)]
    assert listed[0][0]["content_hash"] == listed[1][0]["content_hash"]
    for m in (embedded, remote):
        assert m.delete_document(name)["count"] >= 1


# ------------------------------------------------------------------ one backend


def test_embedded_ingests_a_markdown_file_by_its_path(
    embedded: MemoryClient, tmp_path: Path
) -> None:
    word = tag()
    path = tmp_path / f"{word}.md"
    path.write_text(page(word), encoding="utf-8")
    report = embedded.ingest(path)
    assert (report["documents"], report["failed"]) == (1, 0)
    source = str(path.resolve())
    assert report["outcomes"][0]["source"] == source
    hit = document_hit(embedded, word)
    assert hit["document"]["source"] == source
    assert embedded.ingest([str(path)])["outcomes"][0]["action"] == "unchanged"
    path.write_text(page(word) + "\nIt was painted red and white in 1990.\n", encoding="utf-8")
    assert embedded.ingest(str(path))["outcomes"][0]["action"] == "replaced"
    assert [d["source"] for d in embedded.documents() if word in d["source"]] == [source]
    assert embedded.delete_document(str(path))["count"] >= 2  # both versions, as history
    assert not [d for d in embedded.documents() if word in d["source"]]


def test_remote_paths_need_an_operator_token(remote: MemoryClient, tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("# Notes\n\nNothing here.\n", encoding="utf-8")
    with pytest.raises(InvalidInputError) as err:
        remote.ingest(str(path))
    assert err.value.field == "sources" and "operator token" in str(err.value)
    with pytest.raises(InvalidInputError) as err:
        remote.ingest_text("# Shared\n\ntext", name="shared", library="team")
    assert err.value.field == "library"


def test_async_client_has_the_document_methods(server: HttpServer) -> None:
    word = tag()
    name = f"https://wiki.example.org/{word}"

    async def go() -> None:
        async with graphmem.open_async(url=server.url, token=server.tokens["bob"]) as m:
            report = await m.ingest_text(page(word), name=name, format="markdown")
            assert report["documents"] == 1
            hits = (await m.search(f"{word} lighthouse", kinds="document"))["results"]
            assert hits and hits[0]["document"]["source"] == name
            assert [d["source"] for d in await m.documents()] == [name]
            assert (await m.delete_document(name))["count"] >= 1
            assert await m.documents() == []
            with pytest.raises(InvalidInputError):
                await m.ingest("/etc/hostname")

    asyncio.run(go())


def test_a_shared_library_chunk_names_its_library(embedded: MemoryClient) -> None:
    word = tag()
    library = f"team-{word}"
    name = f"https://wiki.example.org/{word}"
    report = embedded.ingest_text(page(word), name=name, library=library)
    assert report["documents"] == 1
    assert embedded.documents() == [d for d in embedded.documents() if d["source"] != name]
    assert [d["source"] for d in embedded.documents(library=library)] == [name]
    service = embedded.service
    assert service is not None
    service.grant_library(library, "reader")
    hit = embedded.search(f"{word} lighthouse built", user_id="reader", kinds="document")
    first = hit["results"][0]
    assert first["library"] == library and first["user_id"] == f"library:{library}"
    assert first["document"]["source"] == name
    assert embedded.delete_document(name, library=library)["count"] >= 1
    assert embedded.documents(library=library) == []
