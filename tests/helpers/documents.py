"""Documents made in tests (a PDF with a text layer) and a local HTTP server to fetch them from."""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Iterator

import pytest


def _pdf(pages: list[list[str]], title: str | None = None) -> bytes:
    """A minimal valid PDF: one Helvetica text line per string (none: a page with a line drawn
    and no text), with a cross-reference table of real byte offsets."""

    def esc(s: str) -> str:
        return s.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")

    objs = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    }
    kids = []
    for i, lines in enumerate(pages):
        page, content = 4 + 2 * i, 5 + 2 * i
        kids.append(f"{page} 0 R")
        ops = ["BT /F1 12 Tf 72 720 Td 16 TL", *(f"({esc(s)}) Tj T*" for s in lines), "ET"]
        stream = "\n".join(ops if lines else ["0 0 m 100 100 l S"]).encode("latin-1")
        objs[page] = (
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {content} 0 R"
            " /Resources << /Font << /F1 3 0 R >> >> >>"
        ).encode()
        objs[content] = b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream)
    objs[2] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(pages)} >>".encode()
    info = ""
    if title:
        objs[max(objs) + 1] = f"<< /Title ({esc(title)}) >>".encode()
        info = f" /Info {max(objs)} 0 R"
    out = bytearray(b"%PDF-1.4\n")
    offsets = {}
    for key in sorted(objs):
        offsets[key] = len(out)
        out += b"%d 0 obj\n%s\nendobj\n" % (key, objs[key])
    xref, size = len(out), max(objs) + 1
    out += b"xref\n0 %d\n0000000000 65535 f \n" % size
    out += b"".join(b"%010d 00000 n \n" % offsets[k] for k in range(1, size))
    out += f"trailer\n<< /Size {size} /Root 1 0 R{info} >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


class _Handler(http.server.BaseHTTPRequestHandler):
    agents: list[str] = []
    pages = {
        "/page": ("text/html; charset=utf-8", "<title>Served</title><p>caf\u00e9 &amp; tea</p>"),
        "/notes.md": ("text/plain", "# Notes\n\nbody"),
        "/big.txt": ("text/plain", "x" * 5000),
    }

    def do_GET(self) -> None:
        if self.path == "/slow":
            time.sleep(1.5)  # the slow server is the thing tested (a fetch's timeout), no wait
        if self.path == "/moved":
            self.send_response(302)
            self.send_header("Location", "/page")
            self.end_headers()
            return
        if self.path not in self.pages:
            self.send_error(404, "Not Found")
            return
        self.agents.append(self.headers["User-Agent"])
        content_type, body = self.pages[self.path]
        data = body.encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def page_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)
