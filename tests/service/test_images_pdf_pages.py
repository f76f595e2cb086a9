"""PDF pages rendered and written one image memory a page (graphmem.images.pdf, pdfpage,
render) on the embedded default with the real Tesseract and PDFium: a two-page scan is two
image memories found by their text, a page cut into strips, drawn as vectors or holding an
inline image is rendered whole and read, a page past the per-write limit, a decompression
bomb and an oversized page are one-line refusals that store nothing, and without pypdfium2 a
page falls back to its largest picture and says so. Document ingest renders a page without a
text layer the same way. The PDFs are built here (tests/helpers/pdfs.py)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from graphmem import MemoryService, Settings
from graphmem.documents import PageOcr, load_path
from graphmem.domain.model import Kind, Status
from graphmem.embedding import Embedder
from graphmem.errors import ImageError, InvalidInputError
from graphmem.images import ImageSettings, render
from tests.helpers.imaging import image_files, needs_ocr
from tests.helpers.pdfs import (
    blank_pages,
    declared_bomb,
    inline_image_pdf,
    join,
    oversized_page,
    scanned_pdf,
    strips_pdf,
    vector_text_pdf,
)

STRIPS = (
    ["Ferry timetable for Visby harbour"],
    ["Departures at 0715 from Nynashamn"],
    ["Cabin booking reference QX4471"],
)
PER_WRITE = 3


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Iterator[MemoryService]:
    needs_ocr()
    settings = Settings(
        data_dir=tmp_path_factory.mktemp("pdf-pages") / "data",
        images=ImageSettings(pdf_pages_per_write=PER_WRITE),
    )
    service = MemoryService(settings, embedder=embedder)
    yield service
    service.close()


def test_a_two_page_scan_is_two_image_memories_found_by_their_text(
    svc: MemoryService, tmp_path: Path
) -> None:
    user = "two-pages"
    path = tmp_path / "lease.pdf"
    path.write_bytes(
        scanned_pdf(
            ["Tenancy agreement for Flat 3", "Landlord: Marta Oyelaran"],
            ["Monthly rent of 1450 EUR", "payable to Norrland Savings Bank"],
        )
    )
    first, second = svc.write_image_pages(user, path, caption="signed lease")
    assert [m.metadata["image_pdf_page"] for m in (first, second)] == [1, 2]
    assert all(m.metadata["image_pdf_pages"] == 2 for m in (first, second))
    assert first.metadata["image_pdf_sha256"] == second.metadata["image_pdf_sha256"]
    assert first.metadata["image_sha256"] != second.metadata["image_sha256"]
    for m in (first, second):
        assert m.kind == Kind.IMAGE and m.status == Status.ACTIVE
        assert m.metadata["image_pdf_picture"] == "scan"  # one picture a page: kept as it is
        assert m.metadata["image_ocr"] == "read" and m.content.startswith("signed lease\n")
    assert "Oyelaran" in first.content and "1450 EUR" not in first.content
    assert "1450 EUR" in second.content and "Oyelaran" not in second.content

    assert svc.search(user, "how much is the monthly rent?", 3).hits[0].memory.id == second.id
    assert svc.search(user, "who is the landlord", 3).hits[0].memory.id == first.id
    # write_image (the one-memory call) writes every page too and returns the first
    again = svc.write_image("two-pages-again", path)
    assert again.metadata["image_pdf_page"] == 1
    assert svc.records.count("two-pages-again") == 2


def test_a_page_cut_into_strips_is_rendered_and_every_strip_read(svc: MemoryService) -> None:
    user = "strips"
    (m,) = svc.write_image_pages(user, strips_pdf(*STRIPS), caption="ferry booking")
    md = m.metadata
    assert (md["image_pdf_picture"], md["image_pdf_dpi"]) == ("page", 200)
    assert md["image_format"] == "png"
    # the page is 595.2 x 288 points: 1654 x 800 pixels at 200 dpi
    assert (md["image_width"], md["image_height"]) == (1654, 800)
    for word in ("Visby", "Nynashamn", "QX4471"):
        assert word in m.content, m.content
    assert svc.search(user, "cabin booking reference", 3).hits[0].memory.id == m.id
    data, mime = svc.image(user, m.id)  # the page as rendered
    assert mime == "image/png" and Image.open(io.BytesIO(data)).size == (1654, 800)


@pytest.mark.parametrize(
    ("pdf", "words"),
    [
        (vector_text_pdf(["Glasshouse rota for Kingfisher Lane"]), ("Glasshouse", "Kingfisher")),
        (inline_image_pdf(["Parcel locker code 5521 Narwhal"]), ("locker", "5521", "Narwhal")),
    ],
    ids=["vectors", "inline-image"],
)
def test_a_page_of_vectors_or_an_inline_image_is_read(
    svc: MemoryService, pdf: bytes, words: tuple[str, ...]
) -> None:
    (m,) = svc.write_image_pages("no-xobject", pdf)
    assert m.metadata["image_pdf_picture"] == "page" and m.metadata["image_ocr"] == "read"
    for word in words:
        assert word in m.content, m.content


def test_a_blank_page_among_others_is_skipped(svc: MemoryService) -> None:
    pdf = join(scanned_pdf(["Delivery note for crate 17"]), blank_pages(1), strips_pdf(*STRIPS))
    written = svc.write_image_pages("blank-among", pdf)
    assert [m.metadata["image_pdf_page"] for m in written] == [1, 3]
    assert [m.metadata["image_pdf_picture"] for m in written] == ["scan", "page"]


def test_more_pages_than_a_write_takes_are_refused_and_page_still_picks_one(
    svc: MemoryService,
) -> None:
    user = "too-many"
    pdf = scanned_pdf(*([f"Page {i} of the minutes"] for i in range(1, PER_WRITE + 2)))
    before = image_files(svc)
    with pytest.raises(ImageError) as e:
        svc.write_image_pages(user, pdf)
    says = str(e.value)
    assert says.startswith(f"image: is a PDF of {PER_WRITE + 1} pages; at most {PER_WRITE}")
    assert "images.pdf_pages_per_write" in says and "give page (1 to 4)" in says
    assert "\n" not in says and image_files(svc) == before and svc.records.count(user) == 0
    (last,) = svc.write_image_pages(user, pdf, page=PER_WRITE + 1)
    assert last.metadata["image_pdf_page"] == PER_WRITE + 1 and "Page 4" in last.content


@pytest.mark.parametrize(
    ("pdf", "says"),
    [
        (
            declared_bomb(["Berth fee"], 20_000),
            "page 1 is refused: its image is 20000x20000 pixels, over the limit of 40,000,000",
        ),
        (
            oversized_page(14_400),
            "page 1 is refused: it is 200.0 x 200.0 inches: even at 72 dpi that is 207,360,000"
            " pixels, over the limit of 40,000,000",
        ),
        # the second page is the bomb: the first, read and stored already, is removed again
        (
            join(scanned_pdf(["Harmless first page"]), declared_bomb(["x"], 20_000)),
            "page 2 is refused: its image is 20000x20000 pixels",
        ),
    ],
    ids=["declared-bomb", "oversized-page", "bomb-on-page-2"],
)
def test_a_bomb_or_an_oversized_page_is_refused_in_one_line(
    svc: MemoryService, pdf: bytes, says: str
) -> None:
    before = image_files(svc)
    with pytest.raises(InvalidInputError) as e:
        svc.write_image_pages("bombed", pdf)
    assert e.value.field == "image" and says in str(e.value), str(e.value)
    assert "\n" not in str(e.value)
    assert image_files(svc) == before and svc.records.count("bombed") == 0


def test_without_pypdfium2_the_largest_picture_stands_in_and_says_so(
    svc: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(render, "available", lambda: False)
    (m,) = svc.write_image_pages("no-pdfium", strips_pdf(*STRIPS))
    md = m.metadata
    assert md["image_pdf_picture"] == "largest" and md["image_pdf_note"] == render.NOT_INSTALLED
    assert md["image_format"] == "jpeg" and (md["image_width"], md["image_height"]) == (1240, 200)
    read = [w for w in ("Visby", "Nynashamn", "QX4471") if w in m.content]
    assert len(read) == 1, m.content  # one strip only: what rendering is for


def test_ingest_renders_a_page_without_a_text_layer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    needs_ocr()
    path = tmp_path / "ferry.pdf"
    path.write_bytes(join(strips_pdf(*STRIPS), vector_text_pdf(["Glasshouse rota for Kingfisher"])))
    doc = load_path(path, ocr=PageOcr())
    assert doc.ocr_pages == 2 and doc.notes == ()
    for word in ("Visby", "Nynashamn", "QX4471", "Glasshouse", "Kingfisher"):
        assert word in doc.text, doc.text

    monkeypatch.setattr(render, "available", lambda: False)
    old = load_path(path, ocr=PageOcr())
    assert old.ocr_pages == 1 and old.notes == (render.NOT_INSTALLED,)
    assert sum(w in old.text for w in ("Visby", "Nynashamn", "QX4471")) == 1
    assert "Glasshouse" not in old.text
