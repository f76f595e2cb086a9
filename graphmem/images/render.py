"""PDF pages rendered to pixels by PDFium (pypdfium2), for OCR and for storing a page as an
image: what a page draws besides one picture (vector lines and text drawn as paths, a scan
cut into strips, an inline image, a stamp added later) is in the pixels.

pypdfium2's wheel carries the PDFium binary, so nothing is fetched at run time. PDFium is not
safe to call from two threads at once, so every call into it here holds one process-wide
lock; a page renders in tens of milliseconds at 200 dpi (docs/images.md).

The bitmap PDFium allocates is width x height x 3 bytes, so its size is decided before it is
asked for: the page at `dpi`, scaled down to fit the images settings' `max_pixels` (and
MAX_SIDE a side); a page that would need less than MIN_DPI to fit (a poster of 200 x 200
inches) is refused with one `ImageError` line instead. The images a page draws are checked
against the same limits before it is rendered (graphmem.images.pdf), since PDFium decodes
each one whole.
"""

from __future__ import annotations

import io
import math
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from PIL import Image, ImageChops

from graphmem.errors import ImageError

MIN_DPI = 72
"""A page is refused when fitting it into max_pixels leaves fewer dots an inch than this: at
72 dpi a 10-point line of text is 10 pixels high, the least OCR reads."""

MAX_SIDE = 30_000
"""The most pixels on one side of a rendered page, whatever max_pixels allows."""

NOT_INSTALLED = (
    "pypdfium2 is not installed: the page's largest picture is stored instead of the page"
    " rendered (pip install pypdfium2)"
)
"""The note a PDF page carries when it could not be rendered (metadata `image_pdf_note`)."""

_LOCK = threading.RLock()  # re-entrant: a generator closed by the GC may close its PDF


def available() -> bool:
    """Whether PDFium can be loaded (pypdfium2 installed and its binary loadable)."""
    try:
        import pypdfium2  # noqa: F401
    except Exception:  # noqa: BLE001 - a broken binary is as good as none
        return False
    return True


@contextmanager
def opened(data: bytes) -> Iterator[Renderer]:
    """The PDF `data` opened by PDFium for rendering, closed on leaving. Raises ImageError
    when PDFium cannot read it (after pypdf could)."""
    import pypdfium2 as pdfium

    with _LOCK:
        try:
            doc = pdfium.PdfDocument(data)
        except pdfium.PdfiumError as e:
            raise ImageError(f"is not a readable PDF (PDFium: {str(e)[:120]})") from None
    try:
        yield Renderer(doc)
    finally:
        with _LOCK:
            doc.close()


def scale_for(width_pt: float, height_pt: float, dpi: int, max_pixels: int) -> float:
    """The render scale (pixels per PDF unit) of a page `width_pt` x `height_pt` units: `dpi`,
    or less to fit `max_pixels` and MAX_SIDE. Raises ImageError for a page that would need
    less than MIN_DPI, or declares no size."""
    if not (math.isfinite(width_pt) and math.isfinite(height_pt)) or min(width_pt, height_pt) <= 0:
        raise ImageError(f"it declares a size of {width_pt} x {height_pt} points")
    scale = min(
        dpi / 72,
        math.sqrt(max_pixels / (width_pt * height_pt)),
        MAX_SIDE / max(width_pt, height_pt),
    )
    while (
        scale * 72 >= MIN_DPI
        and math.ceil(width_pt * scale) * math.ceil(height_pt * scale) > max_pixels
    ):
        scale *= 0.999  # rounding up a side may step over the limit
    if scale * 72 < MIN_DPI:
        need = math.ceil(width_pt * MIN_DPI / 72) * math.ceil(height_pt * MIN_DPI / 72)
        raise ImageError(
            f"it is {width_pt / 72:.1f} x {height_pt / 72:.1f} inches: even at {MIN_DPI} dpi"
            f" that is {need:,} pixels, over the limit of {max_pixels:,}"
        )
    return scale


class Renderer:
    """One PDF opened by PDFium: its pages rendered one at a time."""

    def __init__(self, doc: Any) -> None:
        self._doc = doc

    def render(self, index: int, *, dpi: int, max_pixels: int) -> tuple[Image.Image, int]:
        """Page `index` (0-based) as an RGB picture on white, and the dpi it was rendered at
        (`dpi`, or less to fit `max_pixels`). Raises ImageError for a page too large to
        render within the limit, or one PDFium fails on."""
        import pypdfium2 as pdfium

        with _LOCK:
            page = self._doc[index]
            try:
                width, height = page.get_size()
                scale = scale_for(width, height, dpi, max_pixels)
                bitmap = page.render(scale=scale)
                try:
                    picture = bitmap.to_pil().convert("RGB")
                finally:
                    bitmap.close()
            except pdfium.PdfiumError as e:
                raise ImageError(f"it could not be rendered ({str(e)[:120]})") from None
            finally:
                page.close()
        return picture, round(scale * 72)


def blank(picture: Image.Image) -> bool:
    """Whether a rendered page is one colour all over (nothing drawn on it)."""
    extrema: Any = picture.getextrema()
    return all(lo == hi for lo, hi in extrema)


def encode(picture: Image.Image, max_bytes: int) -> tuple[bytes, str]:
    """A rendered page as a file to store: a PNG (greyscale when the page has no colour, a
    third of the bytes), or a JPEG (quality 90) when the PNG is over `max_bytes`. Raises
    ImageError when neither fits."""
    r, g, b = picture.split()
    grey = ImageChops.difference(r, g).getbbox() is None
    grey = grey and ImageChops.difference(g, b).getbbox() is None
    buf = io.BytesIO()
    (r if grey else picture).save(buf, format="PNG", compress_level=6)
    if buf.tell() <= max_bytes:
        return buf.getvalue(), "png"
    buf = io.BytesIO()
    (r if grey else picture).save(buf, format="JPEG", quality=90)
    if buf.tell() <= max_bytes:
        return buf.getvalue(), "jpeg"
    raise ImageError(
        f"is {buf.tell():,} bytes as a JPEG rendered at its resolution; at most {max_bytes:,}"
        " are accepted"
    )


__all__ = [
    "MAX_SIDE",
    "MIN_DPI",
    "NOT_INSTALLED",
    "Renderer",
    "available",
    "blank",
    "encode",
    "opened",
    "scale_for",
]
