"""MemoryService: the single entry point that the CLI, the MCP server and the benchmarks call.

Every method is scoped by user_id. The service builds the stores and models once, into a
`Context` (graphmem.context), and each method hands that to a use-case (graphmem.usecases):
writes validate everything first, embed, extract entities and relations, then commit rows,
entities, relations and outbox entries in one records transaction, then project to the vector
index and the graph; a projection failure delays a projection but never loses or half-writes a
memory.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from graphmem.context import AccessTracker, Context, Purger, default_purgers
from graphmem.domain.actor import CLI, Actor
from graphmem.domain.linking import Linker
from graphmem.domain.model import Memory
from graphmem.domain.requests import (
    ListRequest,
    MemoryPage,
    SearchOptions,
    SearchRequest,
    SearchResult,
    WriteItem,
)
from graphmem.domain.summary import SummaryVectors
from graphmem.domain.visibility import Viewer
from graphmem.embedding import Embedder, embedder_for, settings_for_store
from graphmem.extractors import Extractor, make_extractor
from graphmem.guard import Guard
from graphmem.guard.vault import Vault, key_path
from graphmem.images import load_model, open_image_channel, open_image_store
from graphmem.infra import workers
from graphmem.infra.metrics import LatencyRecorder
from graphmem.projection import Projector, rebuild_graph
from graphmem.service_documents import DocumentsAPI
from graphmem.service_images import ImagesAPI
from graphmem.settings import Settings
from graphmem.stores import (
    GraphStore,
    RecordsStore,
    ResultCache,
    VectorStore,
    open_cache,
    open_graph,
    open_records,
    open_vectors,
)
from graphmem.stores.erase_notices import WATCH_SECONDS
from graphmem.stores.graph.prepared import PreparedGraph, prepared
from graphmem.stores.records import Relation
from graphmem.usecases import compact as compacting
from graphmem.usecases import compare as comparing
from graphmem.usecases import erase as erasing
from graphmem.usecases import graph as graphing
from graphmem.usecases import imports as importing
from graphmem.usecases import read as reading
from graphmem.usecases import reveal as revealing
from graphmem.usecases import review as reviewing
from graphmem.usecases import search as searching
from graphmem.usecases import update as updating
from graphmem.usecases import write as writing
from graphmem.usecases.backfill import EMBEDDING_META, check_on_open
from graphmem.usecases.compact import CompactionReport, PeriodicCompactor
from graphmem.usecases.erase import ErasureReceipt
from graphmem.usecases.review import HeldMemory
from graphmem.usecases.versions import Temporal

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing's own from Python 3.12


def build_context(
    settings: Settings,
    *,
    records: RecordsStore | None = None,
    vectors: VectorStore | None = None,
    embedder: Embedder | None = None,
    graph: GraphStore | None = None,
    extractor: Extractor | None = None,
    cache: ResultCache | None = None,
    guard: Guard | None = None,
) -> Context:
    """Open (or take) every store and model a service works with."""
    image_model = load_model(settings)  # first: a bad model file stops before a store opens
    records = records or open_records(settings)
    # an existing store keeps its model unless one is named (embedder.settings_for_store)
    s = settings if embedder else settings_for_store(settings, records.meta(EMBEDDING_META))
    embedder = embedder or embedder_for(s)
    vectors = vectors or open_vectors(s, embedder.dim)
    graph = graph or open_graph(s, records)
    extractor = extractor or make_extractor(s.extractor, s.entity_aliases)
    cache = cache or open_cache(s)
    # the records graph walks a prepared adjacency while the user's cache version holds
    graph = prepared(graph, cache, s.graph_adjacency_edges)
    guard = guard or Guard(s.guard, redis_url=s.redis_url)
    images = open_image_store(s.images, s.data_dir)
    purgers = default_purgers(cache, guard, s, images)
    if isinstance(graph, PreparedGraph):
        purgers["graph_adjacency"] = (graph.forget_user, graph.held)
    projector = Projector(records, vectors, embedder, graph)
    return Context(
        settings=s,
        records=records,
        vectors=vectors,
        graph=graph,
        cache=cache,
        embedder=embedder,
        extractor=extractor,
        guard=guard,
        linker=Linker(
            records, s.link_per_entity, s.link_hub_share, s.link_hub_min, s.link_per_topic
        ),
        projector=projector,
        access=AccessTracker(records, s.access_flush_every, s.access_flush_seconds),
        summaries=SummaryVectors(embedder),
        temporal=Temporal(records, vectors, guard, projector, s),
        # Stores outside the records/vectors/graph trio (working memory, result caches)
        # register (purge, count) callables here so erasing a user reaches them too.
        purgers=purgers,
        vault=Vault(
            records,
            s.vault_key.get_secret_value() if s.vault_key else None,
            key_path(s.data_dir, s.vault_key_file),
        ),
        images=images,
        image_channel=open_image_channel(s, image_model, records, vectors, images),
    )


class MemoryService(DocumentsAPI, ImagesAPI):
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
        self.context = ctx = build_context(
            settings or Settings(),
            records=records,
            vectors=vectors,
            embedder=embedder,
            graph=graph,
            extractor=extractor,
            cache=cache,
            guard=guard,
        )
        check_on_open(ctx)  # stamp a new store; old keyword tokens rewritten (backfill)
        if ctx.graph.in_process and not ctx.graph.node_ids():
            rebuild_graph(ctx.records, ctx.graph)  # in-process graph: rebuilt from records
        ctx.drain_outbox()
        self.compactor: PeriodicCompactor | None = None
        self.drainer: workers.Periodic | None = None
        self.erase_watch: workers.Periodic | None = None

    # ------------------------------------------------------------------ what callers read
    @property
    def settings(self) -> Settings:
        return self.context.settings

    @property
    def records(self) -> RecordsStore:
        return self.context.records

    @property
    def vectors(self) -> VectorStore:
        return self.context.vectors

    @property
    def graph_store(self) -> GraphStore:
        return self.context.graph

    @property
    def cache(self) -> ResultCache:
        return self.context.cache

    @property
    def embedder(self) -> Embedder:
        return self.context.embedder

    @property
    def guard(self) -> Guard:
        return self.context.guard

    @property
    def access(self) -> AccessTracker:
        return self.context.access

    @property
    def purgers(self) -> dict[str, Purger]:
        return self.context.purgers

    @property
    def latencies_ms(self) -> LatencyRecorder:
        return self.context.search_stats.latencies_ms

    @property
    def cache_hits(self) -> int:
        return self.context.search_stats.cache_hits

    @property
    def cache_misses(self) -> int:
        return self.context.search_stats.cache_misses

    # ------------------------------------------------------------------ lifecycle
    def start_background(self) -> None:
        """Start the server's background jobs (one-shot CLI commands do not, so a long import
        never races a compaction): compaction every `compact_interval_seconds`, and the outbox
        drain every `outbox_drain_seconds`, so that after a store outage an idle server still
        catches its projections up instead of waiting for the next call or a restart; with
        replicas, the watch for another replica's erase (graphmem.stores.erase_notices)."""
        s = self.settings
        if s.compact_interval_seconds > 0 and self.compactor is None:
            self.compactor = PeriodicCompactor(self.context, s.compact_interval_seconds).start()
        if s.outbox_drain_seconds > 0 and self.drainer is None:
            self.drainer = workers.Periodic(
                "outbox", s.outbox_drain_seconds, lambda: self.drain_outbox(force=False)
            ).start()
        watch = self.context.erase_watcher() if self.erase_watch is None else None
        if watch is not None:  # replicas: another's erase empties this process's caches too
            self.erase_watch = workers.Periodic("erase-notices", WATCH_SECONDS, watch).start()

    def close(self) -> None:
        for job in (self.compactor, self.drainer, self.erase_watch):
            if job is not None:
                job.stop()
        self.context.close()

    def __enter__(self) -> MemoryService:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def drain_outbox(self, *, force: bool = True) -> tuple[int, int]:
        """Apply pending projections now, backoff or not; calls retry due ones on their own."""
        return self.context.drain_outbox(force=force)

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

    def rotate_vault_key(self) -> dict[str, object]:
        """Re-wrap every data key under a new store key file (graphmem.usecases.reveal)."""
        return revealing.rotate_key(self.context)

    def update(
        self,
        user_id: str,
        memory_id: str,
        content: str | None = None,
        *,
        memory_type: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        confidence: float | None = None,
        tool: str | None = None,
    ) -> Memory:
        """Change a memory; new content is screened, then re-embedded and re-indexed (see
        graphmem.usecases.update.update for content the firewall quarantines)."""
        return updating.update(
            self.context,
            user_id,
            memory_id,
            content,
            memory_type=memory_type,
            metadata=metadata,
            confidence=confidence,
            tool=tool,
        )

    def forget(
        self, user_id: str, memory_ids: builtins.list[str], *, reason: str = "forget"
    ) -> builtins.list[str]:
        """Hard-delete memories from every store at once; returns the ids that existed.
        `reason` is the audit action (forget, or expire when a TTL ran out)."""
        return updating.forget(self.context, user_id, memory_ids, reason=reason)

    def restore(self, user_id: str, memory_ids: builtins.list[str]) -> builtins.list[str]:
        """Bring archived memories back into default recall; returns the ids restored."""
        return updating.restore(self.context, user_id, memory_ids)

    def archive(self, user_id: str, memory_ids: builtins.list[str]) -> builtins.list[str]:
        """Take active memories out of default recall (`include_archived` still finds them)."""
        return updating.archive(self.context, user_id, memory_ids)

    def compact(self, **kwargs: Any) -> CompactionReport:
        """Apply the lifecycle rules over the store: see graphmem.usecases.compact.compact."""
        return compacting.compact(self.context, **kwargs)

    def quarantined(self, user_id: str, limit: int = 100) -> builtins.list[Memory]:
        """Memories the firewall held back from recall, waiting for review."""
        return reviewing.quarantined(self.context, user_id, limit)

    def held_for_review(self, user_id: str, limit: int = 100) -> builtins.list[HeldMemory]:
        """The quarantined memories with why the firewall held each one."""
        return reviewing.held_for_review(self.context, user_id, limit)

    def hold_reasons(self, user_id: str, memory_ids: builtins.list[str]) -> dict[str, str]:
        """Why the firewall held each of these memories (for a write's or update's result)."""
        return reviewing.hold_reasons(self.context, user_id, memory_ids)

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

    def stats(self, user_id: str) -> dict[str, Any]:
        return reading.stats(self.context, user_id)


__all__ = ["MemoryService", "SearchResult", "build_context"]
