"""PDF pages as pictures: a scanned page's picture, found and checked in the PDF's own
dictionaries before anything is decoded.

A scanner or a phone app writes each page of a PDF as one picture (an image XObject), with or
without an invisible text layer. Two callers want that picture: an image memory written from a
PDF page (`read_page`, graphmem.usecases.images) and document ingest, which reads a page
without a text layer by OCR (graphmem.documents.scanned). Both use `largest_image` and
`page_picture` here, under the images settings' limits.

A PDF is untrusted input like any image, and it has more places to hide a bomb: a page tree
that declares few pages and holds a hundred thousand, an image whose dictionary declares a few
pixels and whose JPEG header declares a billion, a content stream of megabytes of text
operators that pypdf's text extraction would spend minutes on. Each is bounded here before the
expensive step, and every refusal is one `ImageError` line.
"""

from __future__ import annotations

import hashlib
import io
import warnings
from dataclasses import dataclass
from typing import Any

from PIL import Image

from graphmem.errors import ImageError, InvalidInputError
from graphmem.images.decode import DecodedImage, decode
from graphmem.images.ocr import tidy

MAX_CONTENT_BYTES = 1024 * 1024
"""The most decoded content (the page's drawing instructions and the forms it draws) whose
text layer is read. pypdf's text extraction costs about 2.5 s a MiB here; a scanned page's
text layer is tens of kB."""

_STORED_AS_IS = (".jpg", ".png")
"""Pictures pypdf extracts as a JPEG (the scanner's own bytes) or a PNG are stored as they
come; any other (TIFF from a fax scan, JPEG 2000) is stored as a PNG."""


def is_pdf(data: bytes) -> bool:
    """Whether `data` is a PDF file (its header, after any leading white space)."""
    return data[:1024].lstrip(b"\x00\t\n\r\f ").startswith(b"%PDF-")


def _int(obj: Any, key: str) -> int:
    """An integer entry of a PDF dictionary; indexing resolves an indirect one (a /Length
    written as `12 0 R`, as Pillow writes it)."""
    try:
        return int(obj[key]) if key in obj else 0
    except (TypeError, ValueError):
        return 0


NO_IMAGE = "no image on it"


def largest_image(page: Any, max_pixels: int, max_bytes: int) -> tuple[str | None, str | None]:
    """The name of a pypdf page's largest image within the limits, or why there is none
    (NO_IMAGE, or the limit its images break). Sizes come from the image dictionaries (/Width,
    /Height) and the encoded stream, before anything is decoded."""
    try:
        xobjects = page["/Resources"]["/XObject"].get_object()
    except (KeyError, TypeError, AttributeError):
        return None, NO_IMAGE
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
        if w * h > max_pixels:
            too_big = f"its image is {w}x{h} pixels, over the limit of {max_pixels:,}"
        elif size > max_bytes:
            too_big = f"its image is {size:,} bytes, over the limit of {max_bytes:,}"
        elif best is None or w * h > best[0]:
            best = (w * h, str(name))
    if best is None:
        return None, too_big or NO_IMAGE
    return best[1], None


def page_picture(page: Any, name: str, max_pixels: int) -> tuple[Image.Image, bytes, str]:
    """The picture `name` of a pypdf page (largest_image's): decoded, with its bytes as a
    file and their extension (.jpg, .png, ...). A JPEG or JPEG 2000 stream's own header is
    checked against `max_pixels` before it is decoded, since it may declare far more pixels
    than the dictionary did. Raises ImageError for that, anything else pypdf or Pillow
    raises for a broken stream."""
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


@dataclass(frozen=True)
class PdfPage:
    """One page of a PDF, as an image memory stores it: its picture (decoded and checked like
    any image), which page it is, and the text of its text layer ('' when it has none)."""

    image: DecodedImage
    page: int  # 1-based
    pages: int
    text: str
    pdf_sha256: str

    def describe(self) -> dict[str, object]:
        """What a memory's metadata says about the PDF the image came from."""
        return {
            "image_pdf_page": self.page,
            "image_pdf_pages": self.pages,
            "image_pdf_sha256": self.pdf_sha256,
            "image_text_source": "text_layer" if self.text else "ocr",
        }


def read_page(
    data: bytes, page: int | None, *, max_bytes: int, max_pixels: int, max_pages: int
) -> PdfPage:
    """Page `page` (1-based; None: the only page) of the PDF `data` as a checked picture and
    its text layer. Raises ImageError (field `image`) for a PDF refused, InvalidInputError
    (field `page`) for a page it does not have. A PDF of several pages needs `page`: one write
    is one image memory, and a document of pages is what `graphmem ingest` is for."""
    import pypdf  # only a PDF pays for the import

    if len(data) > max_bytes:
        raise ImageError(f"is {len(data):,} bytes; at most {max_bytes:,} are accepted")
    try:
        reader = pypdf.PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise ImageError("is an encrypted PDF; decrypt it first")
        pages = _count_pages(reader, max_pages)
        number = _which(page, pages)
        chosen = reader.pages[number - 1]
        name, why = largest_image(chosen, max_pixels, max_bytes)
        text = _text_layer(chosen, number)
        if name is None:
            raise ImageError(_no_picture(number, why, text))
        try:
            picture, raw, ext = page_picture(chosen, name, max_pixels)
        except ImageError as e:
            raise ImageError(f"page {number} is refused: {e.message}") from None
    except InvalidInputError:
        raise
    except Exception as exc:  # a malformed file can break pypdf anywhere: still one line
        raise ImageError(f"is not a readable PDF ({str(exc)[:120]})") from None
    if ext not in _STORED_AS_IS:
        buf = io.BytesIO()
        picture.save(buf, format="PNG")
        raw = buf.getvalue()
    try:
        image = decode(raw, max_bytes=max_bytes, max_pixels=max_pixels)
    except ImageError as e:
        raise ImageError(f"page {number}'s picture {e.message}") from None
    return PdfPage(image, number, pages, text, hashlib.sha256(data).hexdigest())


def _which(page: int | None, pages: int) -> int:
    """The 1-based page to read: `page` when the PDF has it, the only one when not given."""
    if pages == 0:
        raise ImageError("is a PDF with no pages")
    if page is None:
        if pages > 1:
            raise InvalidInputError(
                "page",
                f"the PDF has {pages} pages: give page (1 to {pages}) to store one of them as"
                " an image, or ingest the whole PDF as a document (graphmem ingest,"
                " document_ingest)",
            )
        return 1
    if isinstance(page, bool) or not isinstance(page, int) or not 1 <= page <= pages:
        raise InvalidInputError("page", f"must be a page of the PDF, 1 to {pages}")
    return page


def _no_picture(number: int, why: str | None, text: str) -> str:
    if why != NO_IMAGE:
        return f"page {number} is refused: {why}"
    if text:
        return (
            f"page {number} is text, not a scanned picture: ingest a PDF of text as a"
            " document (graphmem ingest, document_ingest)"
        )
    return f"page {number} has no picture to store"


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
        " (images.pdf_max_pages); ingest a long PDF as a document (graphmem ingest,"
        " document_ingest)"
    )


def _text_layer(page: Any, number: int) -> str:
    """The page's text layer, tidied as OCR output is; '' when it has none. Its content is
    measured first (MAX_CONTENT_BYTES)."""
    size = _content_bytes(page)
    if size > MAX_CONTENT_BYTES:
        raise ImageError(
            f"page {number} draws {size:,} bytes of content, over the limit of"
            f" {MAX_CONTENT_BYTES:,} (a scanned page needs far less); refused unread"
        )
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
        try:
            xobjects = holder["/Resources"]["/XObject"].get_object()
        except (KeyError, TypeError, AttributeError):
            continue
        for name in xobjects:
            form = xobjects[name].get_object()
            if form.get("/Subtype") == "/Form" and _key(form) not in seen:
                seen.add(_key(form))
                todo.append(form)
    return total


def _key(obj: Any) -> object:
    """What identifies a PDF object in a walk: its object number, else the Python object."""
    ref = getattr(obj, "indirect_reference", None)
    return (ref.idnum, ref.generation) if ref is not None else id(obj)


__all__ = [
    "MAX_CONTENT_BYTES",
    "NO_IMAGE",
    "PdfPage",
    "is_pdf",
    "largest_image",
    "page_picture",
    "read_page",
]
