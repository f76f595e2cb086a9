"""A document cut into chunks small enough to embed and recall one at a time.

A chunk never crosses a heading (each is filed under one `heading_path`, and a recalled chunk
must not mix two topics) and keeps whole paragraphs where it can: paragraphs are packed until
the next would pass `target_chars`; a paragraph over `max_chars` is cut at sentence ends, and a
sentence over `max_chars` at whitespace near the limit (or right at it, as in Chinese, which
has no spaces). Every chunk is an exact slice of the document's text, so `doc.text[start:end]`
finds it again, e.g. to show it in context.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from graphmem.documents.sources import Document

DEFAULT_TARGET_CHARS = 700
DEFAULT_MAX_CHARS = 1400
MIN_TARGET_CHARS = 50

# a paragraph break: a blank line (the text is normalised: no trailing spaces)
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
# the end of a sentence: .!? followed by whitespace (closing quotes or brackets included),
# the CJK full stops (no space follows them), or a line end
_SENTENCE_END = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s)|[。！？]+[”’」』）]*|\n")


@dataclass(frozen=True)
class Chunk:
    """`text` == the document's `text[start:end]`, under the headings `heading_path`."""

    index: int
    text: str
    heading_path: tuple[str, ...]
    start: int
    end: int

    @property
    def content_hash(self) -> str:
        """sha256 of the text: an unchanged chunk of a re-ingested document is recognised."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


Span = tuple[int, int]


def _stripped(text: str, start: int, end: int) -> Span | None:
    """The span without whitespace at either end; None if nothing but whitespace is left."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


def _split(text: str, start: int, end: int, pattern: re.Pattern[str]) -> list[Span]:
    """The non-blank pieces of text[start:end] between matches of `pattern` (a piece keeps the
    sentence end that closes it)."""
    pieces: list[Span] = []
    pos = start
    for m in pattern.finditer(text, start, end):
        cut = m.start() if m.group(0).isspace() else m.end()
        span = _stripped(text, pos, cut)
        if span:
            pieces.append(span)
        pos = m.end()
    span = _stripped(text, pos, end)
    if span:
        pieces.append(span)
    return pieces


def _hard_split(text: str, start: int, end: int, max_chars: int) -> list[Span]:
    """A sentence longer than max_chars cut into pieces of at most max_chars, at the last
    whitespace in the second half of each window, else right at the limit."""
    pieces: list[Span] = []
    while end - start > max_chars:
        limit = start + max_chars
        cut = limit
        for i in range(limit, start + max_chars // 2, -1):
            if text[i].isspace():
                cut = i
                break
        span = _stripped(text, start, cut)
        if span:
            pieces.append(span)
        start = cut
        while start < end and text[start].isspace():
            start += 1
    span = _stripped(text, start, end)
    if span:
        pieces.append(span)
    return pieces


def _pieces(text: str, start: int, end: int, max_chars: int) -> list[Span]:
    """The section's paragraphs, each over max_chars replaced by its sentences (and each
    sentence over max_chars by pieces of it)."""
    out: list[Span] = []
    for p_start, p_end in _split(text, start, end, _PARAGRAPH_BREAK):
        if p_end - p_start <= max_chars:
            out.append((p_start, p_end))
            continue
        for s_start, s_end in _split(text, p_start, p_end, _SENTENCE_END):
            if s_end - s_start <= max_chars:
                out.append((s_start, s_end))
            else:
                out.extend(_hard_split(text, s_start, s_end, max_chars))
    return out


def _pack(pieces: list[Span], target_chars: int, max_chars: int) -> list[Span]:
    """Consecutive pieces joined while the chunk stays within target_chars; a tiny last chunk
    (under a quarter of the target) joins the one before if that stays within max_chars."""
    chunks: list[Span] = []
    for start, end in pieces:
        if chunks and end - chunks[-1][0] <= target_chars:
            chunks[-1] = (chunks[-1][0], end)
        else:
            chunks.append((start, end))
    if len(chunks) >= 2:
        (a_start, _), (b_start, b_end) = chunks[-2], chunks[-1]
        if b_end - b_start < target_chars / 4 and b_end - a_start <= max_chars:
            chunks[-2:] = [(a_start, b_end)]
    return chunks


def chunk(
    doc: Document,
    *,
    target_chars: int = DEFAULT_TARGET_CHARS,
    max_chars: int = DEFAULT_MAX_CHARS,
) -> list[Chunk]:
    """The document's chunks in order, each within one section and at most max_chars long.

    target_chars is the size chunks are packed up to (a single paragraph may exceed it up to
    max_chars rather than be cut). Raises ValueError for target_chars under 50 or max_chars
    under target_chars."""
    if target_chars < MIN_TARGET_CHARS:
        raise ValueError(f"target_chars must be at least {MIN_TARGET_CHARS}, not {target_chars}")
    if max_chars < target_chars:
        raise ValueError(f"max_chars ({max_chars}) must be at least target_chars ({target_chars})")
    chunks: list[Chunk] = []
    text = doc.text
    for section in doc.sections:
        pieces = _pieces(text, section.start, section.end, max_chars)
        for start, end in _pack(pieces, target_chars, max_chars):
            chunks.append(Chunk(len(chunks), text[start:end], section.heading_path, start, end))
    return chunks
