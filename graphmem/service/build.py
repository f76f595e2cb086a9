"""The stores and models one service works with, opened once into its `Context`."""

from __future__ import annotations

from graphmem.domain.linking import Linker
from graphmem.domain.summary import SummaryVectors
from graphmem.embedding import Embedder, embedder_for, settings_for_store
from graphmem.extractors import Extractor, make_extractor
from graphmem.guard import Guard
from graphmem.guard.vault import Vault, key_path
from graphmem.images import load_model, open_image_channel, open_image_store
from graphmem.service.context import AccessTracker, Context, default_purgers
from graphmem.service.projection import Projector
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
from graphmem.stores.graph.prepared import PreparedGraph, prepared
from graphmem.usecases.backfill import EMBEDDING_META, check_on_open, rebuild_graph
from graphmem.usecases.versions import Temporal


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
    extractor = extractor or make_extractor(s.linking.extractor, s.linking.entity_aliases)
    cache = cache or open_cache(s)
    # the records graph walks a prepared adjacency while the user's cache version holds
    graph = prepared(graph, cache, s.graph.adjacency_edges)
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
            records,
            s.linking.per_entity,
            s.linking.hub_share,
            s.linking.hub_min,
            s.linking.per_topic,
        ),
        projector=projector,
        access=AccessTracker(records, s.writes.access_flush_every, s.writes.access_flush_seconds),
        summaries=SummaryVectors(embedder),
        temporal=Temporal(records, vectors, guard, projector, s),
        # Stores outside the records/vectors/graph trio (working memory, result caches)
        # register (purge, count) callables here so erasing a user reaches them too.
        purgers=purgers,
        vault=Vault(
            records,
            s.vault.key.get_secret_value() if s.vault.key else None,
            key_path(s.data_dir, s.vault.key_file),
        ),
        images=images,
        image_channel=open_image_channel(s, image_model, records, vectors, images),
    )


def ready(ctx: Context) -> Context:
    """A context just built, made ready to serve: a new store stamped and old keyword tokens
    rewritten (backfill), an in-process graph rebuilt from the records, the outbox drained."""
    check_on_open(ctx)
    if ctx.graph.in_process and not ctx.graph.node_ids():
        rebuild_graph(ctx.records, ctx.graph)
    ctx.drain_outbox()
    return ctx
