"""Batch jobs over the records: re-run extraction (`backfill relations`) and rebuild the vector
and graph projections and the keyword column (`backfill rebuild`;
rebuild_graph, below, rebuilds the graph alone).

What derived data was made with is recorded in the store (`store_meta`): the embedder's identity
(model and precision) under EMBEDDING_META, the keyword tokenizer's version under TOKENIZER_META.
A store opened by a service (`check_on_open`):
- with no memories yet is stamped with the current embedder and tokenizer;
- with keyword tokens of another version has them rewritten there and then. Only rows whose
  tokens change are written (a tokenizer change that leaves English alone rewrites only the
  memories with Chinese in them), and the reindex takes about as long as tokenising every
  memory once; a keyword channel that silently misses what older rows spell differently
  would be worse than a slower first open;
- embedded by another model is logged, not re-embedded: that is a full re-embedding, the
  operator's call (`graphmem backfill rebuild`); `graphmem doctor` reports it too.

`backfill_relations` walks memories in storage order (doc_id), `batch` at a time, extracts
entities and relations exactly as a write does, stores them (insert-or-keep: re-running adds no
duplicate) and queues their graph projection. After each batch it writes a checkpoint file under
the data directory, so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphmem.domain.model import Memory
from graphmem.domain.text import TOKENIZER_VERSION, search_text
from graphmem.images.channel import stamp
from graphmem.settings import Settings
from graphmem.stores import GraphStore, RecordsStore
from graphmem.stores.graph import graph_edge, graph_node
from graphmem.stores.vectors import vector_point
from graphmem.usecases.ports import UpkeepPorts, VectorPorts

log = logging.getLogger("graphmem.backfill")

CHECKPOINT = "backfill-relations.json"
EMBEDDING_META = "embedding_model"
TOKENIZER_META = "keyword_tokenizer"
# Stores written before the version was recorded hold version 1's tokens (CJK bigrams only).
UNRECORDED_TOKENIZER = "1"
# What a vector point's payload holds: 2 added source, agent_id, run_id and metadata tokens,
# the payload conditions of a filtered search (graphmem.domain.filters). Unrecorded: 1.
PAYLOAD_META = "vector_payload"
PAYLOAD_VERSION = "2"


@dataclass
class BackfillReport:
    memories: int = 0
    relations: int = 0
    entities: int = 0
    batches: int = 0
    resumed_from: int = 0
    last_doc_id: int = 0
    dry_run: bool = False
    complete: bool = True

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _bar(total: int, desc: str, quiet: bool) -> Any:
    from tqdm import tqdm

    return tqdm(
        total=total,
        unit="mem",
        desc=desc,
        file=sys.stderr,
        disable=quiet or not sys.stderr.isatty(),
    )


def checkpoint_path(settings: Settings, user_id: str | None) -> Path:
    suffix = "" if user_id is None else "." + hashlib.sha1(user_id.encode()).hexdigest()[:12]
    return Path(settings.data_dir) / CHECKPOINT.replace(".json", f"{suffix}.json")


def backfill_relations(
    ctx: UpkeepPorts,
    *,
    user_id: str | None = None,
    batch: int = 200,
    dry_run: bool = False,
    restart: bool = False,
    max_batches: int | None = None,
    quiet: bool = True,
    checkpoint: Path | None = None,
) -> BackfillReport:
    ckpt = checkpoint or checkpoint_path(ctx.settings, user_id)
    start = 0
    if ckpt.exists() and not restart:
        state = json.loads(ckpt.read_text("utf-8"))
        if state.get("user_id") == user_id:
            start = int(state.get("last_doc_id", 0))
    rep = BackfillReport(resumed_from=start, last_doc_id=start, dry_run=dry_run)
    total = ctx.records.count(user_id)
    bar = _bar(total, "backfill relations", quiet)
    cursor = start
    while True:
        if max_batches is not None and rep.batches >= max_batches:
            rep.complete = False
            break
        page = ctx.records.scan(cursor, batch, user_id)
        if not page:
            break
        cursor = page[-1][0]
        memories = [m for _, m in page]
        extractions = ctx.extractor.extract_many([m.content for m in memories])
        by_user: dict[str, list[int]] = {}
        for i, m in enumerate(memories):
            by_user.setdefault(m.user_id, []).append(i)
        for uid, idx in by_user.items():
            with ctx.serialised(uid):
                ms = [memories[i] for i in idx]
                rows = ctx.linker.link(uid, ms, [extractions[i] for i in idx])
                rep.relations += len(rows.relations)
                rep.entities += sum(len(v) for v in rows.entities.values())
                if not dry_run:
                    ctx.records.save_graph(rows)
        if not dry_run:
            ctx.drain_outbox()
            ckpt.parent.mkdir(parents=True, exist_ok=True)
            ckpt.write_text(json.dumps({"user_id": user_id, "last_doc_id": cursor}), "utf-8")
        rep.memories += len(page)
        rep.batches += 1
        rep.last_doc_id = cursor
        bar.update(len(page))
    bar.close()
    return rep


def tokenizer_version(records: Any) -> str:
    """The keyword token version a store holds (a store that never recorded it: version 1)."""
    return records.meta(TOKENIZER_META) or UNRECORDED_TOKENIZER


def reindex_keywords(records: Any, *, batch: int = 1000, quiet: bool = True) -> int:
    """Rewrite every memory's keyword column with today's tokens, then record the version;
    returns how many memories changed."""
    changed = 0
    for ms in _pages(records, batch, "reindex keywords", quiet):
        changed += records.set_search_texts([(m.user_id, m.id, search_text(m.content)) for m in ms])
    records.set_meta(TOKENIZER_META, str(TOKENIZER_VERSION))
    return changed


def scanned(records: Any, batch: int, user_id: str | None = None) -> Iterator[list[Memory]]:
    """The user's memories (everyone's, with None), a batch at a time in storage order."""
    cursor = 0
    while page := records.scan(cursor, batch, user_id):
        cursor = page[-1][0]
        yield [m for _, m in page]


def _pages(records: Any, batch: int, label: str, quiet: bool) -> Iterator[list[Memory]]:
    """Every memory of the store, a batch at a time in storage order, with a progress bar."""
    bar = _bar(records.count(), label, quiet)
    for memories in scanned(records, batch):
        yield memories
        bar.update(len(memories))
    bar.close()


def refresh_payloads(ctx: VectorPorts, *, batch: int = 1000, quiet: bool = True) -> int:
    """Rewrite every vector point's payload from its record, keeping its vector (no
    re-embedding), then record the payload version; returns how many points were rewritten.
    Points written before version 2 lack the fields a filtered search matches on, so until
    this runs such a search would not find them through the vector channel."""
    records, vectors = ctx.records, ctx.vectors
    n = 0
    for ms in _pages(records, batch, "vector payloads", quiet):
        have = vectors.vectors([m.id for m in ms])
        vectors.upsert([vector_point(m, have[m.id]) for m in ms if m.id in have])
        n += sum(1 for m in ms if m.id in have)
    records.set_meta(PAYLOAD_META, PAYLOAD_VERSION)
    return n


def check_on_open(ctx: UpkeepPorts) -> None:
    """Stamp a new store, bring an old store's keyword tokens up to date, and say when its
    vectors come from another model (module docstring)."""
    records = ctx.records
    if not records.scan(0, 1):  # empty; COUNT(*) would read a whole index at every start
        if records.meta(TOKENIZER_META) != str(TOKENIZER_VERSION):
            records.set_meta(TOKENIZER_META, str(TOKENIZER_VERSION))
        if records.meta(EMBEDDING_META) != ctx.embedder.identity:
            records.set_meta(EMBEDDING_META, ctx.embedder.identity)
        if records.meta(PAYLOAD_META) != PAYLOAD_VERSION:
            records.set_meta(PAYLOAD_META, PAYLOAD_VERSION)
        return
    held = tokenizer_version(records)
    if held != str(TOKENIZER_VERSION):
        t = time.perf_counter()
        with ctx.write_lock:  # store-wide, at open: the process's lock alone, as before
            n = reindex_keywords(records)
        log.warning(
            "keyword tokens: version %s -> %s, %d memories rewritten in %.1f s",
            held,
            TOKENIZER_VERSION,
            n,
            time.perf_counter() - t,
        )
    if records.meta(PAYLOAD_META) != PAYLOAD_VERSION:
        t = time.perf_counter()
        try:
            with ctx.write_lock:
                n = refresh_payloads(ctx)
        except Exception as e:  # noqa: BLE001 - searches still work; the next open retries
            log.warning("vector payloads not refreshed (vector store unavailable?): %s", e)
            n = -1
        if n >= 0:
            log.warning(
                "vector payloads: version %s, %d points rewritten in %.1f s",
                PAYLOAD_VERSION,
                n,
                time.perf_counter() - t,
            )
    made_by = records.meta(EMBEDDING_META)
    if made_by is not None and made_by != ctx.embedder.identity:
        # Another build of the same model (another precision or runtime: cosine ~0.99) still
        # finds the right memories; another model does not. Say which, so nobody panics.
        same_model = made_by.split("@")[0] == ctx.embedder.identity.split("@")[0]
        log.warning(
            "the stored vectors were made by %s, the configured embedder is %s: %s until"
            " `graphmem backfill rebuild` re-embeds them",
            made_by,
            ctx.embedder.identity,
            "another build of the same model, so searches work, slightly less exactly,"
            if same_model
            else "searches compare unrelated vectors",
        )


def rebuild(
    ctx: UpkeepPorts, *, user_id: str | None = None, batch: int = 256, quiet: bool = True
) -> dict[str, int]:
    """Rebuild the vector index and the graph from the records: re-embed, re-project. A whole
    store's rebuild also rewrites the keyword column, and records the embedder and tokenizer
    it used (one user's rebuild leaves the others' vectors as they were, so it records
    nothing)."""
    records, vectors = ctx.records, ctx.vectors
    total = records.count(user_id)
    # The process's lock alone, as it always was, not Context.serialised: a rebuild is an
    # operator's, usually store-wide, and taking a user's lock here would change what it waits on.
    with ctx.write_lock:
        if user_id is not None:
            vectors.delete_user(user_id)
        else:
            stale = vectors.ids() - records.all_ids()
            if stale:
                vectors.delete(sorted(stale))
        bar = _bar(total, "rebuild vectors", quiet)
        n = 0
        for ms in scanned(records, batch, user_id):
            vecs = ctx.embedder.encode([m.content for m in ms])
            vectors.upsert([vector_point(m, v) for m, v in zip(ms, vecs, strict=True)])
            n += len(ms)
            bar.update(len(ms))
        bar.close()
        bar = _bar(total, "rebuild graph", quiet)
        g = rebuild_graph(records, ctx.graph, user_id, progress=bar.update)
        bar.close()
        made = _rebuild_images(ctx, user_id, batch)
        if user_id is None:
            rewritten = reindex_keywords(records, quiet=quiet)
            if rewritten:
                log.warning("keyword tokens of %d memories rewritten", rewritten)
            records.set_meta(EMBEDDING_META, ctx.embedder.identity)
            records.set_meta(PAYLOAD_META, PAYLOAD_VERSION)
    return {"vectors": n, "graph_nodes": g, **made}


def _rebuild_images(ctx: UpkeepPorts, user_id: str | None, batch: int) -> dict[str, int]:
    """With an image-text model: every image memory's image vector made again from its stored
    bytes (after a model change, or for images written before the model was configured), and
    the model recorded (a whole store's rebuild). Nothing without one."""
    channel = ctx.image_channel
    if channel is None:
        return {}
    records, index = ctx.records, channel.vectors
    if user_id is not None:
        index.delete_user(user_id)
    else:
        stale = index.ids() - records.all_ids()
        if stale:
            index.delete(sorted(stale))
    n = 0
    for memories in scanned(records, batch, user_id):
        n += channel.project(memories, fresh=True)
    if user_id is None:
        stamp(records, channel.model)
    return {"image_vectors": n}


def rebuild_graph(
    records: RecordsStore,
    graph: GraphStore,
    user_id: str | None = None,
    batch: int = 500,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Make the graph projection equal to the records (for one user, or everyone).

    Two streaming passes: every memory node first (with its entities; a node's sync clears
    its edges), then every relation in storage order, added in large batches. Syncing page by
    page with each page's relations looked up by memory id took 13 minutes for 100,000
    memories and 1.7 million relations (the in-process graph is rebuilt like this whenever the
    embedded service starts); streaming took 83-106 s on a quiet 2-core machine.
    """
    if not graph.projected:  # read from the records: already equal to them
        graph.rebuilt()
        return records.count(user_id)
    if user_id is not None:
        graph.delete_user(user_id)
    else:
        stale = sorted(graph.node_ids() - records.all_ids())
        for i in range(0, len(stale), batch):  # one transaction per page: Neo4j caps its memory
            graph.delete(stale[i : i + batch])
    n = 0
    for page in scanned(records, batch, user_id):
        by_user: dict[str, list[Memory]] = {}
        for m in page:
            by_user.setdefault(m.user_id, []).append(m)
        for uid, ms in by_user.items():
            ents = records.entities_for(uid, [m.id for m in ms])
            graph.sync([graph_node(m, ents.get(m.id)) for m in ms], [])
        n += len(page)
        if progress:
            progress(len(page))
    rel_cursor = 0
    while True:
        rel_cursor, rels = records.relations_page(rel_cursor, batch * 20, user_id)
        if not rels:
            graph.rebuilt()
            return n
        graph.sync([], [graph_edge(r) for r in rels])
