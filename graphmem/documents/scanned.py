"""Scanned PDF pages: a page without a text layer is read by OCR instead of left empty.

A scanner or a phone app writes each page as one picture and no text, so pypdf finds nothing
and the document would be stored without the words a user will search for. Such a page is
handed to the same Tesseract wrapper image memories use (graphmem.images.ocr) as a picture
made the way a PDF page written as an image memory is (graphmem.images.pdfpage): its one
scanned picture, or else the whole page rendered by PDFium (text drawn as vectors, a scan cut
into strips, an inline image), under the same limits (graphmem.images.settings). Every image
a page draws is checked before it is decoded, so a decompression bomb in a PDF is skipped
like one in a PNG, and a page that cannot be read is reported, never a crash. Without
pypdfium2 the page's largest picture is read, and the report says so once.
"""

from __future__ import annotations

import logging
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

from graphmem.errors import ImageError
from graphmem.images import render
from graphmem.images.ocr import available, read_text
from graphmem.images.pdfpage import content_ops, page_image
from graphmem.images.settings import ImageSettings

log = logging.getLogger("graphmem.documents")


@dataclass(frozen=True)
class PageOcr:
    """How scanned pages are read: the images settings' OCR command and limits."""

    enabled: bool = True
    command: str = "tesseract"
    languages: str = "chi_sim+eng"
    timeout: float = 60.0
    max_side: int = 2400
    max_bytes: int = 20 * 1024 * 1024
    max_pixels: int = 40_000_000
    dpi: int = 200

    @classmethod
    def of(cls, images: ImageSettings) -> PageOcr:
        return cls(
            enabled=images.ocr,
            command=images.tesseract,
            languages=images.ocr_languages,
            timeout=images.ocr_timeout_seconds,
            max_side=images.ocr_max_side,
            max_bytes=images.max_bytes,
            max_pixels=images.max_pixels,
            dpi=images.pdf_dpi,
        )


@dataclass
class PagesRead:
    """Each page's text, how many came from OCR, and one line per page OCR could not read."""

    texts: list[str]
    ocr_pages: int = 0
    notes: list[str] = field(default_factory=list)


def read_pages(
    pages: list[Any], texts: list[str], ocr: PageOcr | None, data: bytes | None = None
) -> PagesRead:
    """`texts` (each page's text layer) with the empty ones filled by OCR of `pages` (pypdf
    pages of the PDF `data`, which PDFium renders). Tesseract missing or OCR off: the pages
    stay empty and one note says why."""
    out = PagesRead(list(texts))
    empty = [i for i, t in enumerate(texts) if not t.strip()]
    if not empty or ocr is None:
        return out
    pages_ = f"{len(empty)} page{'s' if len(empty) != 1 else ''}"
    if not ocr.enabled:
        out.notes.append(f"{pages_} without a text layer not read: OCR is off")
        return out
    if not available(ocr.command):
        out.notes.append(
            f"{pages_} without a text layer not read: {ocr.command!r} not found"
            " (install tesseract-ocr)"
        )
        return out
    with ExitStack() as stack:
        renderer = None
        if data is not None and render.available():
            try:
                renderer = stack.enter_context(render.opened(data))
            except ImageError as e:
                out.notes.append(f"pages not rendered: the file {e.message}")
        for i in empty:
            _read_one(pages[i], renderer, i, ocr, out)
    return out


def _read_one(
    page: Any, renderer: render.Renderer | None, i: int, ocr: PageOcr, out: PagesRead
) -> None:
    """OCR of page `i` (0-based) into `out`: its text, or a note why there is none."""
    try:
        got = page_image(
            page,
            renderer,
            i,
            content_ops(page, i + 1),
            max_pixels=ocr.max_pixels,
            max_bytes=ocr.max_bytes,
            dpi=ocr.dpi,
        )
        if got is None:  # a blank page is not worth a note
            return
        result = read_text(
            got.picture.convert("RGB"),
            command=ocr.command,
            languages=ocr.languages,
            timeout=ocr.timeout,
            max_side=ocr.max_side,
        )
    except ImageError as e:  # over a limit, by its dictionary or its own header
        out.notes.append(f"page {i + 1} skipped: {e.message.removeprefix(f'page {i + 1} ')}")
        return
    except Exception as exc:  # a broken image stream can fail anywhere in pypdf or Pillow
        log.warning("page %d: image not decoded: %s", i + 1, exc)
        out.notes.append(f"page {i + 1} skipped: its image could not be decoded")
        return
    if got.note and got.note not in out.notes:
        out.notes.append(got.note)
    if result.status == "read":
        out.texts[i] = result.text
        out.ocr_pages += 1
    elif result.status != "empty":
        out.notes.append(f"page {i + 1} not read: OCR {result.status}")


__all__ = ["PageOcr", "PagesRead", "read_pages"]
