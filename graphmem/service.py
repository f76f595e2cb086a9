"""MemoryService: the single entry point that the CLI, the MCP server and the benchmarks call.

Every method is scoped by user_id. Writes validate everything first, embed, extract entities and
relations, then commit rows, entities, relations and outbox entries in one records transaction,
then project to the vector index and the graph; a projection failure delays a projection but
never loses or half-writes a memory.
"""

from __future__ import annotations

import copy
import logging
import threading
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np

from extractors import Extractor, make_extractor
from graphmem import associative, lifecycle, metrics, workers
from graphmem.actor import CLI, Actor, current_actor
from graphmem.associative import Step, TracedHit
from graphmem.embedder import Embedder, embedder_for
from graphmem.erasure import ErasureReceipt, Purger, erase_user, residue
from graphmem.errors import NotFoundError, ValidationError
from graphmem.guard import Guard, GuardSettings, WriteDecision
from graphmem.linking import Linker
from graphmem.model import (
    Hit,
    Memory,
    Status,
    check_confidence,
    check_content,
    check_metadata,
    check_number,
    check_session_id,
    check_top_k,
    check_user,
    new_id,
    parse_datetime,
    parse_memory_type,
    parse_source,
    utcnow,
)
from graphmem.projection import Projector
from graphmem.retrieval import Retriever
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
from graphmem.stores.cache import cache_key
from graphmem.stores.graph import RELATION_TYPES
from graphmem.stores.records import GraphRows, Relation
from graphmem.summary import MAX_SUMMARY, SummaryVectors, summarize
from graphmem.temporal import Temporal
from graphmem.text import search_text
from graphmem.visibility import (
    Viewer,
    check_visible,
    only_visible,
    readable_statuses,
    visible,
    within_hops,
)

log = logging.getLogger("graphmem.service")


@dataclass
class SearchResult:
    hits: list[Hit]
    took_ms: float
    degraded: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "hits": [h.to_dict() for h in self.hits],
            "took_ms": round(self.took_ms, 3),
            "degraded": self.degraded,
        }


class AccessTracker:
    """Buffers access counts so a search never pays one synchronous write per hit."""

    def __init__(self, records: RecordsStore, every: int, seconds: float) -> None:
        self.records = records
        self.every = every
        self.seconds = seconds
        self._counts: Counter[tuple[str, str]] = Counter()
        self._since = time.monotonic()
        self._lock = threading.Lock()

    def add(self, user_id: str, memory_ids: Iterable[str]) -> None:
        with self._lock:
            for m in memory_ids:
                self._counts[(user_id, m)] += 1
            due = len(self._counts) >= self.every or time.monotonic() - self._since >= self.seconds
        if due:
            self.flush()

    def flush(self) -> None:
        with self._lock:
            counts, self._counts = self._counts, Counter()
            self._since = time.monotonic()
        if counts:
            try:
                self.records.record_access(dict(counts), utcnow())
            except Exception as e:  # noqa: BLE001 - stats are best-effort, recall must not fail
                log.warning("could not record %d access counts: %s", len(counts), e)
                metrics.store_error("records", "access_stats")


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
        self.settings = settings or Settings()
        s = self.settings
        self.embedder = embedder or embedder_for(s)
        self.records = records or open_records(s)
        self.vectors = vectors or open_vectors(s, self.embedder.dim)
        self.graph_store = graph or open_graph(s)
        self.extractor = extractor or make_extractor(s.extractor, s.entity_aliases)
        self.linker = Linker(
            self.records, s.link_per_entity, s.link_hub_share, s.link_hub_min, s.link_per_topic
        )
        self.projector = Projector(self.records, self.vectors, self.embedder, self.graph_store)
        self.access = AccessTracker(self.records, s.access_flush_every, s.access_flush_seconds)
        self.retriever = Retriever(self)
        self.summaries = SummaryVectors(self.embedder)
        self._write_lock = threading.RLock()
        # Stores outside the records/vectors/graph trio (working memory, result caches) register
        # (purge, count) callables here so erasing a user reaches them too.
        self.cache = cache or open_cache(s)
        self.guard = guard or Guard(GuardSettings())
        self.temporal = Temporal(self)
        self.cache_hits = 0
        self.cache_misses = 0
        self.purgers: dict[str, Purger] = {
            "search_cache": (self.cache.invalidate, self.cache.count)
        }
        self._next_drain = 0.0
        self.latencies_ms: list[float] = []
        if self.graph_store.in_process and not self.graph_store.node_ids():
            from graphmem.backfill import rebuild_graph

            rebuild_graph(self.records, self.graph_store)  # in-process graph: rebuilt from records
        self.drain_outbox()
        self.compactor: Any = None
        self.drainer: workers.Periodic | None = None

    # ------------------------------------------------------------------ lifecycle
    def start_background(self) -> None:
        """Start the server's background jobs (one-shot CLI commands do not, so a long import
        never races a compaction): compaction every `compact_interval_seconds`, and the outbox
        drain every `outbox_drain_seconds`, so that after a store outage an idle server still
        catches its projections up instead of waiting for the next call or a restart."""
        s = self.settings
        if s.compact_interval_seconds > 0 and self.compactor is None:
            from graphmem.compaction import PeriodicCompactor

            self.compactor = PeriodicCompactor(self, s.compact_interval_seconds).start()
        if s.outbox_drain_seconds > 0 and self.drainer is None:
            self.drainer = workers.Periodic(
                "outbox", s.outbox_drain_seconds, lambda: self.drain_outbox(force=False)
            ).start()

    def close(self) -> None:
        for job in (self.compactor, self.drainer):
            if job is not None:
                job.stop()
        self.access.flush()
        self.records.close()
        self.vectors.close()
        self.graph_store.close()
        self.cache.close()

    def __enter__(self) -> MemoryService:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def drain_outbox(self, *, force: bool = True) -> tuple[int, int]:
        """Apply pending projections now, backoff or not; calls retry due ones on their own."""
        with self._write_lock:
            applied, failed = self.projector.drain(force=force)
        self._next_drain = time.monotonic() + (2.0 if failed else 0.0)
        return applied, failed

    def _maybe_drain(self) -> None:
        if self.projector.last_error is not None and time.monotonic() >= self._next_drain:
            self.drain_outbox(force=False)

    # ------------------------------------------------------------------ writes
    def _prepare(
        self, user_id: str, item: Mapping[str, Any], now: datetime
    ) -> tuple[Memory, WriteDecision]:
        """Validate one write and pass it through the firewall: the returned memory holds the
        masked content and metadata, and is quarantined if the screen said so."""
        content = check_content(item.get("content"), self.settings.max_content_chars)
        source = parse_source(item.get("source"))
        metadata = check_metadata(item.get("metadata"))
        decision = self.guard.screen_write(content, source.value, metadata)
        metrics.write_decision(decision.action)
        if decision.action == "reject":
            reason = decision.reasons[0] if decision.reasons else "refused by the memory firewall"
            field = decision.source_field  # metadata, when that is what was refused
            raise ValidationError(field, f"rejected by the memory firewall: {reason}")
        content = decision.content_after_masking
        if decision.metadata_after_masking is not None:
            metadata = decision.metadata_after_masking
        created = parse_datetime(item.get("created_at"), "created_at") or now
        valid_from = parse_datetime(item.get("valid_from"), "valid_from")
        valid_to = parse_datetime(item.get("valid_to"), "valid_to")
        if valid_to is not None and valid_to <= (valid_from or created):
            raise ValidationError("valid_to", "must be later than valid_from (or created_at)")
        summary = item.get("summary")
        if summary is not None and summary != "":
            summary = check_content(summary, self.settings.max_content_chars, "summary")
        session_id = item.get("session_id")
        if session_id is not None and session_id != "":
            session_id = check_session_id(session_id)
        mem = Memory(
            id=new_id(),
            user_id=user_id,
            content=content,
            memory_type=parse_memory_type(item.get("memory_type") or "fact"),
            summary=summarize(
                self.guard.screen_write(summary, source.value).content_after_masking
                if summary
                else self._llm_summary(content)
            ),
            session_id=session_id or None,
            source=source,
            confidence=check_confidence(item.get("confidence", 1.0)),
            metadata=metadata,
            status=Status(decision.status),
            created_at=created,
            updated_at=now,
            valid_from=valid_from,
            valid_to=valid_to,
        )
        mem.expires_at = parse_datetime(item.get("expires_at"), "expires_at") or lifecycle.expiry(
            mem.memory_type.value, now, self.settings
        )
        mem.decay_score = lifecycle.decay_score(mem, now, self.settings)
        return mem, decision

    def _llm_summary(self, content: str) -> str:
        """The configured LLM's summary of one memory, else the content (summarised
        extractively by the caller). Short content needs no LLM."""
        s = self.settings
        if not s.summary_llm_url or len(content) <= MAX_SUMMARY:
            return content
        from graphmem.llm import complete

        try:
            return complete(
                s.summary_llm_url,
                s.summary_llm_model,
                s.summary_llm_api_key.get_secret_value() if s.summary_llm_api_key else None,
                f"Summarise this memory in at most {MAX_SUMMARY} characters. Use only what it"
                " says. Answer with the summary alone.",
                content,
                timeout=s.summary_llm_timeout_seconds,
                max_tokens=40,
            )
        except Exception as e:  # noqa: BLE001 - the extractive summary always works
            log.warning("LLM summary unavailable, using the extractive one: %s", e)
            return content

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
        return self.write_many(
            user_id, [{"content": content, "memory_type": memory_type, **fields}], tool=tool
        )[0]

    def write_many(
        self, user_id: str, items: list[Mapping[str, Any]], *, tool: str | None = None
    ) -> list[Memory]:
        """Store a batch: all validated and screened before any is written; one transaction;
        one embed batch. `tool` names the interface calling (e.g. "memory_write") in the audit
        row; rate limits are charged by the interface, per call, before it gets here.
        """
        user_id = check_user(user_id)
        if not isinstance(items, list) or not items:
            raise ValidationError("items", "must be a non-empty list")
        if len(items) > self.settings.max_batch:
            raise ValidationError("items", f"at most {self.settings.max_batch} per batch")
        now = utcnow()
        memories: list[Memory] = []
        decisions: list[WriteDecision] = []
        for i, item in enumerate(items):
            try:
                m, d = self._prepare(user_id, item, now)
            except ValidationError as e:
                if e.message.startswith("rejected by the memory firewall"):
                    self.records.audit(user_id, "reject", [], {"item": i, "tool": tool})
                if len(items) == 1:
                    raise
                raise ValidationError(f"items[{i}].{e.field}", e.message) from None
            memories.append(m)
            decisions.append(d)
        texts = [m.content for m in memories]
        # Embedding and entity extraction are the two big costs of a write and independent of
        # each other; ONNX Runtime (and torch) release the GIL while they compute, so the batch
        # is embedded in a worker thread while this thread runs spaCy: on 2 cores the two
        # overlap instead of adding up.
        pending = workers.pool("embed").submit(self.embedder.encode, texts)
        try:
            extractions = self.extractor.extract_many(texts)
        finally:
            vecs = pending.result()
        with self._write_lock:
            plan = self.temporal.plan(user_id, memories, vecs)
            graph = self.linker.link(user_id, memories, extractions)
            graph.relations.extend(plan.relations)
            self.records.insert(
                memories, [search_text(m.content) for m in memories], graph, plan.supersede
            )
            self._invalidate(user_id)
            self._project(memories, vecs)
            if plan.supersede:
                self.projector.apply(self.records.outbox_for([x.old_id for x in plan.supersede]))
        self._audit_writes(user_id, memories, decisions, tool, plan.outcomes)
        return lifecycle.merge_on_write(self, user_id, memories, vecs)

    def _audit_writes(
        self,
        user_id: str,
        memories: list[Memory],
        decisions: list[WriteDecision],
        tool: str | None,
        temporal: Mapping[str, Any] | None = None,
    ) -> None:
        """One audit row per batch: ids and screening outcomes, never content or PII values."""
        flagged = {
            m.id: d.audit_details()
            for m, d in zip(memories, decisions, strict=True)
            if d.action != "allow" or d.pii_found
        }
        self.records.audit(
            user_id,
            "write",
            [m.id for m in memories],
            {
                "count": len(memories),
                "tool": tool,
                "quarantined": sum(m.status == Status.QUARANTINED for m in memories),
                "pii_masked": sum(len(d.pii_found) for d in decisions),
                "flagged": flagged,
                **_by(),
                **({"temporal": dict(temporal)} if temporal else {}),
            },
        )

    def _project(self, memories: list[Memory], vecs: np.ndarray) -> None:
        known = {m.id: v for m, v in zip(memories, vecs, strict=True)}
        items = self.records.outbox_for(list(known))
        _, failed = self.projector.apply(items, known)
        if failed:
            self._next_drain = time.monotonic() + 1.0

    def get(self, user_id: str, memory_id: str, *, viewer: Viewer = Viewer.AGENT) -> Memory:
        """One memory. An agent asking for a quarantined one gets HeldForReviewError (a
        NotFoundError that says it is pending review) instead of its content."""
        user_id = check_user(user_id)
        found = self.records.get(user_id, [str(memory_id)])
        if memory_id not in found:
            raise NotFoundError(str(memory_id))
        return check_visible(found[memory_id], viewer)

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
        """Change a memory; new content is screened, then re-embedded and re-indexed.

        New content the firewall quarantines changes nothing yet: it is stored as a separate
        quarantined version (its metadata's `update_of` names this memory) and returned, while
        this memory stays current until a review approves the new version (which then
        supersedes it) or rejects it (which deletes only the new version)."""
        mem = self.get(user_id, memory_id)
        before = copy.copy(mem)
        if content is None and memory_type is None and metadata is None and confidence is None:
            raise ValidationError("content", "nothing to update: give content or another field")
        decision = None
        new_meta = check_metadata(metadata) if metadata is not None else None
        if content is not None or new_meta:
            # New metadata is screened like a write's: an update must not be a way past the
            # firewall. Unchanged content is screened with it, as the context it arrives in.
            text = mem.content
            if content is not None:
                text = check_content(content, self.settings.max_content_chars)
            decision = self.guard.screen_write(text, mem.source.value, new_meta)
            metrics.write_decision(decision.action)
            if decision.action == "reject":
                reason = decision.reasons[0] if decision.reasons else "refused"
                self.records.audit(mem.user_id, "reject", [mem.id], {"tool": tool})
                raise ValidationError(
                    decision.source_field, f"rejected by the memory firewall: {reason}"
                )
            if content is not None:
                mem.content = decision.content_after_masking
                mem.summary = summarize(mem.content)
            if new_meta is not None and decision.metadata_after_masking is not None:
                new_meta = decision.metadata_after_masking
        if memory_type is not None:
            mem.memory_type = parse_memory_type(memory_type)
        if new_meta is not None:
            mem.metadata = {**mem.metadata, **new_meta}
        if confidence is not None:
            mem.confidence = check_confidence(confidence)
        mem.updated_at = utcnow()
        if decision is not None and decision.action == "quarantine":
            return self._hold_update(before, mem, decision, tool)
        vec = self.embedder.encode([mem.content]) if content is not None else None
        with self._write_lock:
            if content is not None and before.content != mem.content:
                self.temporal.keep_version(before, mem)  # a new version, not an overwrite
            self.records.update_content(mem, search_text(mem.content))
            self._invalidate(mem.user_id)
            if vec is not None:
                self._project([mem], vec)
            else:
                self.projector.apply(self.records.outbox_for([mem.id]))
            self.records.audit(
                mem.user_id,
                "update",
                [mem.id],
                {
                    "content_changed": vec is not None,
                    "tool": tool,
                    **_by(),
                    "screen": decision.audit_details() if decision else None,
                },
            )
        return mem

    def _hold_update(
        self, before: Memory, proposed: Memory, decision: WriteDecision, tool: str | None
    ) -> Memory:
        """Store a quarantined update as its own pending version, written like a new memory
        (embedded, linked, indexed, held out of recall by its status); `before` is not touched."""
        pending = self.temporal.held_update(before, proposed)
        pending.expires_at = lifecycle.expiry(
            pending.memory_type.value, pending.created_at, self.settings
        )
        pending.decay_score = lifecycle.decay_score(pending, pending.created_at, self.settings)
        vec = self.embedder.encode([pending.content])
        extractions = self.extractor.extract_many([pending.content])
        with self._write_lock:
            graph = self.linker.link(pending.user_id, [pending], extractions)
            self.records.insert([pending], [search_text(pending.content)], graph)
            self._invalidate(pending.user_id)
            self._project([pending], vec)
            self.records.audit(
                pending.user_id,
                "update",
                [before.id, pending.id],
                {
                    "content_changed": False,
                    "held_for_review": pending.id,
                    "tool": tool,
                    **_by(),
                    "screen": decision.audit_details(),
                },
            )
        return pending

    def forget(self, user_id: str, memory_ids: list[str], *, reason: str = "forget") -> list[str]:
        """Hard-delete memories from every store at once; returns the ids that existed.
        `reason` is the audit action (forget, or expire when a TTL ran out)."""
        user_id = check_user(user_id)
        ids = [str(i) for i in memory_ids]
        with self._write_lock:
            versions = self.temporal.version_copies(user_id, ids)  # earlier contents go too
            deleted = self.records.delete(user_id, ids + versions)
            if deleted:
                self._invalidate(user_id)
                self.projector.apply(self.records.outbox_for(deleted))
                self.records.audit(user_id, reason, deleted, {"count": len(deleted)})
        return [i for i in deleted if i not in versions]

    def restore(self, user_id: str, memory_ids: list[str]) -> list[str]:
        """Bring archived memories back into default recall; returns the ids restored."""
        return lifecycle.set_status(
            self,
            check_user(user_id),
            [str(i) for i in memory_ids],
            Status.ACTIVE,
            Status.ARCHIVED,
        )

    def archive(self, user_id: str, memory_ids: list[str]) -> list[str]:
        """Take active memories out of default recall (`include_archived` still finds them)."""
        return lifecycle.set_status(
            self,
            check_user(user_id),
            [str(i) for i in memory_ids],
            Status.ARCHIVED,
            Status.ACTIVE,
        )

    def compact(self, **kwargs: Any) -> Any:
        """Apply the lifecycle rules over the store: see graphmem.compaction.compact."""
        from graphmem.compaction import compact

        return compact(self, **kwargs)

    def quarantined(self, user_id: str, limit: int = 100) -> list[Memory]:
        """Memories the firewall held back from recall, waiting for review."""
        from graphmem.stores.records import RecordQuery

        user_id = check_user(user_id)
        return self.records.list(
            RecordQuery(user_id, None, (Status.QUARANTINED.value,)), check_top_k(limit, 10_000)
        )

    def review(
        self, user_id: str, memory_ids: list[str], *, approve: bool, reviewer: Actor = CLI
    ) -> list[str]:
        """Approve (back into recall) or reject (deleted from every store) quarantined
        memories; only quarantined ones are touched. Returns the ids acted on.

        Only an operator reviews: the firewall quarantines what an agent wrote, so an agent
        that could approve would switch the firewall off for itself. In-process callers and the
        CLI act as the local operator; the MCP server passes the caller's token."""
        user_id = check_user(user_id)
        if not reviewer.is_operator:
            raise ValidationError(
                "role",
                f"reviewing quarantined memories is an operator's act; {reviewer.label!r} is"
                f" an {reviewer.role} token. Ask the operator to review them (`graphmem"
                " quarantine approve|reject ID`, or a token created with `graphmem serve"
                " --add-token USER --role operator`)",
            )
        ids = [str(i) for i in memory_ids]
        if not ids:
            raise ValidationError("memory_ids", "give at least one memory id")
        pending = {m.id for m in self.quarantined(user_id, 10_000)}
        ids = [i for i in ids if i in pending]
        if approve:
            with self._write_lock:
                done = self.records.set_status(
                    user_id, ids, Status.ACTIVE.value, only_from=Status.QUARANTINED.value
                )
                ended = self.temporal.on_approved(
                    user_id, list(self.records.get(user_id, done).values())
                )
                done_and_ended = [*done, *(x.old_id for x in ended)]
                self._invalidate(user_id)
                self.projector.apply(self.records.outbox_for(done_and_ended))
        else:
            done = self.forget(user_id, ids)
        metrics.quarantine_review(approve, len(done))
        self.records.audit(
            user_id,
            "approve" if approve else "reject_quarantined",
            done,
            {"reviewer": reviewer.label, "role": reviewer.role, "count": len(done)},
        )
        return done

    def forget_user(self, user_id: str, *, requested_by: str = "user") -> ErasureReceipt:
        """Erase everything about a user from every store; the receipt proves what is left."""
        user_id = check_user(user_id)
        return erase_user(self, user_id, requested_by, self.purgers)

    def verify_erased(self, user_id: str) -> dict[str, int]:
        return residue(self, check_user(user_id), self.purgers)

    def forget_by_query(
        self,
        user_id: str,
        query: str,
        *,
        threshold: float | None = None,
        limit: int = 10,
        dry_run: bool = False,
    ) -> list[Memory]:
        """Delete the memories at least `threshold` similar to `query` (cosine)."""
        user_id = check_user(user_id)
        query = check_content(query, self.settings.max_content_chars, "query")
        thr = self.settings.forget_similarity
        if threshold is not None:
            thr = check_number(threshold, "threshold", 0.0, 1.0, low_open=True)
        limit = check_top_k(limit, 1000)
        matches = self.retriever.similar(user_id, query, thr, limit)
        if not dry_run and matches:
            self.forget(user_id, [m.id for m in matches])
        return matches

    # ------------------------------------------------------------------ reads
    def search(
        self,
        user_id: str,
        query: str,
        top_k: int = 5,
        *,
        memory_type: str | None = None,
        time_range: str | None = None,
        session_id: str | None = None,
        weights: str | Mapping[str, Any] | None = None,
        profile: str | None = None,
        include_archived: bool = False,
        track_access: bool = True,
        expand_hops: int | None = None,
        relation_types: str | list[str] | None = None,
        as_of: str | datetime | None = None,
        include_history: bool = False,
        tool: str | None = None,
    ) -> SearchResult:
        """Hybrid recall, expanded `expand_hops` (default 2, 0 disables) over the memory graph,
        optionally only over `relation_types`; every hit carries the path that brought it.
        Current memories only, unless the query asks about the past, `as_of` (what was valid
        then) or `include_history` is given (graphmem.temporal.recall_window).

        Results are cached per user (keyed by every argument) until that user's next write,
        update or forget, or the cache TTL; a cached hit re-reads its memory from the records.
        """
        self._maybe_drain()
        start = time.perf_counter()
        user_id = check_user(user_id)
        if isinstance(query, str) and query.strip():
            # PII in a query is masked before it reaches the embedder, caches and logs.
            query = self.guard.before_search_text(query)
        filters: dict[str, Any] = {
            "memory_type": memory_type,
            "time_range": time_range,
            "session_id": session_id,
            "weights": weights,
            "profile": profile,
            "include_archived": include_archived,
            "expand_hops": expand_hops,
            "relation_types": relation_types,
        }
        if as_of is not None or include_history:  # absent otherwise: cache keys stay as they were
            when = parse_datetime(as_of, "as_of")
            filters.update(
                as_of=when.isoformat() if when else None, include_history=bool(include_history)
            )
        key = cache_key(query=query, top_k=top_k, **filters)  # every argument that shapes hits
        result = self._cached(user_id, key)
        if result is None:
            result = self.retriever.search(user_id, query, top_k, **filters)
            if not result.degraded:
                self._cache_put(user_id, key, result)
        if track_access and result.hits:
            self.access.add(user_id, [h.memory.id for h in result.hits])
        result.took_ms = (time.perf_counter() - start) * 1000
        self.latencies_ms.append(result.took_ms)
        if len(self.latencies_ms) > 10_000:
            del self.latencies_ms[:5_000]
        return result

    def _cached(self, user_id: str, key: str) -> SearchResult | None:
        try:
            entry = self.cache.get(user_id, key)
        except Exception as e:  # noqa: BLE001 - a cache that is down only costs speed
            log.warning("search cache unavailable: %s", e)
            metrics.store_error("cache", "get")
            return None
        if entry is None:
            self.cache_misses += 1
            return None
        rows = only_visible(self.records.get(user_id, [e[0] for e in entry]))
        if len(rows) != len(entry):  # changed behind the cache's back (another process)
            self.cache_misses += 1
            return None
        self.cache_hits += 1
        hits: list[Hit] = [
            TracedHit(rows[mid], score, scores, [Step(**s) for s in path])
            for mid, score, scores, path in entry
        ]
        return SearchResult(hits=hits, took_ms=0.0)

    def _cache_put(self, user_id: str, key: str, result: SearchResult) -> None:
        entry = [
            [h.memory.id, h.score, h.scores, [vars(s) for s in getattr(h, "path", [])]]
            for h in result.hits
        ]
        try:
            self.cache.set(user_id, key, entry)
        except Exception as e:  # noqa: BLE001
            log.warning("search cache unavailable: %s", e)
            metrics.store_error("cache", "set")

    def _invalidate(self, user_id: str) -> None:
        """A user's write, update or forget makes every cached result of theirs stale."""
        try:
            self.cache.invalidate(user_id)
        except Exception as e:  # noqa: BLE001 - entries expire by TTL if Redis is down now
            log.warning("could not invalidate the search cache for a user: %s", e)
            metrics.store_error("cache", "invalidate")

    @property
    def cache_hit_rate(self) -> float:
        total = self.cache_hits + self.cache_misses
        return self.cache_hits / total if total else 0.0

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
        user_id = check_user(user_id)
        rtype = str(relation_type or "").strip().lower()
        if rtype not in RELATION_TYPES:
            raise ValidationError(
                "relation_type", f"{relation_type!r} is not one of {', '.join(RELATION_TYPES)}"
            )
        try:
            w = float(strength)
        except (TypeError, ValueError):
            raise ValidationError("strength", f"{strength!r} is not a number") from None
        if not 0.0 < w <= 1.0:
            raise ValidationError("strength", "must be in (0, 1]")
        if str(source_id) == str(target_id):
            raise ValidationError("target_id", "a memory cannot be related to itself")
        found = self.records.get(user_id, [str(source_id), str(target_id)])
        for mid in (source_id, target_id):
            if str(mid) not in found:
                raise NotFoundError(str(mid))
        rel = Relation(user_id, str(source_id), str(target_id), rtype, w)
        with self._write_lock:
            self.records.save_graph(GraphRows(user_id, {}, [rel]), set_strength=True)
            self._invalidate(user_id)
            self.projector.apply(self.records.outbox_for([rel.source_id, rel.target_id]))
            self.records.audit(
                user_id,
                "relate",
                [rel.source_id, rel.target_id],
                {"relation_type": rtype, "strength": w},
            )
        return rel

    def graph(
        self,
        user_id: str,
        memory_id: str,
        hops: int = 1,
        relation_types: str | list[str] | None = None,
        *,
        viewer: Viewer = Viewer.AGENT,
    ) -> dict[str, Any]:
        """A memory's neighbourhood in the graph: the memories within `hops` and their edges.

        Only what `viewer` may read is shown, and only what is reachable through it: a
        quarantined memory is neither a node nor a bridge to memories beyond it."""
        user_id = check_user(user_id)
        hops = associative.check_hops(hops, "hops")
        rtypes = associative.parse_relation_types(relation_types)
        self.get(user_id, memory_id, viewer=viewer)
        self._maybe_drain()
        ids, edges = associative.neighbourhood(
            self.graph_store, user_id, str(memory_id), hops, rtypes, self.settings.graph_fanout
        )
        rows = only_visible(self.records.get(user_id, ids), viewer)
        edges = [e for e in edges if e.source_id in rows and e.target_id in rows]
        reached = set(within_hops(str(memory_id), edges, hops))
        rows = {i: m for i, m in rows.items() if i in reached}
        names = self.graph_store.entity_names(user_id, [i for i in ids if i in rows])
        return {
            "memory_id": str(memory_id),
            "hops": hops,
            "nodes": [
                {
                    "id": i,
                    "content": rows[i].content,
                    "memory_type": rows[i].memory_type.value,
                    "entities": names.get(i, []),
                }
                for i in ids
                if i in rows
            ],
            "edges": [
                {
                    "from": e.source_id,
                    "type": e.relation_type,
                    "to": e.target_id,
                    "strength": round(e.strength, 6),
                    # an edge that no longer holds says since when and until when it did
                    **(
                        {"valid_from": _epoch_iso(e.valid_from), "valid_to": _epoch_iso(e.valid_to)}
                        if e.valid_to is not None
                        else {}
                    ),
                }
                for e in edges
                if e.source_id in rows and e.target_id in rows
            ],
        }

    def history(
        self, user_id: str, memory_id: str, *, viewer: Viewer = Viewer.AGENT
    ) -> list[Memory]:
        """Every version of a memory (what it superseded and what superseded it), oldest first;
        versions held in quarantine are left out unless an operator asks."""
        user_id = check_user(user_id)
        self.get(user_id, memory_id, viewer=viewer)
        return [m for m in self.temporal.versions(user_id, str(memory_id)) if visible(m, viewer)]

    def list(
        self,
        user_id: str,
        *,
        memory_type: str | None = None,
        include_archived: bool = True,
        limit: int | None = None,
        offset: int = 0,
        viewer: Viewer = Viewer.AGENT,
    ) -> list[Memory]:
        """The user's memories, oldest first; quarantined ones only for an operator (an agent
        reads those through `quarantined`, the review queue, which lists them on purpose)."""
        from graphmem.stores.records import RecordQuery

        user_id = check_user(user_id)
        every = tuple(s.value for s in Status) if include_archived else ("active",)
        statuses = readable_statuses(every, viewer)
        mt = parse_memory_type(memory_type).value if memory_type else None
        self.access.flush()
        return self.records.list(RecordQuery(user_id, mt, statuses), limit, offset)

    def stats(self, user_id: str) -> dict[str, Any]:
        user_id = check_user(user_id)
        self.access.flush()
        out = self.records.stats(user_id)
        lat = sorted(self.latencies_ms)
        out.update(
            {
                "user_id": user_id,
                "vectors": self.vectors.count(user_id) if self._vectors_ok() else None,
                "outbox_pending": self.records.outbox_count(),
                "query_cache_hit_rate": round(self.embedder.cache_hit_rate, 4),
                "search_cache_hit_rate": round(self.cache_hit_rate, 4),
                "recall_p50_ms": round(lat[len(lat) // 2], 3) if lat else None,
                "recall_p95_ms": round(lat[int(len(lat) * 0.95)], 3) if lat else None,
                "graph": self.records.graph_counts(user_id),
                "stores": {
                    "records": self.records.health(),
                    "vectors": self.vectors.health(),
                    "graph": self.graph_store.health(),
                    "cache": self.cache.health(),
                },
            }
        )
        return out

    def _vectors_ok(self) -> bool:
        return bool(self.vectors.health().get("ok"))


def _by() -> dict[str, str]:
    """The audit field naming who acted (a token label, "stdio" or "cli"), when an interface
    said; in-process callers add nothing."""
    actor = current_actor.get()
    return {"by": actor.label} if actor is not None else {}


def _epoch_iso(value: float | None) -> str | None:
    return datetime.fromtimestamp(value, UTC).isoformat() if value is not None else None


__all__ = ["AccessTracker", "MemoryService", "SearchResult"]
