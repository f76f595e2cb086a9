"""Recall: the search flow (result cache, access counts, latency) and the retrieval pipeline
behind it - embed the query, gather vector and keyword candidates, score, expand the best of
them over the memory graph (graphmem.domain.associative), rank.

Every channel (with an image-text model, graphmem.usecases.image_search's too) is filtered by
user inside its store, and so is every hop of the expansion; candidates are then re-read from
the records store by (user_id, id), so a hit can only ever be the caller's own, current
memory, and one an agent may read (graphmem.domain.visibility).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from graphmem.domain import associative, fusion, ranking, temporal
from graphmem.domain.associative import Step, TracedHit
from graphmem.domain.lifecycle import is_expired
from graphmem.domain.model import Hit, Memory, Status, check_user, utcnow
from graphmem.domain.requests import SearchRequest, SearchResult, ValidSearch
from graphmem.domain.text import query_terms
from graphmem.domain.visibility import only_visible, readable_statuses
from graphmem.errors import StoreUnavailableError
from graphmem.extractors.subjects import named_in, subject_of
from graphmem.infra import metrics
from graphmem.infra.tracing import note, span
from graphmem.stores.records import RecordQuery
from graphmem.stores.vectors import VectorFilter
from graphmem.usecases import bridge_answer, fanout, focus, image_search, libraries
from graphmem.usecases.keyword_channel import KeywordHits, start_keyword
from graphmem.usecases.ports import SearchPorts

log = logging.getLogger("graphmem.retrieval")


def search(ctx: SearchPorts, user_id: str, request: SearchRequest) -> SearchResult:
    """Hybrid recall, expanded over the memory graph; every hit carries the path that brought
    it. Current memories only, unless the query asks about the past, `as_of` (what was valid
    then) or `include_history` is given (graphmem.domain.temporal.recall_window).

    Results are cached per user (keyed by every option that shapes them) until that user's next
    write, update or forget, or the cache TTL; a cached hit re-reads its memory from the records.
    """
    ctx.maybe_drain()
    start = time.perf_counter()
    user_id = check_user(user_id)
    with span("graphmem.search", user=user_id, top_k=request.top_k) as step:
        if isinstance(request.query, str) and request.query.strip():
            # PII in a query is masked before it reaches the embedder, caches and logs.
            request = replace(request, query=ctx.guard.before_search_text(request.query))
        result = _recall(ctx, user_id, request)
        shared = libraries.readable(ctx, user_id, request)
        if shared:
            result = libraries.merged(
                [result, *_library_results(ctx, user_id, request, result, shared)], request.top_k
            )
        own = [h.memory.id for h in result.hits if h.memory.user_id == user_id]
        if request.track_access and own:
            ctx.access.add(user_id, own)
        step.set(hits=len(result.hits), libraries=len(shared), degraded=bool(result.degraded))
    result.took_ms = (time.perf_counter() - start) * 1000
    ctx.search_stats.latencies_ms.add(result.took_ms)
    return result


def _library_results(
    ctx: SearchPorts, user_id: str, request: SearchRequest, own: SearchResult, shared: list[str]
) -> list[SearchResult]:
    """Each readable library's answer to the search: its documents, plus (when the search
    expands over the graph) the chunks that name what the reader's best hits name. Those
    depend on the reader, so such a library result is computed, not cached."""
    lib_request = libraries.library_request(request)
    valid = lib_request.validated(ctx.settings)
    reached: dict[str, dict[str, libraries.Bridged]] = {}
    if valid.hops > 0 and valid.graph_weight > 0:
        try:
            reached = libraries.bridges(ctx, user_id, own.hits[: ctx.settings.graph.seeds], shared)
        except Exception as e:  # noqa: BLE001 - without the bridge, plain library recall
            log.warning("library bridge unavailable: %s", e)
    return [
        retrieve(ctx, lib, valid, bridged=reached[lib])
        if lib in reached
        else _recall(ctx, lib, lib_request)
        for lib in shared
    ]


def _recall(ctx: SearchPorts, tenant: str, request: SearchRequest) -> SearchResult:
    """One tenant's (a user's or a library's) result; a dialogue is also searched by its last
    turn, each memory keeping its better score (graphmem.usecases.focus)."""
    turn = (
        focus.last_turn(request.query)
        if ctx.settings.ranking.search_last_turn and isinstance(request.query, str)
        else None
    )
    whole = _recall_once(ctx, tenant, request)
    if turn is None:
        return whole
    with span("graphmem.search.last_turn"):
        by_turn = _recall_once(ctx, tenant, replace(request, query=turn))
    return focus.merged(whole, by_turn, request.top_k)


def _recall_once(ctx: SearchPorts, tenant: str, request: SearchRequest) -> SearchResult:
    """One query's result: cached, or retrieved and cached."""
    if request.explain:  # explanations are computed, never cached
        return retrieve(ctx, tenant, request.validated(ctx.settings))
    key = request.cache_key()
    result, version = _cached(ctx, tenant, key)
    if result is None:
        result = retrieve(ctx, tenant, request.validated(ctx.settings))
        if not result.degraded and version is not None:
            _cache_put(ctx, tenant, key, version, result)
    return result


def _cached(ctx: SearchPorts, user_id: str, key: str) -> tuple[SearchResult | None, str | None]:
    """A cached result, and the user's cache version read before anything is computed: a
    result is stored under it, so one computed before another replica's write is never served
    after that write's invalidation (graphmem.stores.cache.port)."""
    stats = ctx.search_stats
    try:
        entry, version = ctx.cache.get(user_id, key)
    except Exception as e:  # noqa: BLE001 - a cache that is down only costs speed
        log.warning("search cache unavailable: %s", e)
        metrics.store_error("cache", "get")
        return None, None
    if entry is None:
        stats.cache_misses += 1
        return None, version
    rows = only_visible(ctx.records.get(user_id, [e[0] for e in entry]))
    if len(rows) != len(entry):  # changed behind the cache's back (another process)
        stats.cache_misses += 1
        return None, version
    stats.cache_hits += 1
    note(cached=True)
    hits: list[Hit] = [
        TracedHit(rows[mid], score, scores, [Step(**s) for s in path])
        for mid, score, scores, path in entry
    ]
    return SearchResult(hits=hits, took_ms=0.0), version


def _cache_put(
    ctx: SearchPorts, user_id: str, key: str, version: str, result: SearchResult
) -> None:
    entry = [
        [h.memory.id, h.score, h.scores, [vars(s) for s in getattr(h, "path", [])]]
        for h in result.hits
    ]
    try:
        ctx.cache.set(user_id, key, entry, version)
    except Exception as e:  # noqa: BLE001
        log.warning("search cache unavailable: %s", e)
        metrics.store_error("cache", "set")


def retrieve(
    ctx: SearchPorts,
    user_id: str,
    req: ValidSearch,
    *,
    bridged: Mapping[str, libraries.Bridged] | None = None,
) -> SearchResult:
    """The retrieval pipeline for one validated search (no cache). `bridged`: candidates
    reached from outside this tenant's own channels (graphmem.usecases.libraries.bridges),
    scored like the rest, with their path and graph score."""
    s = ctx.settings
    user_id = check_user(user_id)
    query, top_k, mt, narrow = req.query, req.top_k, req.memory_type, req.filter
    w, graph_w, hops, rtypes = req.weights, req.graph_weight, req.hops, req.relation_types
    now = utcnow()
    since = now - req.window if req.window else None
    statuses: tuple[str, ...] = (
        (Status.ACTIVE.value, Status.ARCHIVED.value)
        if req.include_archived
        else (Status.ACTIVE.value,)
    )
    window = temporal.recall_window(
        query, now, req.as_of, req.include_history, ctx.temporal.settings
    )
    if window.include_superseded:
        statuses = (*statuses, Status.SUPERSEDED.value)
    statuses = readable_statuses(statuses)
    pool = max(s.ranking.candidate_pool, top_k * 3)
    degraded: list[str] = []

    # The keyword channel runs in a worker thread while this one embeds the query and
    # searches the vectors: SQLite, ONNX Runtime and Qdrant Edge all release the GIL, so on
    # two cores the channels overlap instead of adding up (docs/benchmarks.md).
    rq = RecordQuery(user_id, mt, statuses, since, filter=narrow)
    # English memories a Chinese question's words translate to, when the fitted fusion weighs them
    across_wanted = req.learned and fusion.weighs_across(ctx.embedder.model_name, query)
    keyword = (
        start_keyword(ctx, rq, query, pool, across=across_wanted) if w["keyword"] > 0 else None
    )
    image_started = image_search.start(ctx, user_id, req, statuses, since, pool)  # None: off
    vec_scores: dict[str, float] = {}
    qvec: np.ndarray | None = None
    if w["vector"] > 0 or w["keyword"] == 0:
        with metrics.channel("query_embedding"), span("graphmem.search.embed_query"):
            qvec = ctx.embedder.encode_query(query, user_id)
        flt = VectorFilter(user_id, mt, statuses, since.timestamp() if since else None).narrowed(
            narrow
        )
        breaker = ctx.breaker
        try:
            if not breaker.allow("vectors"):
                raise StoreUnavailableError("vector store down, retrying later")
            with metrics.channel("vector"), span("graphmem.search.vector", pool=pool) as step:
                vec_scores = {h.memory_id: h.score for h in ctx.vectors.search(qvec, flt, pool)}
                step.set(hits=len(vec_scores))
            breaker.ok("vectors")
        except Exception as e:  # noqa: BLE001 - degrade to keyword-only, say so
            log.warning("vector channel unavailable: %s", e)
            metrics.store_error("vectors", "search")
            breaker.failed("vectors")
            degraded.append("vectors")

    if keyword is None and not vec_scores:
        # the fallback when vectors gave nothing
        keyword = start_keyword(ctx, rq, query, pool, across=across_wanted)
    found = keyword.result() if keyword is not None else KeywordHits({}, 0.0, {}, 0)
    kw_scores, kw_reach, across = found.scores, found.reach, found.across
    images = image_search.finish(image_started, degraded)

    ids = list(dict.fromkeys([*vec_scores, *kw_scores, *across, *images.cosines, *(bridged or {})]))
    # Re-read from the records, the source of truth: a projection that lags behind a status
    # change must not bring back content an agent may not read.
    rows = only_visible(ctx.records.get(user_id, ids))
    images.complete(rows)
    if qvec is not None and "vectors" not in degraded:
        missing = [i for i in rows if i not in vec_scores]
        if missing:
            try:
                vec_scores.update(ctx.vectors.scores(qvec, user_id, missing))
            except Exception as e:  # noqa: BLE001
                log.warning("could not score keyword-only hits by vector: %s", e)
                metrics.store_error("vectors", "fetch")
    if s.ranking.recall_on_summaries and qvec is not None:
        vec_scores.update(ctx.summaries.scores(qvec, rows.values()))
    kw_max = max(kw_scores.values(), default=0.0)
    floor = ctx.embedder.score_floor if s.vectors.score_floor is None else s.vectors.score_floor
    # the weights this query is scored with: an embedder that does not know the query's
    # language keeps little of its vector weight (graphmem.domain.ranking.language_weights)
    lang = fusion.language(query)
    qw = ranking.language_weights(w, lang, getattr(ctx.embedder, "languages", None))
    fused = (
        fusion.QueryFusion.for_query(
            ctx.embedder.model_name, query, vec_scores, kw_scores, floor, w
        )
        .across(across, found.across_terms)
        .anchored((vec_scores.get(m, 0.0), kw_scores.get(m, 0.0), across.get(m, 0.0)) for m in rows)
        if req.learned
        else None
    )

    def score(mem: Memory) -> TracedHit:
        mid = mem.id
        channels = {
            "vector": ranking.above_floor(vec_scores.get(mid, 0.0), floor),
            "keyword": ranking.keyword(kw_scores.get(mid, 0.0), kw_max, kw_reach),
            "recency": ranking.recency(mem.created_at, now, s.ranking.recency_half_life_days),
            "frequency": ranking.frequency(mem.access_count, s.ranking.frequency_saturation),
        }
        why: dict[str, Any] | None = None
        if fused is not None:
            match, why = fused.match(
                vec_scores.get(mid, 0.0), kw_scores.get(mid, 0.0), across.get(mid, 0.0)
            )
            channels["keyword"] = why["calibrated"]["keyword"]
            final = fused.combine(match, channels)
        else:
            final = ranking.combine(channels, qw)
        if req.explain:
            why = why or {
                "fusion": "weights",
                "language": lang,
                "raw": {"vector": vec_scores.get(mid, 0.0), "keyword": kw_scores.get(mid, 0.0)},
                "calibrated": {"vector": channels["vector"], "keyword": channels["keyword"]},
                "contributions": {c: qw[c] * channels[c] for c in ("vector", "keyword")},
            }
            why["contributions"].update(
                {c: qw.get(c, 0.0) * channels[c] for c in ("recency", "frequency")}
            )
        final = images.fused(mid, final, channels, why if req.explain else None)
        # Provenance: what the user said outranks what an agent inferred, at equal match.
        trust = s.ranking.source_trust.get(mem.source.value, 1.0)
        final *= trust
        if trust != 1.0:
            channels["trust"] = trust
        # A contested memory (kept with low confidence) ranks below corroborated ones.
        if mem.confidence < 1.0:
            channels["confidence"] = mem.confidence
            final *= 0.5 + 0.5 * mem.confidence
        final = window.rescore(mem, final, channels)
        kind_w = req.kind_weights.get(mem.kind.value, 1.0)
        if kind_w != 1.0:
            channels["kind_weight"] = kind_w
            final *= kind_w
        return TracedHit(mem, final, channels, explain=why if req.explain else None)

    def admits(m: Memory) -> bool:
        """May a memory reached other than by the channels (graph, facets) be a hit?"""
        return (
            m.status.value in statuses
            and window.admits(m)
            and (mt is None or m.memory_type.value == mt)
            and (since is None or m.created_at >= since)
            and narrow.admits(m)
            and not is_expired(m, now)
        )

    with span("graphmem.search.fuse", candidates=len(rows), learned=fused is not None):
        hits = [
            score(m)
            for m in rows.values()
            if m.status.value in statuses
            and window.admits(m)
            and narrow.admits(m)
            and not is_expired(m, now)
        ]
        base = {h.memory.id: h.score for h in hits} if bridged else {}
        hits.sort(key=lambda h: (-h.score, h.memory.id))
    if hops > 0 and graph_w > 0 and hits and ctx.graph is not None:
        cfg = associative.ExpansionConfig(
            hops,
            rtypes,
            s.graph.relation_weights,
            s.graph.hop_decay,
            s.graph.fanout,
            s.graph.max_nodes,
            window.graph_at,
            seed_sharpness=s.graph.seed_sharpness,
            reply_weight=s.graph.reply_weight,
            bridge_weight=s.graph.bridge_weight,
            query_terms=frozenset(query_terms(query)) if s.graph.bridge_weight > 0 else frozenset(),
        )
        seeds = hits[: s.graph.seeds]
        # A turn that asks is answered by the next one (LoCoMo: the question a user's query
        # matches best is often the other speaker's, and its reply holds the fact).
        asks = (
            frozenset(h.memory.id for h in seeds if _asks(h.memory.content))
            if s.graph.reply_weight > 0
            else frozenset()
        )
        breaker = ctx.breaker
        try:
            if not breaker.allow("graph"):
                raise StoreUnavailableError("graph store down, retrying later")
            with metrics.channel("graph"), span("graphmem.search.walk", hops=hops) as step:
                relevance = associative.seed_relevance(
                    {h.memory.id: h.score for h in seeds}, cfg.seed_sharpness
                )
                reached = associative.expand(ctx.graph, user_id, relevance, cfg, asks)
                step.set(seeds=len(seeds), reached=len(reached))
            breaker.ok("graph")
        except Exception as e:  # noqa: BLE001 - degrade to hybrid-only, say so
            log.warning("graph expansion unavailable: %s", e)
            metrics.store_error("graph", "expand")
            breaker.failed("graph")
            degraded.append("graph")
            reached = {}
        known = {h.memory.id for h in hits}
        # Only the best-reached newcomers are worth a row and vector fetch: a weak path
        # cannot lift a memory into the top k, and fetching every reached memory made
        # expansion cost grow with the graph (hundreds of rows per search at 100k).
        newcomers = sorted(
            (r for i, r in reached.items() if i not in known),
            key=lambda r: (-r.score, r.memory_id),
        )[: max(s.graph.candidates, top_k)]
        new = only_visible(ctx.records.get(user_id, [r.memory_id for r in newcomers]))
        new = {i: m for i, m in new.items() if admits(m)}
        if new and qvec is not None and "vectors" not in degraded:
            try:
                vec_scores.update(ctx.vectors.scores(qvec, user_id, list(new)))
            except Exception as e:  # noqa: BLE001
                log.warning("could not score graph-reached hits by vector: %s", e)
                metrics.store_error("vectors", "fetch")
        if s.ranking.recall_on_summaries and qvec is not None:
            vec_scores.update(ctx.summaries.scores(qvec, new.values()))
        images.complete(new)
        hits.extend(score(m) for m in new.values())
        seed_score = {h.memory.id: h.score for h in seeds}
        for h in hits:
            r = reached.get(h.memory.id)
            if r is not None:
                h.scores["graph"] = r.score
                before = h.score
                h.score = associative.capped_by_seed(
                    before,
                    associative.combine_graph(before, r.score, graph_w),
                    seed_score.get(r.seed, 1.0),
                )
                h.path = r.path
                if h.explain is not None:
                    h.explain["walk"] = associative.explain_walk(
                        r, relevance, _seed_channels(seeds), cfg, asks
                    )
                    h.explain["walk"]["added"] = h.score - before
        hits.sort(key=lambda h: (-h.score, h.memory.id))
    if s.ranking.subject_boost > 0 and _boost_subjects(hits, query, s.ranking.subject_boost):
        hits.sort(key=lambda h: (-h.score, h.memory.id))
    if hops > 0 and graph_w > 0 and s.graph.facet_fanout > 0 and hits:
        _fan_out(ctx, user_id, req, hits, rq, qvec, score, admits)
    if bridged:
        _bridge(hits, bridged, base, graph_w)
    if hops > 0 and graph_w > 0 and s.graph.bridge_answer and "graph" not in degraded:
        bridge_answer.answer_through_bridge(req.query, hits, req.explain)
    top: list[Hit] = list(hits[:top_k])
    return SearchResult(hits=top, took_ms=0.0, degraded=degraded)


def _fan_out(
    ctx: SearchPorts,
    user_id: str,
    req: ValidSearch,
    hits: list[TracedHit],
    rq: RecordQuery,
    qvec: np.ndarray | None,
    make: Callable[[Memory], TracedHit],
    admits: Callable[[Memory], bool],
) -> None:
    """A list question's facet members after its best hits (graphmem.usecases.fanout)."""
    try:
        with span("graphmem.search.facets") as step:
            picks = fanout.fan_out(
                ctx, user_id, req.query, hits, rq, qvec, admits, ctx.settings.graph.facet_fanout
            )
            step.set(picks=len(picks))
    except Exception as e:  # noqa: BLE001 - without the fan-out, the search as it was
        log.warning("facet fan-out unavailable: %s", e)
        return
    fanout.place(hits, picks, make, req.query, req.explain)


def _boost_subjects(hits: list[TracedHit], query: str, boost: float) -> bool:
    """Whose words: a query naming a turn's speaker asks for that person's own statements
    (graphmem.extractors.subjects). Applied to the final scores, after the walk: the other
    speaker's turns still seed it - their question is often what the query matches, and the
    named person's reply is where the walk leads. So it lifts that reply above the question
    the walk capped it under (associative.capped_by_seed), on purpose: boosted before the
    walk, LoCoMo tune recall@5 / MRR fell 0.701 / 0.603 -> 0.645 / 0.550; boosted after but
    kept below the seed, -> 0.668 / 0.555 (docs/benchmarks.md). True when a hit was boosted."""
    boosted = False
    for h in hits:
        subject = subject_of(h.memory.content)
        if subject is not None and named_in(query, subject):
            h.scores["subject"] = 1 + boost
            h.score *= 1 + boost
            boosted = True
    return boosted


def _seed_channels(seeds: list[TracedHit]) -> dict[str, list[str]]:
    """Which channels found each seed (explain): those with a score above 0 for it."""
    return {
        h.memory.id: [c for c in ("vector", "keyword") if h.scores.get(c, 0.0) > 0] for h in seeds
    }


def _bridge(
    hits: list[TracedHit],
    bridged: Mapping[str, libraries.Bridged],
    base: Mapping[str, float],
    graph_w: float,
) -> None:
    """Give hits reached from another tenant's memory (a library chunk a reader's memory
    names) that path and graph score, where it beats the path this tenant's own graph found."""
    for h in hits:
        b = bridged.get(h.memory.id)
        if b is not None and b.score > h.scores.get("graph", 0.0):
            h.scores["graph"] = b.score
            h.score = associative.combine_graph(base.get(h.memory.id, h.score), b.score, graph_w)
            h.path = [b.step]
    hits.sort(key=lambda h: (-h.score, h.memory.id))


def _asks(content: str) -> bool:
    return "?" in content or "\uff1f" in content  # ASCII or full-width question mark
