"""Scanned PDF pages: a page without a text layer is read by OCR instead of left empty.

A scanner or a phone app writes each page as one picture and no text, so pypdf finds nothing
and the document would be stored without the words a user will search for. Such a page's
largest embedded image (found and checked by graphmem.images.pdf, which a PDF page written
as an image memory uses too) is handed to the same Tesseract wrapper image memories use
(graphmem.images.ocr), under the same limits (graphmem.images.settings): the image's declared
size is checked before it is decoded, so a decompression bomb in a PDF is skipped like one in
a PNG, and a page that cannot be read is reported, never a crash.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from graphmem.errors import ImageError
from graphmem.images.ocr import available, read_text
from graphmem.images.pdf import NO_IMAGE, largest_image, page_picture
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
        )


@dataclass
class PagesRead:
    """Each page's text, how many came from OCR, and one line per page OCR could not read."""

    texts: list[str]
    ocr_pages: int = 0
    notes: list[str] = field(default_factory=list)


def read_pages(pages: list[Any], texts: list[str], ocr: PageOcr | None) -> PagesRead:
    """`texts` (each page's text layer) with the empty ones filled by OCR of `pages` (pypdf
    pages). Tesseract missing or OCR off: the pages stay empty and one note says why."""
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
    for i in empty:
        name, why = largest_image(pages[i], ocr.max_pixels, ocr.max_bytes)
        if name is None:
            if why != NO_IMAGE:  # a blank page is not worth a note
                out.notes.append(f"page {i + 1} skipped: {why}")
            continue
        try:
            picture = page_picture(pages[i], name, ocr.max_pixels)[0]
            result = read_text(
                picture.convert("RGB"),
                command=ocr.command,
                languages=ocr.languages,
                timeout=ocr.timeout,
                max_side=ocr.max_side,
            )
        except ImageError as e:  # its own header declares too many pixels
            out.notes.append(f"page {i + 1} skipped: {e.message}")
            continue
        except Exception as exc:  # a broken image stream can fail anywhere in pypdf or Pillow
            log.warning("page %d: image not decoded: %s", i + 1, exc)
            out.notes.append(f"page {i + 1} skipped: its image could not be decoded")
            continue
        if result.status == "read":
            out.texts[i] = result.text
            out.ocr_pages += 1
        elif result.status != "empty":
            out.notes.append(f"page {i + 1} not read: OCR {result.status}")
    return out


__all__ = ["PageOcr", "PagesRead", "read_pages"]
