"""Scanned PDF pages read by OCR on ingest (graphmem.documents.scanned): real PDFs built at
test time (tests/helpers/pdfs.py: text rendered with Pillow and saved as a PDF page without a
text layer, a text page written by hand), ingested into a real embedded service and found by
search."""

from __future__ import annotations

import io
import uuid
from collections.abc import Iterator
from pathlib import Path

import pypdf
import pytest

from graphmem import MemoryService
from graphmem.documents import PageOcr, load_path
from graphmem.domain.model import Kind
from graphmem.embedding import Embedder
from graphmem.settings import Settings
from tests.helpers.documents import _pdf
from tests.helpers.imaging import needs_ocr
from tests.helpers.pdfs import join, jpeg_header_bomb, scanned_pdf

SCAN_LINES = [
    "Lindqvist Shipping invoice 4471",
    "Berth fee for the vessel Aurora Borealis",
    "Payable to the Gothenburg port office",
]
TEXT_LINE = "Harbour crane maintenance schedule for Gdansk terminal"


def mixed_pdf() -> bytes:
    """A text page (Helvetica text layer) followed by a scanned page."""
    return join(_pdf([[TEXT_LINE]]), scanned_pdf(SCAN_LINES))


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Iterator[MemoryService]:
    service = MemoryService(
        Settings(data_dir=tmp_path_factory.mktemp("scans") / "data"), embedder=embedder
    )
    yield service
    service.close()


def _user() -> str:
    return f"u-{uuid.uuid4().hex[:8]}"


def test_a_scanned_page_has_no_text_layer() -> None:
    reader = pypdf.PdfReader(io.BytesIO(scanned_pdf(SCAN_LINES)))
    assert len(reader.pages) == 1 and not (reader.pages[0].extract_text() or "").strip()
    assert len(reader.pages[0].images) == 1


def test_a_scanned_pdf_is_read_by_ocr_and_found(svc: MemoryService, tmp_path: Path) -> None:
    needs_ocr()
    user = _user()
    path = tmp_path / "invoice.pdf"
    path.write_bytes(scanned_pdf(SCAN_LINES))
    report = svc.ingest(user, [path])
    assert report.failed == 0 and report.documents == 1, report.to_dict()
    outcome = report.outcomes[0]
    assert outcome.ocr_pages == 1 and outcome.note is None
    assert report.to_dict()["ocr_pages"] == 1
    assert report.to_dict()["outcomes"][0]["ocr_pages"] == 1
    res = svc.search(user, "Lindqvist Shipping invoice", 5, track_access=False)
    assert res.hits, "the OCR text was not stored"
    top = res.hits[0].memory
    assert top.kind == Kind.DOCUMENT and top.metadata["doc_uri"] == str(path.resolve())
    assert "Lindqvist" in top.content and "Aurora" in top.content


def test_a_mixed_pdf_keeps_its_text_layer_and_reads_the_scan(
    svc: MemoryService, tmp_path: Path
) -> None:
    needs_ocr()
    path = tmp_path / "mixed.pdf"
    path.write_bytes(mixed_pdf())
    doc = load_path(path, ocr=PageOcr())
    assert doc.ocr_pages == 1 and doc.notes == ()
    assert doc.text.index("Gdansk") < doc.text.index("Lindqvist")  # pages in order
    user = _user()
    report = svc.ingest(user, [path])
    assert report.outcomes[0].ocr_pages == 1 and report.failed == 0
    for query, word in (("Gdansk crane maintenance", "Gdansk"), ("Gothenburg port", "Gothenburg")):
        hits = svc.search(user, query, 5, track_access=False).hits
        assert hits and word in hits[0].memory.content, query
    # an ingest without OCR (the documents package alone) keeps only the text layer
    plain = load_path(path)
    assert "Gdansk" in plain.text and "Lindqvist" not in plain.text and plain.ocr_pages == 0


def test_without_tesseract_the_page_stays_empty_and_the_report_says_why(
    tmp_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty_bin = tmp_path / "bin"
    empty_bin.mkdir()
    monkeypatch.setenv("PATH", str(empty_bin))
    (tmp_path / "mixed.pdf").write_bytes(mixed_pdf())
    (tmp_path / "scan.pdf").write_bytes(scanned_pdf(SCAN_LINES))
    service = MemoryService(Settings(data_dir=tmp_path / "data"), embedder=embedder)
    try:
        user = _user()
        report = service.ingest(user, [tmp_path / "mixed.pdf", tmp_path / "scan.pdf"])
    finally:
        service.close()
    mixed, scan = report.outcomes
    assert mixed.action == "added" and mixed.ocr_pages == 0
    assert mixed.note == "1 page without a text layer not read: 'tesseract' not found" + (
        " (install tesseract-ocr)"
    )
    assert "\n" not in mixed.note
    assert scan.action == "failed" and scan.error is not None
    assert "has no text layer" in scan.error and "'tesseract' not found" in scan.error
    assert report.to_dict()["ocr_pages"] == 0


def test_ocr_off_is_said_too(tmp_path: Path) -> None:
    (tmp_path / "mixed.pdf").write_bytes(mixed_pdf())
    doc = load_path(tmp_path / "mixed.pdf", ocr=PageOcr(enabled=False))
    assert doc.ocr_pages == 0 and doc.notes == ("1 page without a text layer not read: OCR is off",)


def test_a_page_over_the_pixel_limit_is_skipped_not_decoded(tmp_path: Path) -> None:
    needs_ocr()
    (tmp_path / "mixed.pdf").write_bytes(mixed_pdf())
    doc = load_path(tmp_path / "mixed.pdf", ocr=PageOcr(max_pixels=100_000))
    assert "Gdansk" in doc.text and "Lindqvist" not in doc.text and doc.ocr_pages == 0
    assert doc.notes == ("page 2 skipped: its image is 1240x700 pixels, over the limit of 100,000",)
    small = load_path(tmp_path / "mixed.pdf", ocr=PageOcr(max_bytes=1000))
    assert small.ocr_pages == 0 and "over the limit of 1,000" in small.notes[0]


def test_a_picture_whose_own_header_declares_too_many_pixels_is_skipped(tmp_path: Path) -> None:
    """The page's JPEG header, not only its PDF dictionary, is checked before it is decoded
    (graphmem.images.pdf, shared with image memories of PDF pages)."""
    needs_ocr()
    (tmp_path / "bomb.pdf").write_bytes(join(_pdf([[TEXT_LINE]]), jpeg_header_bomb(8000)))
    doc = load_path(tmp_path / "bomb.pdf", ocr=PageOcr())
    assert "Gdansk" in doc.text and doc.ocr_pages == 0
    assert doc.notes == (
        "page 2 skipped: its image's header declares 8000x8000 pixels, over the limit of"
        " 40,000,000",
    )
