"""PDF pages as image memories: which pages a write stores, each as a checked picture with its
text layer (graphmem.images.pdfpage decides what a page's picture is: the scanner's own, or
the page rendered by graphmem.images.render).

A PDF written as an image is one image memory a page: the page given (`page`, 1-based), or
every page, at most `images.pdf_pages_per_write` of them. Pages are read one at a time as the
caller asks for them (`read_pages` is lazy), so a write of twenty rendered pages holds one
page's pixels at a time, not twenty.

A PDF is untrusted input like any image, and it hides bombs in more places: a page tree that
declares few pages and holds a hundred thousand, an image whose JPEG header declares a billion
pixels, a content stream of megabytes. Each is bounded before the expensive step, and every
refusal is one `ImageError` line (a page it does not have: InvalidInputError on `page`).
"""

from __future__ import annotations

import hashlib
import io
import logging
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from graphmem.errors import ImageError, InvalidInputError
from graphmem.images import render
from graphmem.images.decode import DecodedImage, decode
from graphmem.images.pdfpage import (
    MAX_CONTENT_BYTES,
    NO_IMAGE,
    PagePicture,
    _int,
    _key,
    content_ops,
    largest_image,
    page_image,
    page_picture,
    text_layer,
)

if TYPE_CHECKING:
    from graphmem.images.settings import ImageSettings

log = logging.getLogger("graphmem.images")

_STORED_AS_IS = (".jpg", ".png")
"""Pictures pypdf extracts as a JPEG (the scanner's own bytes) or a PNG are stored as they
come; any other (TIFF from a fax scan, JPEG 2000) is stored as a PNG."""

_INGEST = "ingest the whole PDF as a document (graphmem ingest, document_ingest)"


def is_pdf(data: bytes) -> bool:
    """Whether `data` is a PDF file (its header, after any leading white space)."""
    return data[:1024].lstrip(b"\x00\t\n\r\f ").startswith(b"%PDF-")


@dataclass(frozen=True)
class PdfLimits:
    """The images settings a PDF is read under (graphmem.images.settings)."""

    max_bytes: int
    max_pixels: int
    max_pages: int
    dpi: int = 200
    per_write: int = 20

    @classmethod
    def of(cls, s: ImageSettings) -> PdfLimits:
        return cls(s.max_bytes, s.max_pixels, s.pdf_max_pages, s.pdf_dpi, s.pdf_pages_per_write)


@dataclass(frozen=True)
class PdfPage:
    """One page of a PDF, as an image memory stores it: its picture (decoded and checked like
    any image), which page it is, the text of its text layer ('' when it has none) and how
    the picture was had (`picture`: scan, page or largest, graphmem.images.pdfpage)."""

    image: DecodedImage
    page: int  # 1-based
    pages: int
    text: str
    pdf_sha256: str
    picture: str = "scan"
    dpi: int | None = None
    note: str = ""

    def describe(self) -> dict[str, object]:
        """What a memory's metadata says about the PDF the image came from."""
        return {
            "image_pdf_page": self.page,
            "image_pdf_pages": self.pages,
            "image_pdf_sha256": self.pdf_sha256,
            "image_pdf_picture": self.picture,
            **({"image_pdf_dpi": self.dpi} if self.dpi is not None else {}),
            **({"image_pdf_note": self.note} if self.note else {}),
            "image_text_source": "text_layer" if self.text else "ocr",
        }


def read_pages(data: bytes, page: int | None, limits: PdfLimits) -> Iterator[PdfPage]:
    """The pages of the PDF `data` an image write stores, one at a time: page `page`
    (1-based), or with None every page (at most `limits.per_write`; a blank page of several
    is skipped). Raises ImageError (field `image`) for a PDF or page refused,
    InvalidInputError (field `page`) for a page it does not have."""
    with ExitStack() as stack:
        reader, pages, sha = _open(data, limits)
        numbers = _numbers(page, pages, limits.per_write)
        renderer = None
        if render.available():
            renderer = _guard(lambda: stack.enter_context(render.opened(data)))
        else:
            log.warning("PDF page stored as its largest picture: %s", render.NOT_INSTALLED)
        found = 0
        for number in numbers:
            got = _read(reader, renderer, number, limits, alone=len(numbers) == 1)
            if got is not None:
                found += 1
                text, picture = got
                yield _page(picture, number, pages, text, sha, limits)
        if not found:
            raise ImageError("has no page with anything on it to store")


def pictures(
    data: bytes, page: int | None, s: ImageSettings
) -> Iterator[tuple[DecodedImage, PdfPage | None]]:
    """The checked pictures an image write of `data` stores, one at a time: the image itself,
    or for a PDF each page read_pages gives (with `page`, that one)."""
    if is_pdf(data):
        for got in read_pages(data, page, PdfLimits.of(s)):
            yield got.image, got
        return
    if page is not None:
        raise InvalidInputError("page", "is only for a PDF")
    yield decode(data, max_bytes=s.max_bytes, max_pixels=s.max_pixels), None


def read_page(
    data: bytes, page: int | None, *, max_bytes: int, max_pixels: int, max_pages: int
) -> PdfPage:
    """Page `page` (1-based; None: the only page) of the PDF `data` as a checked picture and
    its text layer (read_pages for one page). A PDF of several pages needs `page`."""
    limits = PdfLimits(max_bytes, max_pixels, max_pages, per_write=1)
    return next(read_pages(data, page, limits))


def _open(data: bytes, limits: PdfLimits) -> tuple[Any, int, str]:
    """pypdf's reader of `data`, its page count (bounded by limits.max_pages) and its sha256."""
    import pypdf  # only a PDF pays for the import

    if len(data) > limits.max_bytes:
        raise ImageError(f"is {len(data):,} bytes; at most {limits.max_bytes:,} are accepted")

    def opening() -> tuple[Any, int]:
        reader = pypdf.PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise ImageError("is an encrypted PDF; decrypt it first")
        return reader, _count_pages(reader, limits.max_pages)

    reader, pages = _guard(opening)
    return reader, pages, hashlib.sha256(data).hexdigest()


def _guard(step: Any) -> Any:
    """`step()`, with anything but our own errors as one line: a malformed file can break
    pypdf or PDFium anywhere."""
    try:
        return step()
    except InvalidInputError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise ImageError(f"is not a readable PDF ({str(exc)[:120]})") from None


def _read(
    reader: Any, renderer: Any, number: int, limits: PdfLimits, *, alone: bool
) -> tuple[str, PagePicture] | None:
    """Page `number`'s text layer and picture; None for a blank page of several."""

    def reading() -> tuple[str, PagePicture | None]:
        chosen = reader.pages[number - 1]
        ops = content_ops(chosen, number)
        text = text_layer(chosen)
        try:
            picture = page_image(
                chosen,
                renderer,
                number - 1,
                ops,
                max_pixels=limits.max_pixels,
                max_bytes=limits.max_bytes,
                dpi=limits.dpi,
            )
        except ImageError as e:
            raise ImageError(f"page {number} is refused: {e.message}") from None
        if picture is None and renderer is None and text:
            raise ImageError(
                f"page {number} is text, not a scanned picture, and pypdfium2 is not installed"
                f" to render it: {_INGEST}"
            )
        return text, picture

    text, picture = _guard(reading)
    if picture is None:
        if alone:
            raise ImageError(f"page {number} has no picture to store")
        return None
    return text, picture


def _page(
    got: PagePicture, number: int, pages: int, text: str, sha: str, limits: PdfLimits
) -> PdfPage:
    """A page's picture as a checked image: the scanner's bytes as they are (a JPEG, or a
    PNG), else encoded (a rendered page: graphmem.images.render.encode)."""
    if got.kind == "page":
        raw, fmt = render.encode(got.picture, limits.max_bytes)
        image = DecodedImage(
            data=raw,
            sha256=hashlib.sha256(raw).hexdigest(),
            format=fmt,
            width=got.picture.width,
            height=got.picture.height,
            taken_at=None,
            frames=1,
            picture=got.picture,
        )
    else:
        raw = got.raw or b""
        if got.ext not in _STORED_AS_IS:
            buf = io.BytesIO()
            got.picture.save(buf, format="PNG")
            raw = buf.getvalue()
        try:
            image = decode(raw, max_bytes=limits.max_bytes, max_pixels=limits.max_pixels)
        except ImageError as e:
            raise ImageError(f"page {number}'s picture {e.message}") from None
    return PdfPage(image, number, pages, text, sha, got.kind, got.dpi, got.note)


def _numbers(page: int | None, pages: int, per_write: int) -> list[int]:
    """The 1-based pages to store: `page` when the PDF has it, else every page."""
    if pages == 0:
        raise ImageError("is a PDF with no pages")
    if page is None:
        if pages > per_write:
            if per_write == 1:
                raise InvalidInputError(
                    "page",
                    f"the PDF has {pages} pages: give page (1 to {pages}) to store one of them"
                    f" as an image, or {_INGEST}",
                )
            raise ImageError(
                f"is a PDF of {pages:,} pages; at most {per_write:,} are written as images in"
                f" one write (images.pdf_pages_per_write): give page (1 to {pages}) to store"
                f" one of them, or {_INGEST}"
            )
        return list(range(1, pages + 1))
    if isinstance(page, bool) or not isinstance(page, int) or not 1 <= page <= pages:
        raise InvalidInputError("page", f"must be a page of the PDF, 1 to {pages}")
    return [page]


def _count_pages(reader: Any, limit: int) -> int:
    """The pages of the PDF's page tree, walked without building pypdf's page list and
    stopped past `limit` pages (or 4 x `limit` nodes): a tree that declares one page in its
    /Count and holds a hundred thousand, or loops, is refused before pypdf walks it all."""
    root = reader.trailer["/Root"]["/Pages"].get_object()
    declared = _int(root, "/Count")
    if declared > limit:
        raise ImageError(_too_many(f"{declared:,}", limit))
    leaves, nodes, seen, stack = 0, 0, set[object](), [root]
    while stack:
        node = stack.pop()
        key = _key(node)
        if key in seen:
            continue
        seen.add(key)
        nodes += 1
        kids = node.get("/Kids")
        if kids is None:
            leaves += 1
        else:
            stack.extend(kid.get_object() for kid in kids.get_object())
        if leaves > limit or nodes > 4 * limit:
            raise ImageError(_too_many(f"more than {limit:,}", limit))
    if len(reader.pages) > limit:  # pypdf's own reading of the tree, should it differ
        raise ImageError(_too_many(f"{len(reader.pages):,}", limit))
    return len(reader.pages)


def _too_many(pages: str, limit: int) -> str:
    return (
        f"is a PDF of {pages} pages; at most {limit:,} are opened to store a page as an image"
        f" (images.pdf_max_pages); {_INGEST.replace('the whole', 'a long')}"
    )


__all__ = [
    "MAX_CONTENT_BYTES",
    "NO_IMAGE",
    "PdfLimits",
    "PdfPage",
    "is_pdf",
    "largest_image",
    "page_picture",
    "pictures",
    "read_page",
    "read_pages",
]
