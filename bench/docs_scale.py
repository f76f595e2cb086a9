"""Documents at scale: ingest throughput of real pages, and recall latency over memories + chunks.

A document chunk is a record of kind=document in the same store as the user's memories, so the
question is what documents cost: how fast pages go in, and how search latency behaves when a
user's store holds as many chunks as memories. One run on the embedded default (SQLite + Qdrant
Edge) measures:

ingest   `--pages` synthetic wiki-style Markdown pages (H1 title, H2 sections, 400-900 words,
         seeded sentences from bench/synth.py) written to a temporary folder and ingested with
         `svc.ingest(user, [folder])`: the real path (read, parse, chunk, screen, embed,
         extract, link, commit). Pages/s and chunks/s, and the wall time split by stage (the
         embedding runs in a worker thread beside extraction, so those two overlap);
fill     memories and chunks up to `--memories` / `--chunks` in total: the first
         `--real-memories` memories through `write_many` with real embeddings
         (scale.write_real), the rest through scale.write_bulk (record rows + perturbed real
         vectors, no model, no graph); the chunks beyond the ingested ones the same way but as
         kind=document records (source=document, doc_uri / doc_title / chunk_index metadata),
         their vectors perturbed from the ingested chunks' real embeddings. As in scale.py, a
         bulk row's text and vector do not match: only latency is meaningful there;
search   p50/p95 of `svc.search` (top-10, wall clock, track_access=False, result cache off,
         fresh queries never searched before) for kinds=both (the default), kinds=memory,
         kinds=document, and kinds=both without graph expansion (expand_hops=0).

Usage: python bench/docs_scale.py [--memories 100000 --chunks 100000] [--quick] [--out F.json]

Last run (2026-12-04, 2 cores, commit f7733b2, another benchmark using 45-72% of the CPU):
`python bench/docs_scale.py --memories 100000 --chunks 100000 --out docs-scale-100k.json`:
ingest 300 pages (726 words each on average) 1.2 pages/s, 8.8 chunks/s (7.4 chunks a page);
search at 100k memories + 100k chunks, p50 / p95 ms: kinds=both 36.9 / 61.6, kinds=memory
29.4 / 60.8, kinds=document 63.5 / 110.7, kinds=both without graph 28.2 / 48.7. The machine
was busy, so these are upper bounds; rerun on a quiet machine before quoting them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402
    RESULTS_DIR,
    CpuMeter,
    command_line,
    fmt,
    machine_info,
    memory_point,
    parse_sets,
    settings_kwargs,
    settings_snapshot,
)
from scale import TOP_K, Stages, lat_summary, write_bulk, write_real  # noqa: E402
from synth import CITIES, TOPICS, Generator  # noqa: E402

# label -> search() keyword arguments, timed in this order on fresh queries.
KIND_MODES: dict[str, dict[str, Any]] = {
    "kinds=both (default)": {},
    "kinds=memory": {"kinds": "memory"},
    "kinds=document": {"kinds": "document"},
    "kinds=both, no graph (expand_hops=0)": {"expand_hops": 0},
}
HEADINGS = [
    "Overview",
    "History",
    "People involved",
    "Timeline",
    "Practicalities",
    "Costs",
    "Open questions",
    "Lessons learned",
    "Follow-ups",
    "Meeting notes",
    "Decisions",
    "Risks",
]
CHUNKS_PER_BULK_DOC = 8


# ------------------------------------------------------------------------------ pages
def wiki_page(gen: Generator, rng: random.Random, index: int) -> tuple[str, str]:
    """One deterministic wiki-style Markdown page (title, text): an H1 title, then H2 sections
    of one to three paragraphs of two to five sentences, until 400-900 words."""
    title = f"{rng.choice(TOPICS).capitalize()} in {rng.choice(CITIES)} (page {index})"
    target = rng.randint(400, 900)
    lines = [f"# {title}", ""]
    words = 0
    for heading in rng.sample(HEADINGS, len(HEADINGS)):
        if words >= target:
            break
        lines += [f"## {heading}", ""]
        for _ in range(rng.randint(1, 3)):
            para = " ".join(gen.memories(rng.randint(2, 5)))
            lines += [para, ""]
            words += len(para.split())
            if words >= target:
                break
    return title, "\n".join(lines)


def write_pages(folder: Path, n: int, seed: int) -> dict[str, Any]:
    """Write n pages into folder; their count of words, for the report."""
    gen = Generator(seed=seed + 1000)  # its own stream: the bulk texts stay the same per seed
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    words = []
    for i in range(n):
        _, text = wiki_page(gen, rng, i)
        (folder / f"page-{i:05d}.md").write_text(text, "utf-8")
        words.append(len(text.split()))
    return {"pages": n, "words_mean": round(sum(words) / max(1, n)), "words_max": max(words)}


def ingest_pages(svc: Any, user: str, folder: Path) -> dict[str, Any]:
    """Ingest the folder through svc.ingest, timing the stages on the live objects."""
    from graphmem.usecases import documents

    ctx = svc.context
    st = Stages()
    st.wrap(documents, "load", "read + parse")
    st.wrap(documents, "_chunks", "chunking")
    st.wrap(documents, "chunks_of", "already-ingested lookups")
    st.wrap(ctx.guard, "screen_write", "screening")
    st.wrap(ctx.embedder, "encode", "embedding (worker thread)")
    st.wrap(ctx.extractor, "extract_many", "extraction (beside embedding)")
    st.wrap(ctx.linker, "link", "linking")
    st.wrap(ctx.records, "insert", "records insert")
    st.wrap(ctx, "project", "vector + graph projection")
    meter = CpuMeter().start()
    t0 = time.perf_counter()
    try:
        report = svc.ingest(user, [folder])
    finally:
        st.undo()
    wall = time.perf_counter() - t0
    stages = {k: round(v, 2) for k, v in st.seconds.items()}
    # embedding overlaps extraction: "other" counts the longer of the two only
    overlap = min(
        st.seconds.get("embedding (worker thread)", 0.0),
        st.seconds.get("extraction (beside embedding)", 0.0),
    )
    stages["other"] = round(wall - sum(st.seconds.values()) + overlap, 2)
    return {
        "documents": report.documents,
        "chunks": report.chunks,
        "failed": report.failed,
        "quarantined": sum(o.quarantined for o in report.outcomes),
        "wall_s": round(wall, 2),
        "pages_per_s": round(report.documents / wall, 2),
        "chunks_per_s": round(report.chunks / wall, 1),
        "chunks_per_page": round(report.chunks / max(1, report.documents), 1),
        "stages_s": stages,
        "cpu": meter.stop(),
    }


# ------------------------------------------------------------------------------ fill
def chunk_vectors(svc: Any, user: str) -> Any:
    """The real embeddings of the user's ingested chunks: the base the bulk chunks perturb."""
    from graphmem.usecases.documents import chunks_of

    return _vectors_of(svc, [m.id for m in chunks_of(svc.context, user)])


def chunk_rows(gen: Generator, seed: int) -> Any:
    """Records for scale.write_bulk shaped like ingested chunks (kind=document): a title
    line, then three to six sentences, eight chunks per document."""
    from graphmem.domain.model import Kind, Memory, MemoryType, Source, new_id
    from graphmem.domain.summary import summarize

    pick = random.Random(seed)
    now = datetime.now(UTC)

    def rows(user: str, first: int, n: int) -> list[Any]:
        out = []
        for j in range(first, first + n):
            doc = j // CHUNKS_PER_BULK_DOC
            title = f"{TOPICS[doc % len(TOPICS)].capitalize()} in {CITIES[doc % len(CITIES)]}"
            body = " ".join(gen.memories(pick.randint(3, 6)))
            created = now - timedelta(minutes=pick.randint(0, 525_600))
            out.append(
                Memory(
                    id=new_id(),
                    user_id=user,
                    content=f"{title} (bulk {doc}) › {pick.choice(HEADINGS)}\n{body}",
                    summary=summarize(body)[:255],
                    memory_type=MemoryType.FACT,
                    source=Source.DOCUMENT,
                    kind=Kind.DOCUMENT,
                    metadata={
                        "doc_uri": f"bulk://docs/{doc}.md",
                        "doc_title": title,
                        "chunk_index": j % CHUNKS_PER_BULK_DOC,
                        "bulk": True,
                    },
                    created_at=created,
                    updated_at=created,
                    valid_from=created,
                )
            )
        return out

    return rows


class _Quiet:
    """The progress-bar interface scale.write_real / write_bulk expect, printing every 10%."""

    def __init__(self, label: str, total: int) -> None:
        self.label, self.total, self.done, self.next = label, max(1, total), 0, 0.1

    def update(self, n: int) -> None:
        self.done += n
        if self.done / self.total >= self.next:
            print(f"  {self.label} {self.done:,}/{self.total:,}", file=sys.stderr, flush=True)
            self.next += 0.1


# ------------------------------------------------------------------------------ search
def measure_kinds(svc: Any, gen: Generator, users: list[str], n_queries: int) -> dict[str, Any]:
    """p50/p95 per kinds mode on fresh queries, with the share of document hits in the top 10."""
    out: dict[str, Any] = {}
    for q in gen.queries(5):  # warm-up: statement caches, first HNSW touch
        svc.search(users[0], q, TOP_K, track_access=False)
    for label, kwargs in KIND_MODES.items():
        ms: list[float] = []
        doc_hits = hits = 0
        meter = CpuMeter().start()
        for k, q in enumerate(gen.queries(n_queries)):
            t0 = time.perf_counter()
            res = svc.search(users[k % len(users)], q, TOP_K, track_access=False, **kwargs)
            ms.append((time.perf_counter() - t0) * 1000)
            hits += len(res.hits)
            doc_hits += sum(h.memory.kind.value == "document" for h in res.hits)
        out[label] = {
            **lat_summary(ms),
            "args": kwargs,
            "hits_per_search": round(hits / max(1, len(ms)), 2),
            "document_share": round(doc_hits / hits, 3) if hits else None,
            "cpu": meter.stop(),
        }
    return out


# ------------------------------------------------------------------------------ report
def markdown(r: dict[str, Any]) -> str:
    m, ing = r["machine"], r["ingest"]
    L = [
        f"Documents at scale — {m['date']}, {m['cores']} cores ({m['cpu']}), graphmem"
        f" {m.get('git')}; load average {r['loadavg_start']} at start, {r['loadavg_end']} at end",
        f"Command: `{r['command']}`",
        "",
        f"#### Ingest ({ing['documents']} pages, {r['pages']['words_mean']} words on average,"
        f" {ing['chunks']} chunks)",
        "",
        "| pages/s | chunks/s | chunks/page | wall s | "
        + " | ".join(ing["stages_s"])
        + " | other processes' CPU |",
        "|---|---|---|---|" + "---|" * len(ing["stages_s"]) + "---|",
        f"| **{ing['pages_per_s']}** | **{ing['chunks_per_s']}** | {ing['chunks_per_page']} |"
        f" {ing['wall_s']} | "
        + " | ".join(str(v) for v in ing["stages_s"].values())
        + f" | {_busy(ing['cpu'])} |",
        "",
        f"#### Search latency at {r['store']['memories']:,} memories +"
        f" {r['store']['chunks']:,} chunks ({r['users']} user(s); `svc.search`, top-{TOP_K},"
        " ms, fresh queries)",
        "",
        "| mode | p50 | p95 | mean | max | searches | document share of hits | others' CPU |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for label, s in r["search"].items():
        L.append(
            f"| {label} | **{fmt(s['p50'], 2)}** | **{fmt(s['p95'], 2)}** | {fmt(s['mean'], 2)}"
            f" | {fmt(s['max'], 1)} | {s['n']} | {fmt(s['document_share'], 2)} |"
            f" {_busy(s['cpu'])} |"
        )
    L += ["", "Fill: " + "; ".join(f"{f['path']}: {f['wall_s']} s" for f in r["fill"])]
    L += ["", *[f"Note: {n}" for n in r["notes"]]]
    return "\n".join(L) + "\n"


def _busy(cpu: dict[str, Any]) -> str:
    b = cpu.get("others_busy")
    return "–" if b is None else f"{b:.0%}"


# ------------------------------------------------------------------------------ main
def run(args: argparse.Namespace, embedder: Any = None) -> dict[str, Any]:
    """The whole benchmark on a fresh store; `embedder` lets a test share a loaded model."""
    from graphmem import MemoryService, Settings

    overrides = {"search_cache_ttl_seconds": 0.0, **parse_sets(args.set)}
    users = [f"docs-user-{i}" for i in range(max(1, args.users))]
    gen = Generator(seed=args.seed)
    result: dict[str, Any] = {
        "benchmark": "docs_scale",
        "command": args.command,
        "machine": machine_info(),
        "loadavg_start": round(os.getloadavg()[0], 2),
        "users": len(users),
        "top_k": TOP_K,
        "notes": list(args.note),
    }
    with tempfile.TemporaryDirectory(prefix="graphmem-docs-scale-") as tmp:
        data_dir = args.data_dir or Path(tmp) / "store"
        svc = MemoryService(
            Settings(data_dir=data_dir, **settings_kwargs(overrides)), embedder=embedder
        )
        try:
            result["settings"] = settings_snapshot(svc.settings)
            svc.embedder.encode(["warm up the model"] * 64)
            result["pages"] = write_pages(Path(tmp) / "pages", args.pages, args.seed)
            print(f"ingesting {args.pages} pages ...", file=sys.stderr, flush=True)
            result["ingest"] = ingest_pages(svc, users[0], Path(tmp) / "pages")
            fill: list[dict[str, Any]] = []
            real = min(args.real_memories, args.memories)
            if real:
                print(f"writing {real:,} memories (real) ...", file=sys.stderr, flush=True)
                w = write_real(svc, gen, users, 0, real, 500, _Quiet("memories", real))
                base_mem = _vectors_of(svc, w.pop("ids")[:20_000])
                fill.append(w)
            else:
                base_mem = svc.embedder.encode(gen.memories(500))
            if args.memories > real:
                print("bulk memories ...", file=sys.stderr, flush=True)
                bar = _Quiet("memories", args.memories - real)
                b = write_bulk(svc, gen, users, real, args.memories, base_mem, args.perturb, bar)
                b.pop("ids", None)
                fill.append(b)
            ingested = result["ingest"]["chunks"]
            if args.chunks > ingested:
                print("bulk chunks ...", file=sys.stderr, flush=True)
                base_doc = chunk_vectors(svc, users[0])
                bar = _Quiet("chunks", args.chunks - ingested)
                c = write_bulk(
                    svc,
                    gen,
                    users,
                    ingested,
                    args.chunks,
                    base_doc,
                    args.perturb,
                    bar,
                    rows=chunk_rows(gen, ingested),
                )
                c.pop("ids", None)
                c["path"] = "bulk chunks (kind=document rows + perturbed vectors, no embedding)"
                fill.append(c)
            result["fill"] = fill
            result["store"] = {
                "memories": max(real, args.memories),
                "chunks": max(ingested, args.chunks),
                "records": svc.records.count(),
                "vector_index": svc.vectors.health(),
            }
            print("searching ...", file=sys.stderr, flush=True)
            result["search"] = measure_kinds(svc, gen, users, args.queries)
            result["memory"] = memory_point()
        finally:
            svc.close()
    result["loadavg_end"] = round(os.getloadavg()[0], 2)
    return result


def _vectors_of(svc: Any, ids: list[str]) -> Any:
    import numpy as np

    got: dict[str, Any] = {}
    for i in range(0, len(ids), 1000):
        got.update(svc.vectors.vectors(ids[i : i + 1000]))
    return np.stack(list(got.values()))


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--pages", type=int, default=300, help="synthetic pages ingested for real")
    p.add_argument("--memories", type=int, default=100_000, help="memories in the store")
    p.add_argument("--chunks", type=int, default=100_000, help="document chunks in the store")
    p.add_argument(
        "--real-memories", type=int, default=2000, help="of which written with real embeddings"
    )
    p.add_argument("--users", type=int, default=1, help="spread the records over this many")
    p.add_argument("--queries", type=int, default=200, help="fresh queries per mode")
    p.add_argument("--perturb", type=float, default=0.02, help="bulk path: noise per dimension")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--quick", action="store_true", help="2k memories + 2k chunks, at most 20 pages")
    p.add_argument("--data-dir", type=Path, default=None, help="keep the store here")
    p.add_argument("--out", type=Path, default=None, help="JSON here, Markdown beside it")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--note", action="append", default=[], help="a note recorded with the results")
    args = p.parse_args(argv)
    # as typed: sys.argv when run as a script, the arguments given when called in-process
    args.command = (
        command_line() if argv is None else " ".join(["python bench/docs_scale.py", *argv])
    )
    if args.quick:
        args.pages, args.memories, args.chunks = min(args.pages, 20), 2000, 2000
        args.real_memories, args.queries = min(args.real_memories, 300), min(args.queries, 30)
    for name in ("pages", "memories", "chunks", "queries"):
        if getattr(args, name) < (1 if name in ("pages", "queries") else 0):
            p.error(f"--{name} must be positive")
    return args


def main(argv: list[str] | None = None, embedder: Any = None) -> int:
    args = parse(argv)
    result = run(args, embedder)
    out = args.out or RESULTS_DIR / f"docs-scale-{datetime.now().strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1, default=str), "utf-8")
    md = markdown(result)
    out.with_suffix(".md").write_text(md, "utf-8")
    print(md)
    print(f"results: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
