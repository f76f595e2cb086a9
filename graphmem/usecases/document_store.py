"""Storing one ingested document: screen its chunks, embed and extract them, commit them.

Kept apart from graphmem.usecases.documents (reading sources, deciding what a source's
document needs: added, unchanged, duplicate, replaced) so each stays readable; this half is
what a trace of an ingest shows step by step (`graphmem.ingest.screen`, `.embed`, `.commit`,
`.project`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from graphmem.documents import Chunk, Document
from graphmem.domain import lifecycle
from graphmem.domain.actor import audit_by
from graphmem.domain.model import Kind, Memory, MemoryType, Source, Status, new_id, utcnow
from graphmem.domain.summary import summarize
from graphmem.domain.temporal import Supersession
from graphmem.domain.text import search_text
from graphmem.guard import WriteDecision
from graphmem.infra import workers
from graphmem.infra.tracing import span
from graphmem.usecases.ports import WritePorts
from graphmem.usecases.write import seal

EMBED_BATCH = 64
"""Chunks embedded per model call: a 500-page PDF is embedded in steps, then written at once."""


@dataclass
class DocumentOutcome:
    """What ingesting one source did. `action`: added, replaced, unchanged, duplicate,
    failed, checkpointed (done by an earlier run of the same batch), or in a dry run
    would_add / would_replace. `ocr_pages`: PDF pages without a text layer read by OCR;
    `note`: pages left empty and why (Tesseract missing, OCR off, an image over a limit)."""

    source: str
    action: str
    title: str = ""
    chunks: int = 0
    quarantined: int = 0
    rejected: int = 0
    superseded: int = 0
    duplicate_of: str | None = None
    error: str | None = None
    ocr_pages: int = 0
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Set fields only; ocr_pages only for a PDF with scanned pages (most have none)."""
        unset = {k for k in ("ocr_pages",) if not getattr(self, k)}
        return {k: v for k, v in asdict(self).items() if v not in (None, "") and k not in unset}


def chunk_content(doc: Document, piece: Chunk) -> str:
    """A chunk as stored: its title and heading path on the first line, then its text. The
    heading line is what lets a chunk that says only "Founded in 1998." be found by the name
    of what was founded, by keyword and by meaning."""
    trail = [doc.title] if doc.title else []
    trail += [h for h in piece.heading_path if h and h != doc.title]
    return f"{' › '.join(trail)}\n{piece.text}" if trail else piece.text


def store(
    ctx: WritePorts,
    owner: str,
    doc: Document,
    pieces: list[Chunk],
    current: list[Memory],
    outcome: DocumentOutcome,
    tool: str | None,
) -> None:
    """Screen every chunk, embed and extract them in batches, then commit the document in one
    records transaction that also supersedes its old chunks: recall never sees old and new
    together, and a crash never leaves half a document that a re-run would take for whole."""
    now = utcnow()
    memories: list[Memory] = []
    decisions: list[WriteDecision] = []
    with span("graphmem.ingest.screen", chunks=len(pieces)) as step:
        for piece in pieces:
            got = _screened(ctx, owner, doc, piece, now)
            if got is None:
                outcome.rejected += 1
                continue
            m, decision = got
            outcome.quarantined += m.status == Status.QUARANTINED
            memories.append(m)
            decisions.append(decision)
        step.set(rejected=outcome.rejected, quarantined=outcome.quarantined)
    if not memories:
        outcome.action, outcome.superseded = "failed", 0
        outcome.error = "the memory firewall refused every chunk; nothing was stored"
        return
    texts = [m.content for m in memories]
    vecs_parts, extractions = [], []
    with span("graphmem.ingest.embed", texts=len(texts)):  # and extract, beside it
        for start in range(0, len(texts), EMBED_BATCH):
            batch = texts[start : start + EMBED_BATCH]
            pending = workers.pool("embed").submit(ctx.embedder.encode, batch)
            try:
                extractions.extend(ctx.extractor.extract_many(batch))
            finally:
                vecs_parts.append(pending.result())
    vecs = np.concatenate(vecs_parts)
    supersede = [
        Supersession(m.id, memories[min(i, len(memories) - 1)].id, now)
        for i, m in enumerate(current)
    ]
    secrets = seal(ctx, owner, memories, decisions)
    with ctx.serialised(owner):
        with span("graphmem.ingest.commit", memories=len(memories), superseded=len(supersede)):
            graph = ctx.linker.link(owner, memories, extractions)
            texts_indexed = [search_text(t) for t in texts]
            ctx.records.insert(memories, texts_indexed, graph, supersede, secrets)
        with span("graphmem.ingest.project", memories=len(memories)):
            ctx.project(memories, vecs)
            if supersede:
                ctx.projector.apply(ctx.records.outbox_for([x.old_id for x in supersede]))
        ctx.invalidate(owner)
    ids = [m.id for m in memories]
    outcome.chunks = len(ids)
    # Content-free, like every audit row: counts and ids, never the text or the source.
    ctx.records.audit(
        owner,
        "ingest",
        ids,
        {
            "count": len(ids),
            "tool": tool,
            "action": outcome.action,
            "quarantined": outcome.quarantined,
            "rejected": outcome.rejected,
            "superseded": outcome.superseded,
            **audit_by(),
        },
    )


def _screened(
    ctx: WritePorts, owner: str, doc: Document, piece: Chunk, now: Any
) -> tuple[Memory, WriteDecision] | None:
    """The chunk as a record, screened like any `source=document` write; None if refused."""
    # The text a page author wrote is screened (content, title, headings); the fields graphmem
    # computed (hashes, offsets, the source) are not: a hex digest is no instruction, and the
    # classifier was not trained on them.
    written: dict[str, Any] = {"doc_title": doc.title, "doc_headings": list(piece.heading_path)}
    content = chunk_content(doc, piece)
    decision = ctx.guard.screen_write(content, Source.DOCUMENT.value, written)
    if decision.status is None:
        return None
    metadata: dict[str, Any] = {
        "doc_uri": doc.uri,
        **(decision.metadata_after_masking or written),
        "doc_format": doc.format,
        "doc_hash": doc.content_hash,
        "doc_start": piece.start,
        "doc_end": piece.end,
        "chunk_index": piece.index,
        "chunk_hash": piece.content_hash,
    }
    m = Memory(
        id=new_id(),
        user_id=owner,
        content=decision.content_after_masking,
        memory_type=MemoryType.FACT,
        # from the screened text, so a vaulted secret is not left in clear in the summary
        summary=summarize(_body(decision.content_after_masking, content != piece.text)),
        source=Source.DOCUMENT,
        metadata=metadata,
        status=Status(decision.status),
        created_at=now,
        updated_at=now,
        valid_from=now,
        kind=Kind.DOCUMENT,
    )
    m.decay_score = lifecycle.decay_score(m, now, ctx.settings)
    return m, decision


def _body(screened: str, has_trail: bool) -> str:
    """The screened chunk without its heading line (chunk_content puts one first)."""
    return screened.split("\n", 1)[1] if has_trail and "\n" in screened else screened
