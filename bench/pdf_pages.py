"""PDF pages as images: what a page gives OCR, and the CPU it costs, with the page rendered by
PDFium (graphmem.images.render) and without it (its largest picture, as before pages were
rendered), on the same PDFs in the same run.

The PDFs are built at run time by tests/helpers/pdfs.py (nothing binary is committed), one
kind a row: an A4 scan of two pages (one JPEG a page, 150 dpi), the same with a line drawn
over each page (a stamp: the page is rendered whole, 1654 x 2339 at 200 dpi), a page cut into
three strips, a page whose text is drawn as vector rectangles, and a page holding an inline
image. Each page
goes through what an image write does before the records: graphmem.images.pdf.read_pages
(checks, render or picture, PNG encoding) and Tesseract (graphmem.images.ocr.read_text, with
the images settings' languages and ocr_max_side). Reported per kind and path: the pages that
gave a picture, the share of the page's words OCR found, and the CPU per page of this process
(read + render + encode) and of the Tesseract child, as the median of --repeat runs.

Usage:
  python bench/pdf_pages.py [--repeat 3] [--out bench/results/pdf_pages.json]
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import pypdf  # noqa: E402
from pypdf.generic import DecodedStreamObject  # noqa: E402

from graphmem.errors import ImageError  # noqa: E402
from graphmem.images import ImageSettings, render  # noqa: E402
from graphmem.images.ocr import read_text  # noqa: E402
from graphmem.images.pdf import PdfLimits, read_pages  # noqa: E402
from tests.helpers.pdfs import (  # noqa: E402
    A4_150DPI,
    inline_image_pdf,
    scanned_pdf,
    strips_pdf,
    vector_text_pdf,
)

SCAN = (
    ["Tenancy agreement for Flat 3", "Landlord Marta Oyelaran", "Signed in Uppsala"],
    ["Monthly rent of 1450 EUR", "payable to Norrland Savings Bank", "from the first of May"],
)
STRIPS = (["Ferry timetable for Visby"], ["Departures at 0715 from Nynashamn"], ["Cabin QX4471"])
VECTOR = ["Glasshouse rota for Kingfisher Lane", "Watering on Tuesday and Friday"]
INLINE = ["Parcel locker code 5521 Narwhal", "Collect before Thursday"]


def cases() -> dict[str, tuple[bytes, list[str]]]:
    """Each kind of PDF and the words on its pages."""
    words = lambda *groups: [w for g in groups for line in g for w in line.split()]  # noqa: E731
    return {
        "scan, 2 pages (A4)": (scanned_pdf(*SCAN, size=A4_150DPI), words(*SCAN)),
        "scan + stamp, 2 (A4)": (stamped(scanned_pdf(*SCAN, size=A4_150DPI)), words(*SCAN)),
        "strips, 3 pictures": (strips_pdf(*STRIPS), words(*STRIPS)),
        "vectors, no picture": (vector_text_pdf(VECTOR), words(VECTOR)),
        "inline image": (inline_image_pdf(INLINE), words(INLINE)),
    }


def _missing() -> bool:
    return False


def stamped(pdf: bytes) -> bytes:
    """`pdf` with a line drawn over each page's picture (a stamp, a signature): no longer a
    page of one picture, so rendered whole."""
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(pdf)))
    for page in writer.pages:
        stream = DecodedStreamObject()
        stream.set_data(page.get_contents().get_data() + b"\nq 2 w 40 40 m 200 90 l S Q")  # type: ignore[union-attr]
        page.replace_contents(stream)
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime


def one(pdf: bytes, words: list[str], s: ImageSettings) -> dict[str, Any]:
    """Read every page of `pdf` and OCR it: pages, words found, CPU per page."""
    limits = PdfLimits.of(s)
    texts, pages, read_cpu, ocr_cpu, kinds = [], 0, 0.0, 0.0, set()
    try:
        it = read_pages(pdf, None, limits)
        while True:
            a = cpu()
            try:
                page = next(it)
            except StopIteration:
                break
            b = cpu()
            got = read_text(
                page.image.picture,
                command=s.tesseract,
                languages=s.ocr_languages,
                timeout=s.ocr_timeout_seconds,
                max_side=s.ocr_max_side,
            )
            c = cpu()
            read_cpu += b[0] - a[0]
            ocr_cpu += (c[1] - b[1]) + (c[0] - b[0])
            texts.append(got.text)
            kinds.add(page.picture)
            pages += 1
    except ImageError as e:
        return {"pages": pages, "refused": e.message, "found": 0.0}
    text = " ".join(texts)
    found = sum(w in text for w in words) / len(words)
    return {
        "pages": pages,
        "picture": "+".join(sorted(kinds)),
        "found": round(found, 3),
        "read_cpu_s_per_page": read_cpu / max(pages, 1),
        "ocr_cpu_s_per_page": ocr_cpu / max(pages, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    logging.getLogger("graphmem.images").setLevel(logging.ERROR)  # the fallback's warning
    s = ImageSettings()
    real = render.available
    rows: list[dict[str, Any]] = []
    started = time.monotonic()
    for kind, (pdf, words) in cases().items():
        for path, renders in (("largest picture (before)", False), ("rendered (after)", True)):
            render.available = real if renders else _missing  # type: ignore[assignment]
            runs = [one(pdf, words, s) for _ in range(args.repeat)]
            row: dict[str, Any] = {"kind": kind, "path": path, **runs[0]}
            for key in ("read_cpu_s_per_page", "ocr_cpu_s_per_page"):
                if key in row:
                    row[key] = round(statistics.median(r[key] for r in runs), 3)
            rows.append(row)
    render.available = real  # type: ignore[assignment]
    print(f"{'kind':22} {'path':25} {'pages':>5} {'found':>6} {'read s/pg':>9} {'ocr s/pg':>8}")
    for r in rows:
        if "refused" in r:
            print(f"{r['kind']:22} {r['path']:25} {r['pages']:>5} refused: {r['refused'][:60]}")
            continue
        print(
            f"{r['kind']:22} {r['path']:25} {r['pages']:>5} {r['found']:>6.0%}"
            f" {r['read_cpu_s_per_page']:>9.3f} {r['ocr_cpu_s_per_page']:>8.3f}"
        )
    result = {
        "settings": {"pdf_dpi": s.pdf_dpi, "ocr_max_side": s.ocr_max_side},
        "languages": s.ocr_languages,
        "repeat": args.repeat,
        "seconds": round(time.monotonic() - started, 1),
        "rows": rows,
    }
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
