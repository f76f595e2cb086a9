"""PDF pages to pixels (graphmem.images.render, graphmem.images.pdfpage) with the real PDFium,
no OCR: the render scale within the pixel limit, which pages are one scanned picture and which
are rendered, how a rendered page is stored, and the checks that run before PDFium decodes."""

from __future__ import annotations

import io
import math
import random
from concurrent.futures import ThreadPoolExecutor

import pypdf
import pytest
from PIL import Image, ImageFilter

from graphmem.errors import ImageError
from graphmem.images import render
from graphmem.images.pdf import PdfLimits, read_pages
from graphmem.images.pdfpage import check_images, content_ops, only_picture
from tests.helpers.documents import _pdf
from tests.helpers.pdfs import (
    declared_bomb,
    inline_image_pdf,
    jpeg_header_bomb,
    oversized_page,
    scanned_pdf,
    searchable_pdf,
    strips_pdf,
    vector_text_pdf,
)

LIMITS = PdfLimits(max_bytes=20 * 1024 * 1024, max_pixels=40_000_000, max_pages=10)
A4 = (595.0, 842.0)


def _page(pdf: bytes) -> pypdf.PageObject:
    return pypdf.PdfReader(io.BytesIO(pdf)).pages[0]


def test_an_a4_page_renders_at_the_dpi_asked() -> None:
    scale = render.scale_for(*A4, 200, 40_000_000)
    assert scale == pytest.approx(200 / 72)
    assert (math.ceil(A4[0] * scale), math.ceil(A4[1] * scale)) == (1653, 2339)


def test_a_large_page_is_scaled_down_to_the_pixel_limit() -> None:
    a0 = (2384.0, 3370.0)  # A0 at 200 dpi would be 62 million pixels
    scale = render.scale_for(*a0, 200, 40_000_000)
    w, h = math.ceil(a0[0] * scale), math.ceil(a0[1] * scale)
    assert w * h <= 40_000_000 and w * h > 39_000_000
    assert 150 < scale * 72 < 200


@pytest.mark.parametrize(
    ("size", "says"),
    [
        ((14_400.0, 14_400.0), "it is 200.0 x 200.0 inches: even at 72 dpi that is 207,360,000"),
        ((0.0, 100.0), "it declares a size of 0.0 x 100.0 points"),
        ((float("nan"), 100.0), "it declares a size of nan x 100.0 points"),
    ],
)
def test_a_page_too_large_even_at_the_lowest_dpi_is_refused(
    size: tuple[float, float], says: str
) -> None:
    with pytest.raises(ImageError, match=says.replace("(", r"\(").replace(")", r"\)")):
        render.scale_for(*size, 200, 40_000_000)


@pytest.mark.parametrize(
    ("pdf", "alone"),
    [
        (scanned_pdf(["One scanned picture"]), True),
        (strips_pdf(["strip one"], ["strip two"]), False),
        (vector_text_pdf(["drawn as paths"]), False),
        (inline_image_pdf(["inline"]), False),
        (searchable_pdf(["picture"], ["visible text over it"]), False),
        (_pdf([["text only"]]), False),
    ],
    ids=["scan", "strips", "vectors", "inline", "visible-text", "text"],
)
def test_only_a_page_of_one_picture_is_kept_as_its_picture(pdf: bytes, alone: bool) -> None:
    page = _page(pdf)
    assert (only_picture(page, content_ops(page, 1)) is not None) == alone


def test_a_rotated_scan_is_rendered() -> None:
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(scanned_pdf(["turned"]))))
    writer.pages[0].rotate(90)
    buf = io.BytesIO()
    writer.write(buf)
    page = _page(buf.getvalue())
    assert only_picture(page, content_ops(page, 1)) is None
    (got,) = read_pages(buf.getvalue(), None, LIMITS)
    assert got.picture == "page" and got.image.height > got.image.width  # turned upright


def test_every_image_is_checked_before_rendering() -> None:
    for pdf, says in (
        (declared_bomb(["a"], 20_000), "its image is 20000x20000 pixels"),
        (jpeg_header_bomb(8000), "its image's header declares 8000x8000 pixels"),
    ):
        page = _page(pdf)
        with pytest.raises(ImageError, match=says):
            check_images(page, content_ops(page, 1), 40_000_000, 20 * 1024 * 1024)
    page = _page(inline_image_pdf(["inline"]))
    with pytest.raises(ImageError, match=r"its inline image is 900x150 pixels"):
        check_images(page, content_ops(page, 1), 100_000, 20 * 1024 * 1024)


def test_a_rendered_page_is_stored_as_a_grey_png_when_it_has_no_colour() -> None:
    (got,) = read_pages(strips_pdf(["grey text"], ["more grey text"]), None, LIMITS)
    assert (got.picture, got.dpi, got.image.format) == ("page", 200, "png")
    stored = Image.open(io.BytesIO(got.image.data))
    assert stored.mode == "L" and stored.size == (got.image.width, got.image.height)
    assert got.image.picture.mode == "RGB"
    colour = Image.new("RGB", (300, 200), "white")
    colour.paste((200, 30, 30), (0, 0, 100, 100))
    data, fmt = render.encode(colour, 10**6)
    assert fmt == "png" and Image.open(io.BytesIO(data)).mode == "RGB"


def test_a_rendered_page_over_the_byte_limit_becomes_a_jpeg_or_is_refused() -> None:
    pixels = random.Random(7).randbytes(800 * 800 * 3)
    noise = Image.frombytes("RGB", (800, 800), pixels).filter(ImageFilter.GaussianBlur(2))
    data, fmt = render.encode(noise, 400_000)  # about 780 kB as a PNG, 120 kB as a JPEG
    assert fmt == "jpeg" and len(data) <= 400_000
    with pytest.raises(ImageError, match="as a JPEG rendered at its resolution; at most 1,000"):
        render.encode(noise, 1000)


def test_the_same_page_renders_to_the_same_bytes() -> None:
    pdf = vector_text_pdf(["the same every time"])
    first, again = (next(read_pages(pdf, None, LIMITS)) for _ in range(2))
    assert first.image.sha256 == again.image.sha256


def test_an_oversized_page_is_refused_with_its_page_number() -> None:
    with pytest.raises(ImageError, match="^image: page 1 is refused: it is 200.0 x 200.0 inches"):
        next(read_pages(oversized_page(14_400), None, LIMITS))


def test_pages_render_alike_from_many_threads_at_once() -> None:
    """PDFium is not thread-safe; every call into it holds one lock (graphmem.images.render),
    so concurrent writes each get the same bytes a lone write gets."""
    pdfs = [strips_pdf(["a b c"], ["d e f"]), vector_text_pdf(["x y z"])]

    def sha(i: int) -> str:
        return next(read_pages(pdfs[i % 2], None, LIMITS)).image.sha256

    with ThreadPoolExecutor(8) as pool:
        shas = list(pool.map(sha, range(32)))
    assert len(set(shas[0::2])) == 1 and len(set(shas[1::2])) == 1 and shas[0] != shas[1]
