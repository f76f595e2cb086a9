"""Documents in the Python client: ingest, list and delete them, and search, which reads
memories and documents alike.

graphmem stores documents (files, web pages, inline text, cut into chunks) in the same memory as
memories, so `m.search(...)` can return both. This module adds to graphmem.client.ops what
documents need, written the same way (generators yielding backend `Call`s, so the embedded
and the remote client check the same arguments and return the same shapes), and the document
methods themselves, as mixins of graphmem.client's two classes.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from graphmem.client.ops import (
    SEARCH_FILTERS,
    Call,
    Op,
    R,
    check_text,
    item,
    merged_filters,
    resolve_user,
)
from graphmem.domain.validation import check_interface_top_k, kinds_argument, parse_kind_weights
from graphmem.errors import InvalidInputError

# Restated, not imported, like ops.py's limits: a remote client must not load the server's
# document readers. The same as graphmem.mcp.tools.documents.
FORMATS = ("markdown", "text", "html")
MAX_INLINE_CHARS = 2_000_000
MAX_SOURCES = 50  # the most one document_ingest call takes; the remote backend sends batches


# ------------------------------------------------------------------ arguments


def search_kinds(kinds: Any, kind_weights: Any) -> dict[str, Any]:
    """The search arguments `kinds` and `kind_weights` that were given, checked by the rules
    every interface shares (graphmem.domain.validation), in the form the MCP tool takes."""
    out: dict[str, Any] = {}
    given = kinds_argument(kinds)
    if given is not None:
        out["kinds"] = given
    weights = parse_kind_weights(kind_weights)
    if weights:
        out["kind_weights"] = weights
    return out


def _sources(value: Any) -> list[str]:
    items = [value] if isinstance(value, (str, os.PathLike)) else value
    if not isinstance(items, (list, tuple)) or not items:
        raise InvalidInputError(
            "sources", "give a file, folder or http(s) URL, or a non-empty list of them"
        )
    out = []
    for i, src in enumerate(items):
        text = os.fspath(src) if isinstance(src, os.PathLike) else src
        if not isinstance(text, str) or not text.strip():
            raise InvalidInputError(f"sources[{i}]", "must be a non-empty path or URL string")
        out.append(text)
    return out


def _library(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError("library", "must be a non-empty string (a library's name)")
    return value


def _flag(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidInputError(name, "must be True or False")
    return value


# ------------------------------------------------------------------ results


def hit_fields(rec: Mapping[str, Any]) -> dict[str, Any]:
    """A search hit's kind and, for a document chunk, where it came from: `document`
    {source, title, headings, start, end} and, for a shared library's chunk, `library`.
    Built from the chunk's metadata when the backend did not report it (the embedded
    service), so both backends give the same shape."""
    kind = rec.get("kind") or "memory"
    if kind != "document":
        return {"kind": kind, "document": None, "library": None}
    md = rec.get("metadata") or {}
    given = rec.get("document") or {}
    doc = {
        "source": str(given.get("source", md.get("doc_uri", ""))),
        "title": str(given.get("title", md.get("doc_title", ""))),
        "headings": [str(h) for h in given.get("headings", md.get("doc_headings")) or []],
        "start": int(given.get("start", md.get("doc_start", 0))),
        "end": int(given.get("end", md.get("doc_end", 0))),
    }
    owner = str(rec.get("user_id") or "")
    from graphmem.usecases.libraries import name_of  # the client imports no store on open

    library = rec.get("library") or name_of(owner)
    out: dict[str, Any] = {"kind": kind, "document": doc, "library": library}
    if library:
        out["user_id"] = f"library:{library}"  # the owner of the chunk, on both backends
    return out


OUTCOME_KEYS = (
    "source",
    "action",
    "title",
    "chunks",
    "quarantined",
    "rejected",
    "superseded",
    "duplicate_of",
    "error",
    "ocr_pages",
    "note",
)
_COUNTS = ("chunks", "quarantined", "rejected", "superseded", "ocr_pages")


_TOTALS = ("documents", "chunks", "skipped", "failed", "ocr_pages")


def report(rec: Mapping[str, Any]) -> dict[str, Any]:
    """An ingest report with every outcome's keys present on both backends (a text key the
    backend left out, or sent empty, is None; a count is 0)."""
    outcomes = []
    for o in rec.get("outcomes") or []:
        one = {k: o.get(k) or None for k in OUTCOME_KEYS}
        one.update({k: int(o.get(k) or 0) for k in _COUNTS})
        outcomes.append(one)
    return {
        "dry_run": bool(rec.get("dry_run")),
        **{k: int(rec.get(k) or 0) for k in _TOTALS},
        "seconds": float(rec.get("seconds") or 0.0),
        "outcomes": outcomes,
    }


def merged_reports(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """Ingest reports of consecutive batches as one report."""
    if len(reports) == 1:
        return reports[0]
    out: dict[str, Any] = {
        "dry_run": any(r.get("dry_run") for r in reports),
        "documents": 0,
        "chunks": 0,
        "skipped": 0,
        "failed": 0,
        "ocr_pages": 0,
        "seconds": 0.0,
        "outcomes": [],
    }
    for r in reports:
        for key in _TOTALS:
            out[key] += int(r.get(key) or 0)
        out["seconds"] = round(out["seconds"] + float(r.get("seconds") or 0.0), 3)
        out["outcomes"].extend(r.get("outcomes") or [])
    return out


# ------------------------------------------------------------------ operations


def search(
    query: Any,
    *,
    user_id: str | None,
    agent_id: str | None,
    run_id: str | None,
    filters: Any,
    top_k: Any,
    kinds: Any = None,
    kind_weights: Any = None,
) -> Op[dict[str, Any]]:
    """The best hits, memories and document chunks: items with `kind`, `document` and
    `library` (hit_fields) on top of ops.item's keys."""
    ident = yield Call("identity")
    user = resolve_user(user_id, ident)
    query = check_text(query, "query")
    top_k = check_interface_top_k(top_k)
    where = {
        **merged_filters(filters, SEARCH_FILTERS, agent_id, run_id),
        **search_kinds(kinds, kind_weights),
    }
    hits = yield Call("search", {"user_id": user, "query": query, "top_k": top_k, "filters": where})
    return {"results": [{**item(h, user), **hit_fields(h)} for h in hits]}


def ingest(sources: Any, *, user_id: str | None, library: Any, dry_run: Any) -> Op[dict[str, Any]]:
    ident = yield Call("identity")
    user = resolve_user(user_id, ident)
    args = {
        "user_id": user,
        "sources": _sources(sources),
        "library": _library(library),
        "dry_run": _flag(dry_run, "dry_run"),
    }
    return report((yield Call("ingest", args)))


def ingest_text(
    text: Any,
    *,
    name: Any,
    format: Any,  # noqa: A002 - the MCP tool's name for it
    user_id: str | None,
    library: Any,
    dry_run: Any,
) -> Op[dict[str, Any]]:
    ident = yield Call("identity")
    user = resolve_user(user_id, ident)
    if not isinstance(text, str) or not text.strip():
        raise InvalidInputError("text", "must be a non-empty string: the document's text")
    if len(text) > MAX_INLINE_CHARS:
        raise InvalidInputError(
            "text",
            f"is {len(text)} characters; at most {MAX_INLINE_CHARS} (split it, or ingest a file)",
        )
    if not isinstance(name, str) or not name.strip() or len(name) > 512:
        raise InvalidInputError(
            "name",
            "must be a non-empty string of at most 512 characters: the document's title"
            " or URL (ingesting the same name again replaces that document)",
        )
    if format not in FORMATS:
        raise InvalidInputError("format", f"must be one of {', '.join(FORMATS)}")
    args = {
        "user_id": user,
        "text": text,
        "name": name,
        "format": format,
        "library": _library(library),
        "dry_run": _flag(dry_run, "dry_run"),
    }
    return report((yield Call("ingest_text", args)))


def documents(*, user_id: str | None, library: Any) -> Op[list[dict[str, Any]]]:
    ident = yield Call("identity")
    user = resolve_user(user_id, ident)
    docs = yield Call("documents", {"user_id": user, "library": _library(library)})
    return [dict(d) for d in docs]


def delete_document(source: Any, *, user_id: str | None, library: Any) -> Op[dict[str, Any]]:
    ident = yield Call("identity")
    user = resolve_user(user_id, ident)
    if isinstance(source, os.PathLike):
        source = os.fspath(source)
    if not isinstance(source, str) or not source.strip():
        raise InvalidInputError("source", "must be the path, URL or name the document came from")
    args = {"user_id": user, "source": source, "library": _library(library)}
    deleted = list((yield Call("delete_document", args)))
    return {"deleted": deleted, "count": len(deleted)}


# ------------------------------------------------------------------ client methods


class DocumentMethods:
    """The document methods of graphmem.client.MemoryClient (see docs/python.md)."""

    def _run(self, op: Op[R]) -> R:
        raise NotImplementedError

    def ingest(
        self,
        sources: str | os.PathLike[str] | list[str | os.PathLike[str]],
        *,
        user_id: str | None = None,
        library: str | None = None,
        dry_run: bool = False,
    ) -> dict[str, Any]:
        """Store files, folders (every .md, .txt, .html, .pdf under them) and http(s) URLs as
        documents; an unchanged one is skipped, a changed one replaces its chunks. Remote,
        paths are the server's and need an operator token."""
        return self._run(ingest(sources, user_id=user_id, library=library, dry_run=dry_run))

    def ingest_text(
        self,
        text: str,
        *,
        name: str,
        format: str = "markdown",  # noqa: A002
        user_id: str | None = None,
        library: str | None = None,
        dry_run: bool = False,
    ) -> dict[str, Any]:
        """Store text in hand as a document known by `name` (its title or URL)."""
        return self._run(
            ingest_text(
                text,
                name=name,
                format=format,
                user_id=user_id,
                library=library,
                dry_run=dry_run,
            )
        )

    def documents(
        self, *, user_id: str | None = None, library: str | None = None
    ) -> list[dict[str, Any]]:
        """The stored documents, one dict per source."""
        return self._run(documents(user_id=user_id, library=library))

    def delete_document(
        self, source: str, *, user_id: str | None = None, library: str | None = None
    ) -> dict[str, Any]:
        """Delete a document, by the source it was ingested from, with its history."""
        return self._run(delete_document(source, user_id=user_id, library=library))


class AsyncDocumentMethods:
    """DocumentMethods as coroutines, for graphmem.client.AsyncMemoryClient."""

    async def _run(self, op: Op[R]) -> R:
        raise NotImplementedError

    async def ingest(
        self,
        sources: str | os.PathLike[str] | list[str | os.PathLike[str]],
        *,
        user_id: str | None = None,
        library: str | None = None,
        dry_run: bool = False,
    ) -> dict[str, Any]:
        return await self._run(ingest(sources, user_id=user_id, library=library, dry_run=dry_run))

    async def ingest_text(
        self,
        text: str,
        *,
        name: str,
        format: str = "markdown",  # noqa: A002
        user_id: str | None = None,
        library: str | None = None,
        dry_run: bool = False,
    ) -> dict[str, Any]:
        return await self._run(
            ingest_text(
                text,
                name=name,
                format=format,
                user_id=user_id,
                library=library,
                dry_run=dry_run,
            )
        )

    async def documents(
        self, *, user_id: str | None = None, library: str | None = None
    ) -> list[dict[str, Any]]:
        return await self._run(documents(user_id=user_id, library=library))

    async def delete_document(
        self, source: str, *, user_id: str | None = None, library: str | None = None
    ) -> dict[str, Any]:
        return await self._run(delete_document(source, user_id=user_id, library=library))


__all__ = [
    "AsyncDocumentMethods",
    "DocumentMethods",
    "delete_document",
    "documents",
    "hit_fields",
    "ingest",
    "ingest_text",
    "merged_reports",
    "report",
    "search",
    "search_kinds",
]
