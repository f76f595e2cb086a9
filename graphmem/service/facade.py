"""MemoryService: the single entry point that the CLI, the MCP server and the benchmarks call.

Every method hands the service's `Context` (graphmem.service.context, opened by
graphmem.service.build) to one use-case (graphmem.usecases), which takes it as the port it
uses (graphmem.usecases.ports); interfaces call these methods, never the context. Writes
validate everything first, embed, extract entities and relations, commit rows, entities,
relations and outbox entries in one records transaction, then project to the vector index
and the graph; a projection failure delays a projection but never loses or half-writes one.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.request import OpenerDirector

from graphmem.domain.actor import CLI, Actor
from graphmem.domain.model import Memory, check_user
from graphmem.domain.requests import (
    ListRequest,
    MemoryPage,
    SearchOptions,
    SearchRequest,
    SearchResult,
    WriteItem,
)
from graphmem.domain.visibility import Viewer
from graphmem.embedding import Embedder
from graphmem.extractors import Extractor
from graphmem.guard import Guard
from graphmem.infra.metrics import LatencyRecorder
from graphmem.service import levels
from graphmem.service.build import build_context, ready
from graphmem.service.context import AccessTracker, Context, FromContext, Purger, WithContext
from graphmem.service.jobs import Jobs
from graphmem.settings import Settings
from graphmem.stores import GraphStore, RecordsStore, ResultCache, VectorStore
from graphmem.stores.records import Relation
from graphmem.usecases import backfill, documents, export_mcp, images, libraries, preload, turns
from graphmem.usecases import compact as compacting
from graphmem.usecases import compare as comparing
from graphmem.usecases import erase as erasing
from graphmem.usecases import export_v1 as exporting
from graphmem.usecases import graph as graphing
from graphmem.usecases import imports as importing
from graphmem.usecases import read as reading
from graphmem.usecases import reveal as revealing
from graphmem.usecases import review as reviewing
from graphmem.usecases import search as searching
from graphmem.usecases import update as updating
from graphmem.usecases import write as writing
from graphmem.usecases.compact import CompactionReport
from graphmem.usecases.documents import DocumentSource, IngestReport, Progress
from graphmem.usecases.erase import ErasureReceipt

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing's own from Python 3.12


class MemoryService:
    def __init__(
        self,
        settings: Settings | None = None,
        *,
        records: RecordsStore | None = None,
        vectors: VectorStore | None = None,
        embedder: Embedder | None = None,
        graph: GraphStore | None = None,
        extractor: Extractor | None = None,
        cache: ResultCache | None = None,
        guard: Guard | None = None,
    ) -> None:
        self.context = ready(
            build_context(
                settings or Settings(),
                records=records,
                vectors=vectors,
                embedder=embedder,
                graph=graph,
                extractor=extractor,
                cache=cache,
                guard=guard,
            )
        )
        self.jobs = Jobs(self.context)  # started by start_background only

    # ------------------------------------------------------------------ what callers read
    settings = FromContext[Settings]("settings")
    records = FromContext[RecordsStore]("records")
    vectors = FromContext[VectorStore]("vectors")
    graph_store = FromContext[GraphStore]("graph")
    cache = FromContext[ResultCache]("cache")
    embedder = FromContext[Embedder]("embedder")
    guard = FromContext[Guard]("guard")
    access = FromContext[AccessTracker]("access")
    purgers = FromContext[dict[str, Purger]]("purgers")
    latencies_ms = FromContext[LatencyRecorder]("search_stats.latencies_ms")
    cache_hits = FromContext[int]("search_stats.cache_hits")
    cache_misses = FromContext[int]("search_stats.cache_misses")

    # ------------------------------------------------------------------ lifecycle
    def start_background(self) -> None:
        """Start the server's background jobs (graphmem.service.jobs): compaction, the outbox
        drain and, with replicas, the watch for another replica's erase."""
        self.jobs.start()

    def close(self) -> None:
        self.jobs.stop()
        self.context.close()

    def __enter__(self) -> MemoryService:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ the use-cases themselves
    # each called with the context, its arguments as they are (service.context.WithContext)
    drain_outbox = WithContext(Context.drain_outbox)
    observe = WithContext(turns.observe)  # an agent's turns: what to keep, what to forget
    working_memory = WithContext(preload.get_session)  # in the server's store, preloaded
    patch_working_memory = WithContext(preload.patch_session_preloaded)
    prepare_write = WithContext(writing.prepare)  # checked and screened, not written
    export_v1 = WithContext(exporting.export_v1)  # the open format (docs/export-format.md)
    export_mcp_memory = WithContext(export_mcp.mcp_memory_lines)
    backfill_relations = WithContext(backfill.backfill_relations)
    rebuild = WithContext(backfill.rebuild)  # the vectors and the graph, from the records
    store_health = WithContext(levels.store_health)
    report_levels = WithContext(levels.bind)  # on /metrics, read at scrape time

    # ------------------------------------------------------------------ writes
    def write(
        self,
        user_id: str,
        content: str,
        memory_type: str = "fact",
        *,
        tool: str | None = None,
        **fields: Any,
    ) -> Memory:
        """Store one memory and return it (its id is the memory id)."""
        item = WriteItem.of({**fields, "content": content, "memory_type": memory_type})
        return self.write_many(user_id, [item], tool=tool)[0]

    def write_many(
        self,
        user_id: str,
        items: builtins.list[WriteItem | Mapping[str, Any]],
        *,
        tool: str | None = None,
    ) -> builtins.list[Memory]:
        """Store a batch: all validated and screened before any is written; one transaction;
        one embed batch. `tool` names the interface calling (e.g. "memory_write") in the audit
        row; rate limits are charged by the interface, per call, before it gets here.
        """
        return writing.write_many(self.context, user_id, items, tool=tool)

    def import_from(
        self, user_id: str, fmt: str, source: str, **options: Any
    ) -> importing.ImportReport:
        """Import another memory system's export as ordinary writes (graphmem.usecases.imports:
        options dry_run, map_user, history, progress, tool)."""
        return importing.import_from(self.context, user_id, fmt, source, **options)

    def get(self, user_id: str, memory_id: str, *, viewer: Viewer = Viewer.AGENT) -> Memory:
        """One memory. An agent asking for a quarantined one gets HeldForReviewError (a
        NotFoundError that says it is pending review) instead of its content."""
        return reading.get(self.context, user_id, memory_id, viewer=viewer)

    def reveal(
        self,
        user_id: str,
        memory_id: str,
        refs: list[str] | None = None,
        *,
        viewer: Viewer = Viewer.AGENT,
        tool: str | None = None,
    ) -> dict[str, Any]:
        """A memory's vaulted secrets for its owner, audited (graphmem.usecases.reveal)."""
        return revealing.reveal(self.context, user_id, memory_id, refs, viewer=viewer, tool=tool)

    rotate_vault_key = WithContext(revealing.rotate_key)  # a new key file, data keys re-wrapped

    # a memory changed: new content screened, then re-embedded and re-indexed
    update = WithContext(updating.update)

    def forget(
        self, user_id: str, memory_ids: builtins.list[str], *, reason: str = "forget"
    ) -> builtins.list[str]:
        """Hard-delete memories from every store at once; returns the ids that existed.
        `reason` is the audit action (forget, or expire when a TTL ran out)."""
        return updating.forget(self.context, user_id, memory_ids, reason=reason)

    restore = WithContext(updating.restore)  # archived memories back into default recall
    archive = WithContext(updating.archive)  # out of default recall (include_archived finds them)

    def compact(self, **kwargs: Any) -> CompactionReport:
        """Apply the lifecycle rules over the store: see graphmem.usecases.compact.compact."""
        return compacting.compact(self.context, **kwargs)

    quarantined = WithContext(reviewing.quarantined)  # held back from recall, to review
    held_for_review = WithContext(reviewing.held_for_review)  # ... with why each was held
    hold_reasons = WithContext(reviewing.hold_reasons)  # for a write's or an update's result

    def review(
        self,
        user_id: str,
        memory_ids: builtins.list[str],
        *,
        approve: bool,
        reviewer: Actor = CLI,
    ) -> builtins.list[str]:
        """Approve (back into recall) or reject (deleted from every store) quarantined
        memories; only an operator reviews (graphmem.usecases.review)."""
        return reviewing.review(
            self.context, user_id, memory_ids, approve=approve, reviewer=reviewer
        )

    def forget_user(self, user_id: str, *, requested_by: str = "user") -> ErasureReceipt:
        """Erase everything about a user from every store; the receipt proves what is left."""
        return erasing.erase_user(self.context, user_id, requested_by)

    def forget_by_query(
        self,
        user_id: str,
        query: str,
        *,
        threshold: float | None = None,
        limit: int = 10,
        dry_run: bool = False,
    ) -> builtins.list[Memory]:
        """Delete the memories at least `threshold` similar to `query` (cosine)."""
        return updating.forget_by_query(
            self.context, user_id, query, threshold=threshold, limit=limit, dry_run=dry_run
        )

    # ------------------------------------------------------------------ reads
    def search(
        self,
        user_id: str,
        query: str,
        top_k: int = 5,
        *,
        tool: str | None = None,
        **options: Unpack[SearchOptions],
    ) -> SearchResult:
        """Hybrid recall, expanded `expand_hops` (default 2, 0 disables) over the memory graph,
        optionally only over `relation_types`; every hit carries the path that brought it.
        Current memories only, unless the query asks about the past, `as_of` (what was valid
        then) or `include_history` is given (graphmem.domain.temporal.recall_window). The options
        are SearchRequest's fields, declared once there; `tool` is accepted and unused (a
        search writes no audit row).

        Results are cached per user (keyed by every argument) until that user's next write,
        update or forget, or the cache TTL; a cached hit re-reads its memory from the records.
        """
        request = SearchRequest(query=query, top_k=top_k, **options)
        return searching.search(self.context, user_id, request)

    def search_request(self, user_id: str, request: SearchRequest) -> SearchResult:
        """`search` with its options already gathered in a SearchRequest."""
        return searching.search(self.context, user_id, request)

    def search_compared(
        self, user_id: str, request: SearchRequest
    ) -> tuple[SearchResult, SearchResult]:
        """The search, and the same query without its type and as_of filters (the inspector
        shows what a filter changes), reading each row and score once for both."""
        return comparing.with_and_without_filter(self.context, user_id, request)

    # ------------------------------------------------------------------ documents
    def ingest(
        self,
        user_id: str,
        sources: Iterable[DocumentSource] | DocumentSource,
        *,
        library: str | None = None,
        dry_run: bool = False,
        progress: Progress | None = None,
        checkpoint: Path | None = None,
        target_chars: int | None = None,
        max_chars: int | None = None,
        tool: str | None = None,
        opener: OpenerDirector | None = None,
    ) -> IngestReport:
        """Ingest files, folders (every .md, .txt, .html, .pdf under them) and http(s) URLs
        as documents of `user_id` (private), or of the shared `library`. Idempotent: an
        unchanged document is skipped by its content hash, a changed one replaces its chunks
        (the old ones kept as history). See graphmem.usecases.documents."""
        return documents.ingest(
            self.context,
            libraries.owner(user_id, library),
            sources,
            dry_run=dry_run,
            progress=progress,
            checkpoint=checkpoint,
            target_chars=target_chars,
            max_chars=max_chars,
            tool=tool,
            opener=opener,
        )

    def documents(self, user_id: str, *, library: str | None = None) -> builtins.list[dict]:
        """The current documents of the user (or of `library`), one entry per source."""
        return documents.list_documents(self.context, libraries.owner(user_id, library))

    def delete_document(
        self, user_id: str, source: str, *, library: str | None = None
    ) -> builtins.list[str]:
        """Delete a document, by the path or URL it was ingested from, from every store;
        returns the ids of the chunks deleted (history included)."""
        return documents.delete_named(self.context, libraries.owner(user_id, library), source)

    def grant_library(self, library: str, user_id: str) -> bool:
        """Let `user_id`'s searches read the documents of `library`; True if new."""
        return libraries.grant(self.context, library, check_user(user_id))

    def revoke_library(self, library: str, user_id: str) -> bool:
        """Take that access back; True if there was one."""
        return libraries.revoke(self.context, library, check_user(user_id))

    def libraries(self, user_id: str) -> builtins.list[str]:
        """The libraries `user_id` may read."""
        return libraries.granted(self.context, user_id)

    def library_readers(self, library: str) -> builtins.list[str]:
        return libraries.readers(self.context, library)

    def delete_library(self, library: str, *, requested_by: str = "operator") -> ErasureReceipt:
        """Erase a library: its documents from every store and every grant to it."""
        return libraries.delete(self.context, library, requested_by)

    # ------------------------------------------------------------------ images
    write_image = WithContext(images.write_image)  # one memory of kind image (docs/images.md)
    write_image_pages = WithContext(images.write_image_pages)  # ... every page of a PDF

    def image(
        self,
        user_id: str,
        memory_id: str,
        *,
        thumbnail: bool = False,
        viewer: Viewer = Viewer.AGENT,
    ) -> tuple[bytes, str]:
        """An image memory's bytes (or its thumbnail's) and MIME type; NotFoundError for
        another user's memory, a memory that is no image, or a quarantined one."""
        return images.image_of(self.context, user_id, memory_id, thumbnail=thumbnail, viewer=viewer)

    def save_image(
        self, user_id: str, memory_id: str, path: str | Path, *, thumbnail: bool = False
    ) -> Path:
        """Write an image memory's bytes to `path` (a folder: named by its memory id)."""
        return images.save_image(self.context, user_id, memory_id, path, thumbnail=thumbnail)

    # ------------------------------------------------------------------ graph
    def relate(
        self,
        user_id: str,
        source_id: str,
        target_id: str,
        relation_type: str = "related",
        strength: float = 1.0,
    ) -> Relation:
        """State a relation between two of the user's memories (kept, and re-weighted if it
        exists); it is projected to the graph like any other edge."""
        return graphing.relate(self.context, user_id, source_id, target_id, relation_type, strength)

    def graph(
        self,
        user_id: str,
        memory_id: str,
        hops: int = 1,
        relation_types: str | builtins.list[str] | None = None,
        *,
        viewer: Viewer = Viewer.AGENT,
        max_nodes: int | None = None,
    ) -> dict[str, Any]:
        """A memory's neighbourhood in the graph: the memories within `hops` and their edges,
        only what `viewer` may read and only what is reachable through it; at most `max_nodes`
        memories, the strongest-linked, when given."""
        return graphing.neighbourhood(
            self.context,
            user_id,
            memory_id,
            hops,
            relation_types,
            viewer=viewer,
            max_nodes=max_nodes,
        )

    def history(
        self, user_id: str, memory_id: str, *, viewer: Viewer = Viewer.AGENT
    ) -> builtins.list[Memory]:
        """Every version of a memory (what it superseded and what superseded it), oldest first;
        versions held in quarantine are left out unless an operator asks."""
        return graphing.history(self.context, user_id, memory_id, viewer=viewer)

    def list(
        self,
        user_id: str,
        *,
        memory_type: str | None = None,
        include_archived: bool = True,
        limit: int | None = None,
        offset: int = 0,
        viewer: Viewer = Viewer.AGENT,
    ) -> builtins.list[Memory]:
        """The user's memories, oldest first; quarantined ones only for an operator (an agent
        reads those through `quarantined`, the review queue, which lists them on purpose)."""
        return reading.list_memories(
            self.context,
            user_id,
            memory_type=memory_type,
            include_archived=include_archived,
            limit=limit,
            offset=offset,
            viewer=viewer,
        )

    def list_memories(
        self, user_id: str, request: ListRequest, *, viewer: Viewer = Viewer.AGENT
    ) -> MemoryPage:
        """One page of the user's memories, filtered and sorted as `request` asks, with the
        cursor of the next page (keyset: stable while memories are written meanwhile)."""
        return reading.page(self.context, user_id, request, viewer=viewer)

    stats = WithContext(reading.stats)


__all__ = ["MemoryService"]
