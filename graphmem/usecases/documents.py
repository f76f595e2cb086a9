"""Documents in the memory: ingest files, folders and URLs as records of kind=document.

A chunk of a document is a record like a memory: the same records row, keyword postings,
embedding model, vector index and entity graph, so one search recalls both and a chunk that
names "Huadong hospital group" links to the user's memories that name it. What differs:

* a chunk is screened by the firewall as `source=document` (web pages and wiki edits are
  untrusted), and a quarantined chunk never surfaces, like a quarantined memory;
* chunks are never merged, superseded by a memory or archived by decay; a document changes
  only when it is ingested again: the same text (content hash) is skipped, a changed text
  supersedes every old chunk (kept as history, out of recall) with the new ones;
* the same text under another source is stored once: the later source is reported as a
  duplicate of the first.

Owner: a user (private documents) or a shared library (graphmem.usecases.libraries), whose
tenant id the caller passes as `owner`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.request import OpenerDirector

from graphmem.documents import Chunk, Document, DocumentError, chunk, discover, load_path, load_url
from graphmem.documents.scanned import PageOcr
from graphmem.domain.filters import MemoryFilter, MetaCondition
from graphmem.domain.model import Kind, Memory, Status, check_user
from graphmem.errors import DocumentNotFoundError, InvalidInputError
from graphmem.infra.tracing import span
from graphmem.stores.records import RecordQuery
from graphmem.usecases.document_store import (  # chunk_content: the bench takes it from here
    DocumentOutcome,
    chunk_content,  # noqa: F401
    store,
)
from graphmem.usecases.ports import ChangePorts, RecordsPorts, WritePorts

log = logging.getLogger("graphmem.documents")

# The states a document's current chunks can be in: what "already ingested" means.
_CURRENT = (Status.ACTIVE.value, Status.QUARANTINED.value)
_EVERY = (*_CURRENT, Status.ARCHIVED.value, Status.SUPERSEDED.value)


@dataclass
class IngestReport:
    owner: str
    dry_run: bool = False
    outcomes: list[DocumentOutcome] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def documents(self) -> int:
        """Documents stored by this run (added or replaced)."""
        return sum(o.action in ("added", "replaced") for o in self.outcomes)

    @property
    def chunks(self) -> int:
        """Chunks written by this run (or, in a dry run, that would be)."""
        return sum(o.chunks for o in self.outcomes if o.action not in ("unchanged", "duplicate"))

    @property
    def skipped(self) -> int:
        return sum(o.action in ("unchanged", "duplicate", "checkpointed") for o in self.outcomes)

    @property
    def failed(self) -> int:
        return sum(o.action == "failed" for o in self.outcomes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "documents": self.documents,
            "chunks": self.chunks,
            "skipped": self.skipped,
            "failed": self.failed,
            "ocr_pages": sum(o.ocr_pages for o in self.outcomes),  # scanned pages read
            "seconds": round(self.seconds, 3),
            "outcomes": [o.to_dict() for o in self.outcomes],
        }


Progress = Callable[[int, int, DocumentOutcome], None]


def is_url(source: str) -> bool:
    return source.startswith(("http://", "https://"))


DocumentSource = str | Path | Document
"""A path (file or folder), an http(s) URL, or a document already read (e.g. text an MCP
client sent inline: graphmem.documents.load_bytes)."""


def expand(sources: Iterable[DocumentSource]) -> list[str | Document]:
    """Every document a list of sources names: URLs as given, files as absolute paths,
    folders as the supported files under them; each once, in order. A source that is
    neither raises DocumentError before anything is ingested."""
    out: list[str | Document] = []
    for src in sources:
        if isinstance(src, Document):
            out.append(src)
            continue
        text = str(src).strip()
        if not text:
            raise DocumentError("source", "an empty source was given")
        if is_url(text):
            out.append(text)
            continue
        path = Path(text).expanduser()
        if path.is_dir():
            out.extend(str(p.resolve()) for p in discover(path))
        elif path.exists():
            out.append(str(path.resolve()))
        elif "://" in text:
            raise DocumentError("source", f"{text[:200]}: only http and https URLs are read")
        else:
            raise DocumentError("source", f"{text[:200]}: no such file or folder")
    seen: set[str] = set()
    unique: list[str | Document] = []
    for item in out:
        key = item.uri if isinstance(item, Document) else item
        if key not in seen:
            seen.add(key)
            unique.append(item)
    return unique


def load(
    source: str | Document, opener: OpenerDirector | None = None, ocr: PageOcr | None = None
) -> Document:
    """The document a source names; with `ocr`, a PDF's pages without a text layer are read
    by OCR (a scanned contract is searchable, not stored empty)."""
    if isinstance(source, Document):
        return source
    if is_url(source):
        return load_url(source, opener=opener, ocr=ocr)
    return load_path(source, ocr=ocr)


def document_filter(uri: str | None = None, content_hash: str | None = None) -> MemoryFilter:
    conds = []
    if uri is not None:
        conds.append(MetaCondition("doc_uri", (uri,)))
    if content_hash is not None:
        conds.append(MetaCondition("doc_hash", (content_hash,)))
    return MemoryFilter(kinds=(Kind.DOCUMENT.value,), metadata=tuple(conds))


def chunks_of(
    ctx: RecordsPorts,
    owner: str,
    *,
    uri: str | None = None,
    content_hash: str | None = None,
    statuses: tuple[str, ...] = _CURRENT,
) -> list[Memory]:
    """The owner's chunks of one document (by source or by content hash), in chunk order."""
    rows = ctx.records.list(
        RecordQuery(owner, None, statuses, None, filter=document_filter(uri, content_hash))
    )
    return sorted(rows, key=lambda m: (m.metadata.get("chunk_index", 0), m.created_at))


def ingest(
    ctx: WritePorts,
    owner: str,
    sources: Iterable[DocumentSource] | DocumentSource,
    *,
    dry_run: bool = False,
    progress: Progress | None = None,
    checkpoint: Path | None = None,
    target_chars: int | None = None,
    max_chars: int | None = None,
    tool: str | None = None,
    opener: OpenerDirector | None = None,
) -> IngestReport:
    """Ingest every source for `owner`. One document failing (unreadable, empty, refused by
    the firewall) is reported and the batch goes on; each document is committed on its own,
    so a batch stopped half-way keeps what it finished. With `checkpoint`, documents finished
    by an earlier run of the same batch are skipped without being read again, and the file
    is removed when the batch completes. `opener` fetches the URLs (graphmem.documents.fetch)."""
    owner = check_user(owner)
    started = time.perf_counter()
    items = expand([sources] if isinstance(sources, (str, Path, Document)) else sources)
    report = IngestReport(owner, dry_run)
    done = _open_checkpoint(checkpoint, owner, items) if checkpoint and not dry_run else set()
    for i, item in enumerate(items, 1):
        source = item.uri if isinstance(item, Document) else item
        if _mark(source) in done:
            outcome = DocumentOutcome(source, "checkpointed")
        else:
            # one trace per document: a batch of a thousand files is a thousand short traces
            with span("graphmem.ingest.document", user=owner, dry_run=dry_run) as step:
                outcome = _ingest_one(
                    ctx, owner, item, dry_run, (target_chars, max_chars), tool, opener
                )
                step.set(action=outcome.action, chunks=outcome.chunks)
            if checkpoint and not dry_run and outcome.action != "failed":
                _check_off(checkpoint, _mark(source))
        report.outcomes.append(outcome)
        if progress is not None:
            progress(i, len(items), outcome)
    if checkpoint and not dry_run and report.failed == 0:
        checkpoint.unlink(missing_ok=True)
    report.seconds = time.perf_counter() - started
    return report


def _ingest_one(
    ctx: WritePorts,
    owner: str,
    source: str | Document,
    dry_run: bool,
    sizes: tuple[int | None, int | None],
    tool: str | None,
    opener: OpenerDirector | None,
) -> DocumentOutcome:
    try:
        doc = load(source, opener, PageOcr.of(ctx.settings.images))
        pieces = _chunks(ctx, doc, *sizes)
    except InvalidInputError as e:
        uri = source.uri if isinstance(source, Document) else source
        return DocumentOutcome(uri, "failed", error=e.message)
    outcome = DocumentOutcome(doc.uri, "added", title=doc.title, chunks=len(pieces))
    outcome.ocr_pages, outcome.note = doc.ocr_pages, "; ".join(doc.notes) or None
    current = chunks_of(ctx, owner, uri=doc.uri)
    if current and all(m.metadata.get("doc_hash") == doc.content_hash for m in current):
        outcome.action, outcome.chunks = "unchanged", 0
        return outcome
    mine = {m.id for m in current}
    same = [m for m in chunks_of(ctx, owner, content_hash=doc.content_hash) if m.id not in mine]
    if same:
        outcome.action, outcome.chunks = "duplicate", 0
        outcome.duplicate_of = str(same[0].metadata.get("doc_uri"))
        return outcome
    if current:
        outcome.action, outcome.superseded = "replaced", len(current)
    if dry_run:
        outcome.action = "would_replace" if current else "would_add"
        return outcome
    store(ctx, owner, doc, pieces, current, outcome, tool)
    return outcome


def _chunks(ctx: RecordsPorts, doc: Document, target: int | None, most: int | None) -> list[Chunk]:
    s = ctx.settings
    pieces = chunk(
        doc,
        target_chars=target or s.documents.chunk_chars,
        max_chars=most or s.documents.chunk_max_chars,
    )
    if not pieces:
        raise DocumentError("source", f"{doc.uri[:200]}: has no text to store")
    return pieces


def delete_document(ctx: ChangePorts, owner: str, uri: str) -> list[str]:
    """Delete one document (by the source it was ingested from) from every store: its
    chunks, their history, vectors, graph nodes and edges, entity links and keyword postings.
    Returns the chunk ids deleted; NotFound is the caller's to raise on an empty list."""
    from graphmem.usecases.update import forget

    owner = check_user(owner)
    ids = [m.id for m in chunks_of(ctx, owner, uri=uri, statuses=_EVERY)]
    if not ids and not is_url(uri):  # a path as typed: ./a.md was stored as /home/u/a.md
        key = str(Path(uri).expanduser().resolve())
        ids = [m.id for m in chunks_of(ctx, owner, uri=key, statuses=_EVERY)]
    return forget(ctx, owner, ids, reason="delete_document") if ids else []


def delete_named(ctx: ChangePorts, owner: str, uri: str) -> list[str]:
    """`delete_document`, for a caller that named the document: DocumentNotFoundError when
    `owner` has none from `uri`."""
    deleted = delete_document(ctx, owner, uri)
    if not deleted:
        raise DocumentNotFoundError(uri)
    return deleted


def list_documents(ctx: RecordsPorts, owner: str) -> list[dict[str, Any]]:
    """The owner's current documents: source, title, chunks, quarantined chunks, hash."""
    docs: dict[str, dict[str, Any]] = {}
    rows = ctx.records.list(
        RecordQuery(owner, None, _CURRENT, None, filter=MemoryFilter(kinds=(Kind.DOCUMENT.value,)))
    )
    for m in rows:
        uri = str(m.metadata.get("doc_uri", ""))
        d = docs.setdefault(
            uri,
            {
                "source": uri,
                "title": m.metadata.get("doc_title", ""),
                "chunks": 0,
                "quarantined": 0,
                "content_hash": m.metadata.get("doc_hash", ""),
                "ingested_at": m.created_at.isoformat(),
            },
        )
        d["chunks"] += 1
        d["quarantined"] += m.status == Status.QUARANTINED
    return sorted(docs.values(), key=lambda d: d["source"])


# ------------------------------------------------------------------ checkpoints


def checkpoint_path(data_dir: Path, owner: str, sources: Iterable[str | Path]) -> Path:
    """Where a batch keeps its checkpoint: one file per (owner, sources) under the data
    directory, so rerunning the same command resumes it."""
    key = hashlib.sha256(
        json.dumps([owner, [str(s) for s in sources]], ensure_ascii=False).encode()
    ).hexdigest()[:24]
    return data_dir / "ingest" / f"{key}.json"


def _mark(source: str) -> str:
    """A source as a checkpoint holds it: hashed, so no file name or URL of a user's documents
    is left on disk by a batch that stopped (an erasure looks for such text)."""
    return hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()


def _batch_key(owner: str, items: list[str | Document]) -> str:
    keys = [i.uri if isinstance(i, Document) else i for i in items]
    return hashlib.sha256(json.dumps([owner, keys], ensure_ascii=False).encode()).hexdigest()


def _open_checkpoint(path: Path, owner: str, items: list[str | Document]) -> set[str]:
    """The sources an earlier run of this batch finished; a checkpoint of another batch (or
    of this folder before it changed) is started afresh (content hashes still skip what is
    stored). One line per finished document is appended, so a batch of n documents writes
    n lines, not n rewrites of a growing file."""
    batch = _batch_key(owner, items)
    try:
        lines = path.read_text("utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        lines = []
    if lines and lines[0] == batch:
        return {ln for ln in lines[1:] if len(ln) == 64}  # a torn last line is ignored
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.write_text(batch + "\n", "utf-8")
    return set()


def _check_off(path: Path, mark: str) -> None:
    with path.open("a", encoding="utf-8") as f:
        f.write(mark + "\n")
