"""PDFs the scanned-page tests build at run time (nothing binary is committed): pages that are
only a picture, as a scanner writes them (Pillow renders the text and saves the page), a
picture with a text layer on top, and the malformed and oversized ones a write must refuse."""

from __future__ import annotations

import io

import pypdf
from PIL import Image
from pypdf.generic import DecodedStreamObject

from tests.helpers.documents import _pdf
from tests.helpers.imaging import render

A4_150DPI = (1240, 1754)


def scanned_pdf(*pages: list[str], size: tuple[int, int] = (1240, 700)) -> bytes:
    """One page per list of lines, each only a picture of its lines (JPEG, 150 dpi): no text
    layer, as a scanner writes it."""
    pictures = [
        Image.open(io.BytesIO(render(lines, size=size, text_px=40))).convert("RGB")
        for lines in pages
    ]
    buf = io.BytesIO()
    pictures[0].save(buf, "PDF", resolution=150, save_all=True, append_images=pictures[1:])
    return buf.getvalue()


def join(*pdfs: bytes) -> bytes:
    """The pages of `pdfs`, in order, as one PDF."""
    writer = pypdf.PdfWriter()
    for data in pdfs:
        writer.append(pypdf.PdfReader(io.BytesIO(data)))
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def searchable_pdf(picture: list[str], text: list[str]) -> bytes:
    """An A4 page that is a picture of `picture` with a text layer of `text` drawn over it
    (Helvetica, as OCR software adds one); the two differ, so a test can tell which was read."""
    page = scanned_pdf(picture, size=A4_150DPI)
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(page)))
    writer.pages[0].merge_page(pypdf.PdfReader(io.BytesIO(_pdf([text]))).pages[0])
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def blank_pages(n: int, *, declare: int | None = None) -> bytes:
    """`n` empty pages; with `declare`, the page tree's /Count says that many instead (a tree
    that lies about its size)."""
    writer = pypdf.PdfWriter()
    for _ in range(n):
        writer.add_blank_page(100, 100)
    buf = io.BytesIO()
    writer.write(buf)
    data = buf.getvalue()
    if declare is not None:
        old = b"/Count %d" % n
        new = (b"/Count %d" % declare).ljust(len(old))  # the same length keeps the offsets
        assert data.count(old) == 1 and len(new) == len(old)
        data = data.replace(old, new)
    return data


def jpeg_header_bomb(side: int) -> bytes:
    """A one-page PDF whose picture's dictionary declares 120 x 80 pixels and whose JPEG
    header declares side x side: the header is patched in place, so every offset holds."""
    buf = io.BytesIO()
    Image.new("RGB", (120, 80), "white").save(buf, "PDF", resolution=72)
    data = bytearray(buf.getvalue())
    sof = data.index(b"\xff\xc0")  # baseline JPEG frame: length(2) precision(1) height width
    data[sof + 5 : sof + 9] = side.to_bytes(2, "big") * 2
    return bytes(data)


def content_bomb(lines: list[str], extra: int) -> bytes:
    """A scanned page whose content stream also carries `extra` bytes of no-op drawing
    instructions, Flate-compressed to a few kB: what text extraction would spend minutes on."""
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(scanned_pdf(lines))))
    page = writer.pages[0]
    stream = DecodedStreamObject()
    stream.set_data(page.get_contents().get_data() + b"\nq Q" * (extra // 4))  # type: ignore[union-attr]
    page.replace_contents(stream.flate_encode())
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def encrypted(data: bytes, password: str = "secret") -> bytes:
    """`data` encrypted with a user password (RC4, which pypdf writes without extras)."""
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password=password, algorithm="RC4-128")
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


__all__ = [
    "A4_150DPI",
    "blank_pages",
    "content_bomb",
    "encrypted",
    "jpeg_header_bomb",
    "join",
    "scanned_pdf",
    "searchable_pdf",
]
