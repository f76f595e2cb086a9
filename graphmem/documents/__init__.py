"""Documents (Markdown, plain text, HTML, a PDF's text layer or OCR) turned into text and chunks.

Ingested documents live in the same memory as what users tell graphmem: each chunk becomes a
record of kind=document, recalled next to user memories and filed under its document and
headings. This package does only the first half of that: it reads a file, a folder or a URL
into a `Document` (normalised text and its heading sections) and cuts it into `Chunk`s. It
never touches a store, so it can be tested, and reused, on its own; storing the chunks is the
ingest use case's job.
"""

from graphmem.documents.chunking import (
    DEFAULT_MAX_CHARS,
    DEFAULT_TARGET_CHARS,
    Chunk,
    chunk,
)
from graphmem.documents.fetch import discover, load_url
from graphmem.documents.scanned import PageOcr
from graphmem.documents.sources import (
    SUPPORTED_SUFFIXES,
    Document,
    DocumentError,
    Section,
    load_bytes,
    load_path,
)

__all__ = [
    "DEFAULT_MAX_CHARS",
    "DEFAULT_TARGET_CHARS",
    "SUPPORTED_SUFFIXES",
    "Chunk",
    "Document",
    "DocumentError",
    "PageOcr",
    "Section",
    "chunk",
    "discover",
    "load_bytes",
    "load_path",
    "load_url",
]
