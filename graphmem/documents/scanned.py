"""Scanned PDF pages: a page without a text layer is read by OCR instead of left empty.

A scanner or a phone app writes each page as one picture and no text, so pypdf finds nothing
and the document would be stored without the words a user will search for. Such a page's
largest embedded image is handed to the same Tesseract wrapper image memories use
(graphmem.images.ocr), under the same limits (graphmem.images.settings): the image's declared
size is checked before it is decoded, so a decompression bomb in a PDF is skipped like one in
a PNG, and a page that cannot be read is reported, never a crash.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from graphmem.images.ocr import available, read_text
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


def _int(obj: Any, key: str) -> int:
    """An integer entry of a PDF dictionary; indexing resolves an indirect one (a /Length
    written as `12 0 R`, as Pillow writes it)."""
    try:
        return int(obj[key]) if key in obj else 0
    except (TypeError, ValueError):
        return 0


def _largest(page: Any, ocr: PageOcr) -> tuple[str | None, str | None]:
    """The name of the page's largest image within the limits, or why there is none. Sizes
    come from the image dictionaries (/Width, /Height) and the encoded stream, before anything
    is decoded."""
    try:
        xobjects = page["/Resources"]["/XObject"].get_object()
    except (KeyError, TypeError, AttributeError):
        return None, "no image on it"
    best: tuple[int, str] | None = None
    too_big = ""
    for name in xobjects:
        obj = xobjects[name].get_object()
        if obj.get("/Subtype") != "/Image":
            continue
        w, h = _int(obj, "/Width"), _int(obj, "/Height")
        # the stream's bytes as stored, still encoded: pypdf keeps them and drops /Length
        raw = getattr(obj, "_data", None)
        size = len(raw) if isinstance(raw, bytes) else _int(obj, "/Length")
        if w * h > ocr.max_pixels:
            too_big = f"its image is {w}x{h} pixels, over the limit of {ocr.max_pixels:,}"
        elif size > ocr.max_bytes:
            too_big = f"its image is {size:,} bytes, over the limit of {ocr.max_bytes:,}"
        elif best is None or w * h > best[0]:
            best = (w * h, str(name))
    if best is None:
        return None, too_big or "no image on it"
    return best[1], None


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
        name, why = _largest(pages[i], ocr)
        if name is None:
            if why != "no image on it":  # a blank page is not worth a note
                out.notes.append(f"page {i + 1} skipped: {why}")
            continue
        try:
            picture = pages[i].images[name].image
            if picture is None:
                raise ValueError("pypdf could not decode it")
            result = read_text(
                picture.convert("RGB"),
                command=ocr.command,
                languages=ocr.languages,
                timeout=ocr.timeout,
                max_side=ocr.max_side,
            )
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
