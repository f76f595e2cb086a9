"""One PDF page as a picture: the scanner's own picture when the page is that and nothing
else, else the whole page rendered (graphmem.images.render), checked in the PDF's own
dictionaries before anything is decoded or drawn.

A scanner or a phone app writes each page as one picture (an image XObject), with or without
an invisible text layer: that picture is the page, kept as the scanner wrote it (its JPEG, at
its own resolution). Any other page, one drawn as vectors, a scan cut into strips of several
pictures, an inline image (BI ... EI), a picture with a stamp or visible text over it, or a
rotated page, is rendered whole by PDFium, so OCR reads all of it. Without pypdfium2 the
page's largest picture stands in, as it did before pages were rendered, and says so.

Two callers use `page_image`: an image memory written from a PDF (graphmem.images.pdf) and
document ingest, which reads a page without a text layer by OCR (graphmem.documents.scanned).

A PDF is untrusted input like any image, and it hides bombs in more places: an image whose
dictionary declares a few pixels and whose JPEG header declares a billion, a content stream
of megabytes of operators that text extraction and rendering would spend minutes on. Each is
bounded here before the expensive step; every refusal is one `ImageError` line.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from PIL import Image

from graphmem.errors import ImageError
from graphmem.images.ocr import tidy
from graphmem.images.render import NOT_INSTALLED, Renderer, blank

MAX_CONTENT_BYTES = 1024 * 1024
"""The most decoded content (the page's drawing instructions and the forms it draws) read or
rendered. pypdf's text extraction costs about 2.5 s a MiB here; a scanned page's text layer is
tens of kB."""

MAX_OBJECTS = 1000
"""The most image and form objects walked on one page when checking its images."""

NO_IMAGE = "no image on it"

# What a page of one scanned picture draws besides it: the graphics state, text (shown only
# when invisible, render mode 3: a text layer), colours, marked content. Anything else (a
# path, a shading, an inline image, a second picture) is drawn, so the page is rendered.
_QUIET = frozenset(
    b"q Q cm gs w J j M d ri i BT ET Tf Td TD Tm T* Tc Tw Tz TL Ts Tr g G rg RG k K cs CS sc SC"
    b" scn SCN BMC BDC EMC MP DP BX EX".split()
)
_SHOW = frozenset((b"Tj", b"TJ", b"'", b'"'))


def _int(obj: Any, key: str) -> int:
    """An integer entry of a PDF dictionary; indexing resolves an indirect one (a /Length
    written as `12 0 R`, as Pillow writes it)."""
    try:
        return int(obj[key]) if key in obj else 0
    except (TypeError, ValueError):
        return 0


def _key(obj: Any) -> object:
    """What identifies a PDF object in a walk: its object number, else the Python object."""
    ref = getattr(obj, "indirect_reference", None)
    return (ref.idnum, ref.generation) if ref is not None else id(obj)


def _xobjects(holder: Any) -> Any:
    try:
        return holder["/Resources"]["/XObject"].get_object()
    except (KeyError, TypeError, AttributeError):
        return {}


def largest_image(page: Any, max_pixels: int, max_bytes: int) -> tuple[str | None, str | None]:
    """The name of a pypdf page's largest image within the limits, or why there is none
    (NO_IMAGE, or the limit its images break). Sizes come from the image dictionaries (/Width,
    /Height) and the encoded stream, before anything is decoded."""
    best: tuple[int, str] | None = None
    too_big = ""
    xobjects = _xobjects(page)
    for name in xobjects:
        obj = xobjects[name].get_object()
        if obj.get("/Subtype") != "/Image":
            continue
        why = _too_big(obj, max_pixels, max_bytes)
        w, h = _int(obj, "/Width"), _int(obj, "/Height")
        if why:
            too_big = why
        elif best is None or w * h > best[0]:
            best = (w * h, str(name))
    if best is None:
        return None, too_big or NO_IMAGE
    return best[1], None


def _too_big(obj: Any, max_pixels: int, max_bytes: int) -> str:
    """Why an image XObject is over the limits by its dictionary ('' when it is not)."""
    w, h = _int(obj, "/Width"), _int(obj, "/Height")
    # the stream's bytes as stored, still encoded: pypdf keeps them and drops /Length
    raw = getattr(obj, "_data", None)
    size = len(raw) if isinstance(raw, bytes) else _int(obj, "/Length")
    if w * h > max_pixels:
        return f"its image is {w}x{h} pixels, over the limit of {max_pixels:,}"
    if size > max_bytes:
        return f"its image is {size:,} bytes, over the limit of {max_bytes:,}"
    return ""


def page_picture(page: Any, name: str, max_pixels: int) -> tuple[Image.Image, bytes, str]:
    """The picture `name` of a pypdf page: decoded, with its bytes as a file and their
    extension (.jpg, .png, ...). A JPEG or JPEG 2000 stream's own header is checked against
    `max_pixels` before it is decoded, since it may declare far more pixels than the
    dictionary did. Raises ImageError for that, anything else pypdf or Pillow raises for a
    broken stream."""
    stream = page["/Resources"]["/XObject"][name].get_object()
    _check_header(stream.get_data(), max_pixels)
    found = page.images[name]
    if found.image is None:
        raise ValueError("pypdf could not decode it")
    return found.image, found.data, "." + found.name.rsplit(".", 1)[-1].lower()


def _check_header(data: bytes, max_pixels: int) -> None:
    """Refuse an image stream whose own header (a JPEG's, a JPEG 2000's) declares more than
    `max_pixels`; raw samples have no header and were sized by the dictionary."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as probe:
                w, h = probe.size
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise ImageError("its image's header declares a decompression bomb") from None
    except Exception:  # noqa: BLE001 - not a format with a header: the dictionary's size holds
        return
    if w * h > max_pixels:
        raise ImageError(
            f"its image's header declares {w}x{h} pixels, over the limit of {max_pixels:,}"
        )


def _images(page: Any) -> Iterator[Any]:
    """Every image XObject the page may draw, in its resources and, recursively, in the
    forms it draws (at most MAX_OBJECTS objects are walked: more is refused)."""
    seen: set[object] = set()
    todo = [page]
    while todo:
        xobjects = _xobjects(todo.pop())
        for name in xobjects:
            obj = xobjects[name].get_object()
            if _key(obj) in seen:
                continue
            seen.add(_key(obj))
            if len(seen) > MAX_OBJECTS:
                raise ImageError(f"draws more than {MAX_OBJECTS:,} images and forms")
            if obj.get("/Subtype") == "/Image":
                yield obj
            elif obj.get("/Subtype") == "/Form":
                todo.append(obj)


def check_images(page: Any, ops: list[tuple[Any, bytes]], max_pixels: int, max_bytes: int) -> None:
    """Refuse a page any of whose images (XObjects, in forms too, and inline images of its
    content) is over the limits by its dictionary or, for a JPEG or JPEG 2000, its own header:
    rendering decodes each one whole. Raises ImageError."""
    for obj in _images(page):
        if why := _too_big(obj, max_pixels, max_bytes):
            raise ImageError(why)
        filters = obj.get("/Filter")
        names = [str(f) for f in filters] if isinstance(filters, list) else [str(filters)]
        if "/DCTDecode" in names or "/JPXDecode" in names:
            _check_header(obj.get_data(), max_pixels)
    for operands, op in ops:
        if op == b"INLINE IMAGE":
            settings = operands.get("settings", {}) if isinstance(operands, dict) else {}
            w = _int(settings, "/W") or _int(settings, "/Width")
            h = _int(settings, "/H") or _int(settings, "/Height")
            if w * h > max_pixels:
                raise ImageError(
                    f"its inline image is {w}x{h} pixels, over the limit of {max_pixels:,}"
                )


def only_picture(page: Any, ops: list[tuple[Any, bytes]]) -> str | None:
    """The name of the one image XObject the page draws when it draws nothing else visible
    (a scanned page, its text layer invisible), else None: the page is to be rendered."""
    if _int(page, "/Rotate") % 360 or page.get("/Annots"):
        return None
    xobjects = _xobjects(page)
    drawn: str | None = None
    modes = [0]  # the text render mode, saved and restored with the graphics state
    for operands, op in ops:
        if op == b"Do":
            obj = xobjects.get(operands[0]) if operands else None
            obj = obj.get_object() if obj is not None else None
            if drawn is not None or obj is None or obj.get("/Subtype") != "/Image":
                return None
            if obj.get("/ImageMask") or obj.get("/SMask") is not None:
                return None  # drawn through a mask: the page shows more than the picture
            drawn = str(operands[0])
        elif op == b"Tr":
            modes[-1] = int(operands[0]) if operands else 0
        elif op == b"q":
            modes.append(modes[-1])
        elif op == b"Q":
            if len(modes) > 1:
                modes.pop()
        elif op in _SHOW:
            if modes[-1] != 3:
                return None
        elif op not in _QUIET:
            return None
    return drawn


def content_ops(page: Any, number: int) -> list[tuple[Any, bytes]]:
    """The page's drawing operations, its content (and the forms it draws) measured first
    against MAX_CONTENT_BYTES. Raises ImageError for a page over it."""
    size = _content_bytes(page)
    if size > MAX_CONTENT_BYTES:
        raise ImageError(
            f"page {number} draws {size:,} bytes of content, over the limit of"
            f" {MAX_CONTENT_BYTES:,} (a scanned page needs far less); refused unread"
        )
    contents = page.get_contents()
    return list(contents.operations) if contents is not None else []


def text_layer(page: Any) -> str:
    """The page's text layer, tidied as OCR output is; '' when it has none. Call it after
    content_ops, which bounds what it reads."""
    return tidy(page.extract_text() or "")


def _content_bytes(page: Any) -> int:
    """The decoded size of what text extraction reads on `page`: its content streams and,
    recursively, the form XObjects they may draw (image streams are not read for text)."""
    total, seen = 0, set[object]()
    todo: list[Any] = [page]
    while todo:
        holder = todo.pop()
        contents = holder.get("/Contents") if holder is page else holder
        if contents is not None:
            contents = contents.get_object()
            for stream in contents if isinstance(contents, list) else [contents]:
                total += len(stream.get_object().get_data())
                if total > MAX_CONTENT_BYTES:
                    return total
        xobjects = _xobjects(holder)
        for name in xobjects:
            form = xobjects[name].get_object()
            if form.get("/Subtype") == "/Form" and _key(form) not in seen:
                seen.add(_key(form))
                todo.append(form)
    return total


@dataclass(frozen=True)
class PagePicture:
    """What a page shows, as a picture: `kind` says how it was had. `scan`: the page is one
    picture, `raw` its bytes as stored in the PDF (a JPEG, or a PNG pypdf made), `ext` their
    extension; `page`: the whole page rendered at `dpi`; `largest`: pypdfium2 is missing, so
    the page's largest picture stands in for it (`note` says so)."""

    picture: Image.Image
    kind: str
    raw: bytes | None = None
    ext: str = ""
    dpi: int | None = None
    note: str = ""


def page_image(
    page: Any,
    renderer: Renderer | None,
    index: int,
    ops: list[tuple[Any, bytes]],
    *,
    max_pixels: int,
    max_bytes: int,
    dpi: int,
) -> PagePicture | None:
    """Page `index` (0-based; `page` pypdf's, `ops` its content_ops) as a picture: its one
    scanned picture, or rendered whole by `renderer`, or without one its largest picture.
    None: it shows nothing (blank, or no picture to fall back on). Raises ImageError for a
    page over the limits."""
    check_images(page, ops, max_pixels, max_bytes)
    name = only_picture(page, ops)
    if name is None and renderer is not None:
        picture, used = renderer.render(index, dpi=dpi, max_pixels=max_pixels)
        return None if blank(picture) else PagePicture(picture, "page", dpi=used)
    kind, note = "scan", ""
    if name is None:
        name, why = largest_image(page, max_pixels, max_bytes)
        if name is None:
            if why != NO_IMAGE:
                raise ImageError(why or NO_IMAGE)
            return None
        kind, note = "largest", NOT_INSTALLED
    picture, raw, ext = page_picture(page, name, max_pixels)
    return PagePicture(picture, kind, raw=raw, ext=ext, note=note)


__all__ = [
    "MAX_CONTENT_BYTES",
    "NO_IMAGE",
    "PagePicture",
    "check_images",
    "content_ops",
    "largest_image",
    "only_picture",
    "page_image",
    "page_picture",
    "text_layer",
]
