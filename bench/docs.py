"""Document-grounded retrieval benchmark: conversation turns and wiki pages in one memory.

Three LoCoMo conversations (read at run time from --data, never stored in the repository) are
ingested exactly as bench/locomo.py does it, one memory per turn; each conversation's original
wiki pages (bench/docbench/pages/<sample_id>/) are then ingested into the same user as private
documents. Every question in bench/docbench/questions.json is searched once per mode:

  memory         kinds="memory"                     turns only
  document       kinds="document"                   document chunks only
  merged         kinds="memory" top-k + kinds="document" top-k, merged by score, top k
  fused          kinds="both"                       one ranked recall over both
  fused-nograph  kinds="both", expand_hops=0        fused without graph expansion
  fused-even     kinds="both", kind_weights={"document": 1/t} where t is the default
                 source_trust of source=document (0.85): documents and memories at par

and scored on its evidence items (turn dia_ids and page quotes): recall@k, hit@k, all@k per
mode, overall and per question type (doc / mixed / turn), plus a paired bootstrap of fused vs
merged recall@5 and recall@10, overall and per type. A page evidence counts as retrieved when a
document hit comes from that page and its text contains the quote (whitespace-normalised).
Search runs with track_access=False and the result cache off.

Usage: python bench/docs.py --data PATH/locomo10.json [--conversations conv-26,...]
       [--out results.json] [--chunk-target N] [--questions-per-type N]

--chunk-target N ingests the pages with target_chars=N and max_chars=2N (default: graphmem's
document_chunk_chars / document_chunk_max_chars settings).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402
    command_line,
    machine_info,
    make_settings,
    median,
    paired_bootstrap,
    percentile,
)
from locomo import ingest as ingest_turns  # noqa: E402
from locomo import load_locomo, user_of  # noqa: E402

from graphmem.errors import InvalidInputError  # noqa: E402

KS = (5, 10)
TYPES = ("doc", "mixed", "turn")
# mode -> (kinds, extra search() arguments); "merged" is two searches, see run_mode
MODES: dict[str, tuple[str, dict[str, Any]]] = {
    "memory": ("memory", {}),
    "document": ("document", {}),
    "merged": ("memory+document", {}),
    "fused": ("both", {}),
    "fused-nograph": ("both", {"expand_hops": 0}),
    # Chunks are source=document, which the default source_trust ranks at 0.85 of what the
    # user said; this mode cancels that for documents, to see what the discount costs.
    "fused-even": ("both", {"kind_weights": {"document": round(1 / 0.85, 4)}}),
}
METRICS = [f"{m}@{k}" for m in ("recall", "hit", "all") for k in KS]


class DataError(InvalidInputError):
    """questions.json or a page does not match what the benchmark expects."""

    def __init__(self, message: str) -> None:
        super().__init__("questions.json", message)


@dataclass(frozen=True)
class Hit:
    """One search hit, reduced to what evidence matching needs."""

    kind: str
    dia_id: str | None
    doc_uri: str | None
    content: str
    score: float

    def label(self) -> str:
        if self.kind == "document":
            return f"doc:{Path(self.doc_uri or '').name}"
        return f"turn:{self.dia_id}"


def normalise(text: str) -> str:
    """Whitespace-insensitive form: a quote may span a line break in the chunk."""
    return " ".join(text.split())


def load_questions(path: Path) -> list[dict[str, Any]]:
    """questions.json, with every page quote checked against its page (a quote that is not
    an exact substring of one paragraph could never be matched, so the data is wrong)."""
    questions = json.loads(path.read_text("utf-8"))
    pages_dir = path.parent / "pages"
    seen: set[str] = set()
    for q in questions:
        if q["id"] in seen:
            raise DataError(f"duplicate question id {q['id']}")
        seen.add(q["id"])
        if q["type"] not in TYPES:
            raise DataError(f"{q['id']}: type {q['type']!r} is not one of {TYPES}")
        ev = q["evidence"]
        if not ev["turns"] and not ev["pages"]:
            raise DataError(f"{q['id']}: no evidence")
        for p in ev["pages"]:
            page = pages_dir / p["page"]
            if not page.is_file():
                raise DataError(f"{q['id']}: no page {p['page']}")
            paragraphs = page.read_text("utf-8").split("\n\n")
            if len(p["quote"]) > 120 or not any(p["quote"] in para for para in paragraphs):
                raise DataError(f"{q['id']}: quote not inside one paragraph of {p['page']}")
    return questions


def page_found(hits: list[Hit], page: str, quote: str) -> bool:
    """A document hit from `page` (its doc_uri ends with the page path) containing `quote`."""
    want = normalise(quote)
    suffix = "/" + page.lstrip("/")
    return any(
        h.kind == "document"
        and h.doc_uri is not None
        and h.doc_uri.replace("\\", "/").endswith(suffix)
        and want in normalise(h.content)
        for h in hits
    )


def turn_found(hits: list[Hit], dia_id: str) -> bool:
    return any(h.kind == "memory" and h.dia_id == dia_id for h in hits)


def score(hits: list[Hit], evidence: dict[str, Any]) -> dict[str, float]:
    """recall@k (fraction of evidence items found in the top k), hit@k (any), all@k (all)."""
    out: dict[str, float] = {}
    for k in KS:
        top = hits[:k]
        found = [turn_found(top, t) for t in evidence["turns"]]
        found += [page_found(top, p["page"], p["quote"]) for p in evidence["pages"]]
        n = sum(found)
        out[f"recall@{k}"] = n / len(found)
        out[f"hit@{k}"] = float(n > 0)
        out[f"all@{k}"] = float(n == len(found))
    return out


def merge_hits(a: list[Hit], b: list[Hit], k: int) -> list[Hit]:
    """Two ranked lists merged by score (ties keep `a` first, then each list's order)."""
    tagged = [(-h.score, 0, i, h) for i, h in enumerate(a)]
    tagged += [(-h.score, 1, i, h) for i, h in enumerate(b)]
    return [t[3] for t in sorted(tagged, key=lambda t: t[:3])][:k]


def summarise(rows: list[dict[str, Any]], modes: list[str]) -> dict[str, dict[str, Any]]:
    """{mode: {"overall" | type: {"n": .., metric: mean}}}."""
    out: dict[str, dict[str, Any]] = {}
    for mode in modes:
        out[mode] = {}
        for group in ["overall", *TYPES]:
            sel = [r["scores"][mode] for r in rows if group in ("overall", r["type"])]
            agg: dict[str, Any] = {"n": len(sel)}
            for m in METRICS:
                agg[m] = sum(s[m] for s in sel) / len(sel) if sel else None
            out[mode][group] = agg
    return out


DOCBENCH = Path(__file__).resolve().parent / "docbench"
TOP_K = max(KS)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--data", type=Path, required=True, help="LoCoMo locomo10.json")
    p.add_argument(
        "--conversations",
        default="",
        help="comma-separated sample ids (default: every conversation with questions)",
    )
    p.add_argument("--out", type=Path, default=None, help="write the results JSON here")
    p.add_argument(
        "--chunk-target",
        type=int,
        default=None,
        help="document chunk target in characters (ingest target_chars=N, max_chars=2N);"
        " default: graphmem's document_chunk_chars setting",
    )
    p.add_argument(
        "--questions-per-type",
        type=int,
        default=None,
        help="only the first N questions of each type per conversation (a quick smoke run)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    return p.parse_args(argv)


def view(h: Any) -> Hit:
    """A search hit reduced to what scoring needs."""
    mem = h.memory
    meta = dict(getattr(mem, "metadata", None) or {})
    return Hit(
        kind=getattr(mem.kind, "value", str(mem.kind)),
        dia_id=str(meta["dia_id"]) if meta.get("dia_id") is not None else None,
        doc_uri=str(meta["doc_uri"]) if meta.get("doc_uri") else None,
        content=str(getattr(mem, "content", "")),
        score=float(getattr(h, "score", 0.0) or 0.0),
    )


def run_mode(svc: Any, user: str, query: str, mode: str) -> tuple[list[Hit], float]:
    """One question in one mode: (top hits as views, milliseconds)."""
    t = time.perf_counter()
    if mode == "merged":
        mem = svc.search(user, query, TOP_K, kinds="memory", track_access=False)
        doc = svc.search(user, query, TOP_K, kinds="document", track_access=False)
        hits = merge_hits([view(h) for h in mem.hits], [view(h) for h in doc.hits], TOP_K)
    else:
        kinds, extra = MODES[mode]
        res = svc.search(user, query, TOP_K, kinds=kinds, track_access=False, **extra)
        hits = [view(h) for h in res.hits]
    return hits, (time.perf_counter() - t) * 1000


def run(args: argparse.Namespace) -> dict[str, Any]:
    from tqdm import tqdm

    from graphmem.service.facade import MemoryService

    if not args.data.exists():
        raise SystemExit(f"LoCoMo data not found at {args.data}; pass --data PATH/locomo10.json")
    questions = load_questions(DOCBENCH / "questions.json")
    convs = sorted({q["sample_id"] for q in questions})
    if args.conversations:
        wanted = [c.strip() for c in args.conversations.split(",") if c.strip()]
        unknown = sorted(set(wanted) - set(convs))
        if unknown:
            raise SystemExit(f"no docbench questions for: {', '.join(unknown)}")
        convs = wanted
    questions = [q for q in questions if q["sample_id"] in convs]
    if args.questions_per_type is not None:
        if args.questions_per_type < 1:
            raise SystemExit("--questions-per-type must be at least 1")
        taken: dict[tuple[str, str], int] = {}
        kept = []
        for q in questions:
            key = (q["sample_id"], q["type"])
            taken[key] = taken.get(key, 0) + 1
            if taken[key] <= args.questions_per_type:
                kept.append(q)
        questions = kept
    if args.chunk_target is not None and args.chunk_target < 50:
        raise SystemExit("--chunk-target must be at least 50 characters")
    target = args.chunk_target
    most = 2 * target if target is not None else None
    turns_by_conv, _, _ = load_locomo(args.data, convs, captions=False)
    tmp = tempfile.TemporaryDirectory(prefix="graphmem-docbench-")
    settings = make_settings(data_dir=Path(tmp.name), search_cache_ttl_seconds=0)
    progress = not args.no_progress
    svc = MemoryService(settings)
    try:
        t0 = time.perf_counter()
        ingest_turns(svc, turns_by_conv, progress, single=False)
        turns_s = time.perf_counter() - t0
        pages = docs = chunks = skipped = failed = 0
        quarantined: dict[str, int] = {}
        t0 = time.perf_counter()
        for cid in tqdm(
            convs, desc="ingest pages", unit="conv", file=sys.stderr, disable=not progress
        ):
            folder = DOCBENCH / "pages" / cid
            pages += len(list(folder.glob("*.md")))
            rep = svc.ingest(user_of(cid), [str(folder)], target_chars=target, max_chars=most)
            docs += rep.documents
            chunks += rep.chunks
            skipped += rep.skipped
            failed += rep.failed
            # the firewall screens chunks like any untrusted text; a quarantined chunk never
            # surfaces, so its quotes cannot be found in any mode: say which pages lost some
            for o in rep.outcomes:
                if o.quarantined:
                    quarantined[Path(o.source).relative_to(DOCBENCH / "pages").as_posix()] = (
                        o.quarantined
                    )
        pages_s = time.perf_counter() - t0

        rows: list[dict[str, Any]] = []
        latencies: dict[str, list[float]] = {m: [] for m in MODES}
        for q in tqdm(questions, desc="search", unit="q", file=sys.stderr, disable=not progress):
            row: dict[str, Any] = {"id": q["id"], "type": q["type"], "scores": {}, "top": {}}
            for mode in MODES:
                hits, ms = run_mode(svc, user_of(q["sample_id"]), q["question"], mode)
                latencies[mode].append(ms)
                row["scores"][mode] = score(hits, q["evidence"])
                row["top"][mode] = [h.label() for h in hits[:10]]
            rows.append(row)
    finally:
        svc.close()
        tmp.cleanup()

    return {
        "benchmark": "docbench",
        "command": command_line(),
        "machine": machine_info(),
        "conversations": convs,
        "questions": {t: sum(q["type"] == t for q in questions) for t in TYPES},
        "settings": {
            "chunk_target_chars": settings.documents.chunk_chars
            if args.chunk_target is None
            else args.chunk_target,
            "chunk_max_chars": settings.documents.chunk_max_chars
            if args.chunk_target is None
            else 2 * args.chunk_target,
        },
        "ingest": {
            "turns": sum(len(t) for t in turns_by_conv.values()),
            "turns_s": round(turns_s, 2),
            "pages": pages,
            "documents": docs,
            "chunks": chunks,
            "skipped": skipped,
            "failed": failed,
            "quarantined": sum(quarantined.values()),
            "quarantined_by_page": quarantined,
            "pages_s": round(pages_s, 2),
            "pages_per_s": round(pages / pages_s, 2) if pages_s else None,
            "chunks_per_s": round(chunks / pages_s, 2) if pages_s else None,
        },
        "latency_ms": {
            m: {"p50": median(v), "p95": percentile(v, 95), "n": len(v)}
            for m, v in latencies.items()
        },
        "summary": summarise(rows, list(MODES)),
        "fused_vs_merged": {
            f"{m} {group}": paired_bootstrap(
                [r for r in rows if group in ("overall", r["type"])], "fused", "merged", m
            )
            for m in ("recall@5", "recall@10")
            for group in ("overall", *TYPES)
        },
        "per_question": rows,
    }


def markdown(result: dict[str, Any]) -> str:
    """The tables: every mode overall and per question type, then latency and the pair test."""
    cols = ["recall@5", "recall@10", "hit@5", "hit@10", "all@10"]
    out: list[str] = []
    for group in ["overall", *TYPES]:
        out += [f"\n### {group}\n", "| mode | n | " + " | ".join(cols) + " |"]
        out.append("|---" * (len(cols) + 2) + "|")
        for mode, by in result["summary"].items():
            s = by[group]
            vals = (
                " | ".join(f"{s[c]:.3f}" for c in cols) if s["n"] else " | ".join(["-"] * len(cols))
            )
            out.append(f"| {mode} | {s['n']} | {vals} |")
    out += ["\n### search latency (ms)\n", "| mode | p50 | p95 |", "|---|---|---|"]
    for mode, lat in result["latency_ms"].items():
        out.append(f"| {mode} | {lat['p50'] or 0:.1f} | {lat['p95'] or 0:.1f} |")
    ing = result["ingest"]
    out += [
        "\n### fused - merged, paired per question (95% bootstrap CI)\n",
        "| metric, questions | n | delta | 95% CI | fused better | fused worse |",
        "|---|---|---|---|---|---|",
    ]
    for label, pair in result["fused_vs_merged"].items():
        lo, hi = pair["ci95"]
        out.append(
            f"| {label} | {pair['n']} | {pair['delta']:+.3f} | {lo:+.3f} .. {hi:+.3f} |"
            f" {pair['better']} | {pair['worse']} |"
        )
    out.append(
        f"\ningest: {ing['pages']} pages, {ing['chunks']} chunks in {ing['pages_s']} s"
        f" ({ing['pages_per_s']} pages/s, {ing['chunks_per_s']} chunks/s),"
        f" {ing['quarantined']} chunks quarantined by the firewall;"
        f" {ing['turns']} turns in {ing['turns_s']} s"
    )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    result = run(args)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1, default=str), "utf-8")
    print(markdown(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
