"""PDFs the scanned-page tests build at run time (nothing binary is committed): pages that are
only a picture, as a scanner writes them (Pillow renders the text and saves the page), a
picture with a text layer on top, pages that are more than one picture (a scan cut into
strips, text drawn as vector rectangles, an inline image), written by hand (`hand_pdf`), and
the malformed and oversized ones a write must refuse."""

from __future__ import annotations

import io
import zlib
from dataclasses import dataclass, field

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


@dataclass
class HandPage:
    """A page for hand_pdf: its size in points, its content stream, and its image XObjects
    (name: the dictionary's entries besides /Type, /Subtype and /Length, and the stream)."""

    size: tuple[float, float]
    content: bytes
    images: dict[str, tuple[bytes, bytes]] = field(default_factory=dict)


def hand_pdf(*pages: HandPage) -> bytes:
    """A minimal valid PDF of `pages`, with a cross-reference table of real byte offsets."""
    objs: dict[int, bytes] = {1: b"<< /Type /Catalog /Pages 2 0 R >>"}
    kids, n = [], 3
    for page in pages:
        page_no, content_no, n = n, n + 1, n + 2
        names = []
        for name, (entries, data) in page.images.items():
            objs[n] = (
                b"<< /Type /XObject /Subtype /Image %s /Length %d >>\nstream\n%s\nendstream"
                % (
                    entries,
                    len(data),
                    data,
                )
            )
            names.append(f"/{name} {n} 0 R")
            n += 1
        objs[content_no] = b"<< /Length %d >>\nstream\n%s\nendstream" % (
            len(page.content),
            page.content,
        )
        w, h = page.size
        objs[page_no] = (
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {w} {h}] /Contents {content_no} 0 R"
            f" /Resources << /XObject << {' '.join(names)} >> >> >>"
        ).encode()
        kids.append(f"{page_no} 0 R")
    objs[2] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(pages)} >>".encode()
    out = bytearray(b"%PDF-1.4\n")
    offsets = {}
    for key in sorted(objs):
        offsets[key] = len(out)
        out += b"%d 0 obj\n%s\nendobj\n" % (key, objs[key])
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (max(objs) + 1)
    for key in range(1, max(objs) + 1):
        out += b"%010d 00000 n \n" % offsets[key]
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (max(objs) + 1, xref)
    return bytes(out)


def _jpeg_xobject(lines: list[str], size: tuple[int, int]) -> tuple[bytes, bytes]:
    data = render(lines, size=size, fmt="JPEG", text_px=40)
    entries = b"/Width %d /Height %d /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode"
    return entries % size, data


def strips_pdf(*strips: list[str], width: int = 1240, strip_px: int = 200) -> bytes:
    """One page of a scan cut into strips, one picture (a JPEG at 150 dpi) of each list of
    lines, stacked top to bottom: as some scanners and fax software write a page."""
    pt = 72 / 150
    height = strip_px * len(strips) * pt
    ops, images = [], {}
    for i, lines in enumerate(strips):
        images[f"S{i}"] = _jpeg_xobject(lines, (width, strip_px))
        y = height - (i + 1) * strip_px * pt
        ops.append(f"q {width * pt:.2f} 0 0 {strip_px * pt:.2f} 0 {y:.2f} cm /S{i} Do Q")
    return hand_pdf(HandPage((width * pt, height), "\n".join(ops).encode(), images))


def vector_text_pdf(lines: list[str]) -> bytes:
    """One page whose text is drawn as filled rectangles (each run of dark pixels of the text
    rendered by Pillow, a point a pixel): no picture and no text layer, only vectors."""
    size = (1000, 100 + 50 * len(lines))
    picture = Image.open(io.BytesIO(render(lines, size=size, text_px=30))).convert("L")
    w, h = picture.size
    pixels = picture.load()
    assert pixels is not None
    ops = ["0 g"]
    for row in range(h):
        x = 0
        while x < w:
            if pixels[x, row] < 128:  # type: ignore[operator]
                start = x
                while x < w and pixels[x, row] < 128:  # type: ignore[operator]
                    x += 1
                ops.append(f"{start} {h - row - 1} {x - start} 1 re")
            x += 1
    ops.append("f")
    return hand_pdf(HandPage((w, h), "\n".join(ops).encode()))


def inline_image_pdf(lines: list[str]) -> bytes:
    """One page whose only picture is an inline image (BI ... ID ... EI in the content stream,
    grey, hex-encoded): pypdf lists no image XObject on it."""
    size = (900, 100 + 50 * len(lines))
    picture = Image.open(io.BytesIO(render(lines, size=size, text_px=36))).convert("L")
    w, h = picture.size
    head = f"q {w / 2:g} 0 0 {h / 2:g} 0 0 cm\nBI /W {w} /H {h} /BPC 8 /CS /G /F /AHx ID\n"
    body = picture.tobytes().hex().encode() + b">\nEI\nQ"
    return hand_pdf(HandPage((w / 2, h / 2), head.encode() + body))


def declared_bomb(strips: list[str], side: int) -> bytes:
    """A page of two strips, one a picture whose dictionary declares side x side pixels over
    a few bytes of Flate data: what PDFium would allocate whole to render the page."""
    page = strips_pdf(strips, ["x"])
    tiny = zlib.compress(b"\0" * 64)
    entries = (
        b"/Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode"
    )
    # the second strip's picture, swapped for the bomb
    reader = pypdf.PdfReader(io.BytesIO(page))
    content = reader.pages[0].get_contents().get_data()  # type: ignore[union-attr]
    w, h = (float(v) for v in reader.pages[0].mediabox[2:])
    return hand_pdf(
        HandPage(
            (w, h),
            content,
            {"S0": _jpeg_xobject(strips, (1240, 200)), "S1": (entries % (side, side), tiny)},
        )
    )


def oversized_page(side_pt: float) -> bytes:
    """One page of side_pt x side_pt points (PDF allows 14,400, 200 inches) with one line."""
    return hand_pdf(HandPage((side_pt, side_pt), b"0 0 m 100 100 l S"))


__all__ = [
    "A4_150DPI",
    "HandPage",
    "blank_pages",
    "content_bomb",
    "declared_bomb",
    "encrypted",
    "hand_pdf",
    "inline_image_pdf",
    "jpeg_header_bomb",
    "join",
    "oversized_page",
    "scanned_pdf",
    "searchable_pdf",
    "strips_pdf",
    "vector_text_pdf",
]
