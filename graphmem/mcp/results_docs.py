"""The result shapes of the document tools (graphmem.mcp.tools.documents)."""

from pydantic import Field

from graphmem.mcp.results import Result, Sometimes


class DocumentOutcome(Result):
    source: str = Field(description="The file, URL or name the document was read from.")
    action: str = Field(
        description="added, replaced, unchanged (same text: skipped), duplicate (the same text"
        " is stored under another source), failed, checkpointed, or in a dry run would_add /"
        " would_replace."
    )
    title: Sometimes[str] = Field(None, description="The document's title.")
    chunks: int = Field(0, description="Chunks written (or, in a dry run, that would be).")
    quarantined: int = Field(0, description="Chunks held for review: never recalled.")
    rejected: int = Field(0, description="Chunks the firewall refused: not stored.")
    superseded: int = Field(0, description="Old chunks a changed document replaced.")
    duplicate_of: Sometimes[str] = Field(None, description="The source holding the same text.")
    error: Sometimes[str] = Field(None, description="Why it failed.")
    ocr_pages: int = Field(0, description="PDF pages without a text layer read by OCR.")
    note: Sometimes[str] = Field(
        None, description="Pages left empty and why (no Tesseract, OCR off, over a limit)."
    )


class IngestResult(Result):
    dry_run: bool = Field(description="True if nothing was stored.")
    documents: int = Field(description="Documents stored (added or replaced).")
    chunks: int = Field(description="Chunks written.")
    skipped: int = Field(description="Documents skipped (unchanged, duplicate, checkpointed).")
    failed: int = Field(description="Documents that could not be read or stored.")
    ocr_pages: int = Field(0, description="Scanned PDF pages read by OCR, all documents.")
    seconds: float = Field(description="How long the ingest took.")
    outcomes: list[DocumentOutcome] = Field(description="One per document, in order.")


class DocumentEntry(Result):
    source: str = Field(description="What it was ingested from (path, URL or name).")
    title: str = Field(description="Its title.")
    chunks: int = Field(description="Its current chunks.")
    quarantined: int = Field(description="Of which held for review.")
    content_hash: str = Field(description="SHA-256 of its text.")
    ingested_at: str = Field(description="ISO-8601: when this version was stored.")


class DocumentList(Result):
    documents: list[DocumentEntry] = Field(description="By source.")
    count: int = Field(description="How many documents.")


class DocumentDeleteResult(Result):
    deleted: list[str] = Field(description="The ids of the chunks deleted, history included.")
    count: int = Field(description="How many.")
