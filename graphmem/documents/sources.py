"""Files, folders and URLs turned into a `Document`: normalised plain text and its sections.

Every format ends up the same shape so the chunker and the ingest use case need not know where
a text came from: `text` is what a reader sees (markup that only adds noise is gone), and
`sections` say which headings each stretch of it sits under. Headings live in the sections,
not in the text, so a chunk never repeats a heading it is already filed under.

Anything wrong with an input (missing, unreadable, too large, not text, an unsupported type, a
failed download) raises `DocumentError` naming the file or URL, never a stack trace.
"""

from __future__ import annotations

import codecs
import contextlib
import hashlib
import io
import re
import unicodedata
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from graphmem.documents.scanned import PageOcr, PagesRead, read_pages
from graphmem.errors import InvalidInputError

SUPPORTED_SUFFIXES: dict[str, str] = {
    **dict.fromkeys((".md", ".markdown"), "markdown"),
    **dict.fromkeys((".txt", ".text"), "text"),
    **dict.fromkeys((".html", ".htm"), "html"),
    ".pdf": "pdf",
}
FORMATS = frozenset(SUPPORTED_SUFFIXES.values())
_CONTENT_TYPES = {
    **dict.fromkeys(("text/markdown", "text/x-markdown"), "markdown"),
    **dict.fromkeys(("text/html", "application/xhtml+xml"), "html"),
    "text/plain": "text",
    "application/pdf": "pdf",
}
_SUPPORTED = ", ".join(SUPPORTED_SUFFIXES)
_TITLE_CHARS = 200


class DocumentError(InvalidInputError):
    """A document could not be read: raised as DocumentError("source", "<file or URL>: <what is
    wrong>"), so a CLI prints one line and the user knows which file to fix."""


def _error(uri: str, problem: str) -> DocumentError:
    return DocumentError("source", f"{uri}: {problem}")


@dataclass(frozen=True)
class Section:
    """The stretch `text[start:end]` of a document that sits under `heading_path`."""

    heading_path: tuple[str, ...]
    start: int
    end: int


@dataclass(frozen=True)
class Document:
    """A document's plain text and sections; `uri` is an absolute path or the URL as given."""

    uri: str
    title: str
    text: str
    format: str
    sections: tuple[Section, ...]
    ocr_pages: int = 0
    """PDF pages without a text layer whose text was read by OCR (graphmem.documents.scanned)."""
    notes: tuple[str, ...] = ()
    """One line per page left empty, and why (OCR off, Tesseract missing, over a limit)."""

    @property
    def content_hash(self) -> str:
        """sha256 of the text: a re-ingested file whose text did not change is recognised."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


# --- normalising --------------------------------------------------------------------------

# control characters other than \t and \n (\r, \v, \f and the Unicode line separators are
# turned into \n first)
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")
_NEWLINES = re.compile(r"\r\n?|[\x0b\x0c\u2028\u2029\x85]")
_TRAILING = re.compile(r"[ \t\u00a0\u3000]+$", re.M)
_BLANKS = re.compile(r"\n{4,}")


def normalise(text: str) -> str:
    """NFC, \\n line ends, no control characters but \\n and \\t, no trailing spaces, at most
    two blank lines in a row, no blank lines at either end: the same words give the same text
    (and the same content hash) whichever editor or platform wrote them."""
    text = unicodedata.normalize("NFC", text.replace("\ufeff", ""))
    text = _CONTROL.sub("", _NEWLINES.sub("\n", text))
    text = _BLANKS.sub("\n\n\n", _TRAILING.sub("", text))
    return text.strip("\n")


def _one_line(text: str) -> str:
    return " ".join(text.split())[:_TITLE_CHARS].strip()


class _Builder:
    """Collects body text under the current heading path and lays the bodies out as one text.

    Bodies are normalised one by one and joined by a blank line, so offsets are those of the
    final text. A heading without a body leaves no section (its title is still in the path of
    the headings under it); the sections cover the text end to end."""

    def __init__(self, text: str = "") -> None:
        self._bodies: list[tuple[tuple[str, ...], list[str]]] = [((), [text])]
        self._stack: list[tuple[int, str]] = []

    def heading(self, level: int, title: str) -> None:
        title = " ".join(title.split())
        if not title:
            return
        while self._stack and self._stack[-1][0] >= level:
            self._stack.pop()
        self._stack.append((level, title))
        self._bodies.append((tuple(t for _, t in self._stack), []))

    def write(self, text: str) -> None:
        self._bodies[-1][1].append(text)

    def build(self) -> tuple[str, tuple[Section, ...]]:
        text = ""
        spans: list[tuple[tuple[str, ...], int]] = []
        for path, parts in self._bodies:
            body = normalise("".join(parts))
            if not body.strip():
                continue
            if text:
                text += "\n\n"
            spans.append((path, len(text)))
            text += body
        if not spans:
            return text, (Section((), 0, 0),)
        # the first starts at 0 and each ends where the next starts: they cover the text
        ends = [start for _, start in spans[1:]] + [len(text)]
        return text, tuple(Section(p, s, e) for (p, s), e in zip(spans, ends, strict=True))


# --- markdown -----------------------------------------------------------------------------

_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?\n)(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
_FM_TITLE = re.compile(r"^title:[ \t]*(.+?)[ \t]*$", re.M)
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))??(?:[ \t]+#+)?[ \t]*$")
_BREAK = re.compile(r"^ {0,3}([-*_])([ \t]*\1){2,}[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_REF_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:[ \t]+\S+.*$")
_QUOTE = re.compile(r"^( {0,3}>[ \t]?)+")
# a line a setext underline cannot make a heading: a list item, a quote, a table row, code
_NOT_PARAGRAPH = re.compile(r" {0,3}([-*+]|\d+[.)]|>|\|)[ \t]| {4}")
_CODE_SPAN = re.compile(r"(`+)(?:.+?)\1")
_INLINE = [
    (re.compile(r"!\[[^\]]*\]\([^)]*\)|!\[[^\]]*\]\[[^\]]*\]"), ""),  # images dropped
    (re.compile(r"\[([^\]]+)\]\([^)]*\)"), r"\1"),  # [text](url) -> text
    (re.compile(r"\[([^\]]+)\]\[[^\]]*\]"), r"\1"),  # [text][ref] -> text
    (re.compile(r"<((?:https?|mailto):[^>\s]+)>"), r"\1"),  # <https://...> -> the URL
    (re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1"), r"\2"),  # strong
    (re.compile(r"~~(?=\S)(.+?)(?<=\S)~~"), r"\1"),  # strikethrough
    (re.compile(r"(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])"), r"\1"),  # *em*
    (re.compile(r"(?<![\w_])_(?=[^\s_])(.+?)(?<=[^\s_])_(?![\w_])"), r"\1"),  # _em_
]


def _inline(line: str) -> str:
    """A markdown line without its link, image and emphasis markup; code spans untouched."""
    out: list[str] = []
    pos = 0
    for m in _CODE_SPAN.finditer(line):
        out.extend((_plain(line[pos : m.start()]), m.group(0)))
        pos = m.end()
    out.append(_plain(line[pos:]))
    return "".join(out)


def _plain(text: str) -> str:
    for pattern, repl in _INLINE:
        text = pattern.sub(repl, text)
    return text


def _parse_markdown(source: str) -> tuple[str, str, tuple[Section, ...]]:
    source = _NEWLINES.sub("\n", source.lstrip("\ufeff"))
    title = ""
    front = _FRONT_MATTER.match(source)
    if front:
        found = _FM_TITLE.search(front.group(1))
        title = found.group(1).strip("'\"") if found else ""
        source = source[front.end() :]
    out = _Builder()
    fence = ""
    pending = ""  # a paragraph line that a setext underline may turn into a heading
    for line in [*source.split("\n"), ""]:  # the last line flushes a pending one
        if fence:
            out.write(line + "\n")
            if line.strip().startswith(fence) and not line.strip(fence[0] + " \t"):
                fence = ""
            continue
        opened = _FENCE.match(line)
        setext = _SETEXT.match(line)
        atx = _ATX.match(line)
        if pending and setext:
            level = 1 if setext.group(1)[0] == "=" else 2
            title = title or (_one_line(_inline(pending)) if level == 1 else "")
            out.heading(level, _inline(pending))
            pending = ""
            continue
        if pending:
            out.write(pending + "\n")
            pending = ""
        if opened:
            fence = opened.group(1)
            out.write(line + "\n")
        elif atx:
            heading = _inline(atx.group(2) or "")
            if len(atx.group(1)) == 1 and not title:
                title = _one_line(heading)
            out.heading(len(atx.group(1)), heading)
        elif _REF_DEF.match(line):
            continue
        elif _BREAK.match(line):
            out.write("\n")  # a thematic break (---, ***): only a paragraph break in plain text
        elif line.strip() and not _NOT_PARAGRAPH.match(line):
            pending = _inline(_QUOTE.sub("", line))
        else:
            out.write(_inline(_QUOTE.sub("", line)) + "\n")
    return (title, *out.build())


# --- html ---------------------------------------------------------------------------------

_SKIP = frozenset("script style nav header footer aside noscript template svg".split())
_BLOCKS = frozenset(
    "address article blockquote caption dd details dialog div dl dt fieldset figcaption figure"
    " form hr li main ol p pre section summary table tbody thead tfoot tr ul".split()
)
_HEADINGS = {f"h{n}": n for n in range(1, 7)}


class _HTMLText(HTMLParser):
    """Visible text of an HTML page: skipped elements dropped, blocks as paragraph breaks,
    h1-h6 as sections, whitespace collapsed outside <pre>, entities decoded by HTMLParser."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out = _Builder()
        self.title = self.first_h1 = ""
        self._skip = self._pre = 0
        self._in_title = False
        self._heading: tuple[int, list[str]] | None = None
        self._newlines = 2  # newlines just written (2: nothing yet), so breaks never pile up
        self._space = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP:
            self._skip += 1
        elif self._skip:
            return
        elif tag == "title":
            self._in_title = True
        elif tag in _HEADINGS:
            self._heading = (_HEADINGS[tag], [])
        elif tag == "br":
            self._write("\n")
        elif tag in _BLOCKS:
            self._write("\n\n")
            self._pre += tag == "pre"
        elif tag in ("td", "th"):
            self._write(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self._skip = max(0, self._skip - 1)
        elif self._skip:
            return
        elif tag == "title":
            self._in_title = False
        elif tag in _HEADINGS and self._heading is not None:
            level, parts = self._heading
            self._heading, text = None, "".join(parts)
            self.first_h1 = self.first_h1 or (_one_line(text) if level == 1 else "")
            self.out.heading(level, text)
            self._newlines = 2
        elif tag in _BLOCKS:
            self._pre -= tag == "pre" and self._pre > 0
            self._write("\n\n")

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        if self._in_title:
            self.title += data
        else:
            self._write(data if self._pre else re.sub(r"\s+", " ", data))

    def _write(self, text: str) -> None:
        """Text, a break ("\\n", "\\n\\n": only the newlines still missing) or a space (none
        after a space or a break); inside a heading, all of it goes to the heading's title."""
        if self._heading is not None:
            self._heading[1].append(text if text.strip("\n") else " ")
            return
        if not self._pre and not text.strip("\n"):
            text = "\n" * (len(text) - self._newlines)
        elif not self._pre and (self._newlines or self._space):
            text = text.lstrip(" ")
        if text:
            self.out.write(text)
            stripped = text.rstrip("\n")
            self._newlines = len(text) - len(stripped) + (self._newlines if not stripped else 0)
            self._space = text.endswith(" ")


def _parse_html(source: str) -> tuple[str, str, tuple[Section, ...]]:
    parser = _HTMLText()
    parser.feed(source)
    parser.close()
    return (_one_line(parser.title) or parser.first_h1, *parser.out.build())


# --- pdf and plain text -------------------------------------------------------------------


def _parse_pdf(
    data: bytes, uri: str, ocr: PageOcr | None
) -> tuple[str, str, tuple[Section, ...], PagesRead]:
    import pypdf  # only a PDF pays for the import

    try:
        reader = pypdf.PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise _error(uri, "is an encrypted PDF; decrypt it first")
        pages = list(reader.pages)
        read = read_pages(pages, [page.extract_text() or "" for page in pages], ocr, data)
        meta_title = (reader.metadata.title if reader.metadata else None) or ""
    except Exception as exc:  # a malformed file can break pypdf anywhere: still one line
        if isinstance(exc, DocumentError):
            raise
        raise _error(uri, f"is not a readable PDF ({exc})") from exc
    text, sections = _Builder("\n\n".join(normalise(p) for p in read.texts if p.strip())).build()
    if not text.strip():
        if ocr is None:
            raise _error(uri, "has no text layer (scanned?); OCR it first")
        why = "; ".join(read.notes) or "no text found on its pages"
        raise _error(uri, f"has no text layer (scanned?); OCR read nothing: {why}")
    return _one_line(str(meta_title)) or _first_line(text), text, sections, read


def _first_line(text: str) -> str:
    return next((_one_line(line) for line in text.split("\n") if line.strip()), "")


def _parse_text(source: str) -> tuple[str, str, tuple[Section, ...]]:
    text, sections = _Builder(source).build()
    return _first_line(text), text, sections


# --- decoding and loading -----------------------------------------------------------------

_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)""", re.I)


def _decode(data: bytes, uri: str, fmt: str, charset: str | None) -> str:
    """Text from bytes: a declared charset (HTTP header, or <meta charset> for HTML) if known,
    else UTF-8 (with or without a BOM). NUL bytes mean a binary file with a text suffix."""
    if fmt == "html" and not charset:
        found = _META_CHARSET.search(data[:4096])
        charset = found.group(1).decode("ascii") if found else None
    encoding = "utf-8-sig"  # UTF-8, with or without a byte order mark
    if charset and not data.startswith(codecs.BOM_UTF8):
        with contextlib.suppress(LookupError):  # an unknown charset: UTF-8 is the best guess
            encoding = codecs.lookup(charset).name
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError:
        text = "\x00"
    if "\x00" in text:
        name = "UTF-8" if encoding == "utf-8-sig" else encoding
        raise _error(uri, f"is not {name} text (a binary file, or another encoding?)")
    return text


def _path(uri: str) -> Path:
    """The path part of a URL, or the file path itself: where a name and a suffix come from."""
    parts = urlsplit(uri)
    return Path(unquote(parts.path) if parts.scheme in ("http", "https") else uri)


def _suffix(uri: str) -> str:
    return _path(uri).suffix.lower()


def load_bytes(
    data: bytes,
    uri: str,
    *,
    content_type: str | None = None,
    fmt: str | None = None,
    ocr: PageOcr | None = None,
) -> Document:
    """A document from bytes already in hand. The format comes from `fmt`, else the
    `content_type` (its charset parameter is honoured), else the suffix of `uri`; a server that
    sends a .md file as text/plain still gets it read as markdown. With `ocr`, PDF pages
    without a text layer are read by OCR (graphmem.documents.scanned); without, they stay
    empty."""
    media, _, params = (content_type or "").partition(";")
    media = media.strip().lower()
    found = re.search(r"charset\s*=\s*\"?([^\";\s]+)", params, re.I)
    charset = found.group(1) if found else None
    by_suffix = SUPPORTED_SUFFIXES.get(_suffix(uri))
    if fmt is not None and fmt not in FORMATS:
        raise _error(uri, f"has an unknown format {fmt!r} (one of {sorted(FORMATS)})")
    fmt = fmt or _CONTENT_TYPES.get(media)
    if fmt == "text" and by_suffix == "markdown":
        fmt = "markdown"
    fmt = fmt or by_suffix
    if fmt is None:
        what = f"type {media!r}" if media else f"suffix {_suffix(uri) or '(none)'!r}"
        raise _error(uri, f"has an unsupported {what} (supported: {_SUPPORTED})")
    read = PagesRead([])
    if fmt == "pdf":
        title, text, sections, read = _parse_pdf(data, uri, ocr)
    else:
        source = _decode(data, uri, fmt, charset)
        parse = {"markdown": _parse_markdown, "html": _parse_html, "text": _parse_text}[fmt]
        title, text, sections = parse(source)
    name = _path(uri).name or urlsplit(uri).netloc
    return Document(
        uri, _one_line(title) or name, text, fmt, sections, read.ocr_pages, tuple(read.notes)
    )


def load_path(
    path: str | Path, *, max_bytes: int = 50_000_000, ocr: PageOcr | None = None
) -> Document:
    """A document from a file, its format from its suffix (see SUPPORTED_SUFFIXES)."""
    file = Path(path).expanduser().resolve()
    uri = str(file)
    if not file.exists():
        raise _error(uri, "no such file")
    if file.is_dir():
        raise _error(uri, "is a folder, not a file (ingest the folder instead)")
    fmt = SUPPORTED_SUFFIXES.get(file.suffix.lower())
    if fmt is None:
        suffix = file.suffix or "(none)"
        raise _error(uri, f"has an unsupported suffix {suffix!r} (supported: {_SUPPORTED})")
    try:
        if file.stat().st_size > max_bytes:
            raise _error(uri, f"is larger than the limit of {max_bytes:,} bytes")
        data = file.read_bytes()
    except OSError as exc:
        raise _error(uri, f"cannot be read: {exc.strerror or exc}") from exc
    return load_bytes(data, uri, fmt=fmt, ocr=ocr)
