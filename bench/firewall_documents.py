"""How the firewall treats documents: wiki and web-page prose screened as `source=document`.

Two sets, each screened through `Guard.screen_write(content, "document", {...})` exactly as
`graphmem.usecases.documents` screens an ingested chunk (title and heading path on the first
line of the content, title and headings as metadata):
  - bench/firewall_corpus/documents.jsonl, split "test" (held out: the classifier trains on the
    "train" split only): benign paragraphs flagged (any action but allow) and paragraphs with an
    injection hidden inside caught (quarantine or reject);
  - every chunk of the pages under bench/docbench/pages/ (the document benchmark, never trained
    on), chunked with the default settings: chunks quarantined or rejected. Every page there is
    benign, so each one is a false positive that hides a chunk from search.

`--model PATH` screens with another model file (for example the shipped model saved aside
before retraining), so the two can be compared in one session; rules and thresholds are the
tree's. `--split train|test|all` picks the documents.jsonl rows (default test).
`--alone-min-p P` screens with injection.DOCUMENT_ALONE_MIN_P set to P (0 = off: the classifier
alone counts on documents as on any text), for a before/after on the same tree.

`--validate` chooses DOCUMENT_ALONE_MIN_P on validation data only: the "train" split of
documents.jsonl (the shipped classifier was never trained on it), screened as above once per
`--candidates` value. The rule, fixed before any held-out set was scored with a candidate: the
lowest value that flags at most 3% of the validation benign paragraphs; ties (equal values never
occur, so: equal benign counts) go to the most injections caught. If none qualifies, the one
flagging the fewest benign paragraphs, ties to the most caught. It also counts the injections
on which a rule or concept combination fires by itself (rules only, content only): those the
calibration cannot lose.

Usage: python bench/firewall_documents.py [--model PATH] [--split test] [--show]
                                          [--alone-min-p P]
       python bench/firewall_documents.py --validate [--candidates 0.9 0.95 ...]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REPO_ROOT  # noqa: E402
from firewall import CORPUS, load_jsonl  # noqa: E402

import graphmem.guard.injection as injection  # noqa: E402
from graphmem.documents import chunk, load_path  # noqa: E402
from graphmem.guard import Guard, GuardSettings  # noqa: E402
from graphmem.guard.canonical import canonicalize  # noqa: E402
from graphmem.guard.classifier import load_model  # noqa: E402
from graphmem.usecases.documents import chunk_content  # noqa: E402

PAGES = REPO_ROOT / "bench" / "docbench" / "pages"


def corpus_content(row: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A documents.jsonl row as an ingested chunk: its title line, then the paragraph."""
    title = row.get("title") or ""
    content = f"{title}\n{row['text']}" if title else row["text"]
    return content, {"doc_title": title, "doc_headings": [title] if title else []}


def docbench_chunks(pages: Path) -> list[tuple[str, str, dict[str, Any]]]:
    """(page name, content, metadata) for every chunk of every docbench page."""
    out = []
    for path in sorted(p for p in pages.rglob("*") if p.is_file() and p.suffix == ".md"):
        doc = load_path(path)
        for c in chunk(doc):
            meta = {"doc_title": doc.title, "doc_headings": list(c.heading_path)}
            out.append((path.name, chunk_content(doc, c), meta))
    return out


def run(model_path: Path | None, split: str, show: bool) -> dict[str, Any]:
    if model_path is not None:
        model = load_model(model_path)
        injection.default_model = lambda: model  # type: ignore[assignment]  # the guard reads it here
    guard = Guard(GuardSettings(rate_limit_backend="off", _env_file=None))
    rows = [r for r in load_jsonl(CORPUS / "documents.jsonl") if split in ("all", r["split"])]
    counts: dict[str, list[int]] = {}
    misses = []
    for r in rows:
        content, meta = corpus_content(r)
        d = guard.screen_write(content, "document", meta)
        key = f"{'attacks' if r['label'] else 'benign'}_{r['lang']}"
        hit = d.action != "allow" if not r["label"] else d.action in ("quarantine", "reject")
        counts.setdefault(key, [0, 0])
        counts[key][0] += int(hit)
        counts[key][1] += 1
        if show and hit != bool(r["label"]):
            misses.append(f"{r['id']} {d.action} risk={d.risk:.2f}: {r['text'][:100]}")
    chunks = docbench_chunks(PAGES)
    quarantined = []
    for name, content, meta in chunks:
        d = guard.screen_write(content, "document", meta)
        if d.action in ("quarantine", "reject"):
            quarantined.append(f"{name} {d.action} risk={d.risk:.2f}: {content[:100]!r}")
    return {
        "model": str(model_path or "shipped"),
        "document_alone_min_p": injection.DOCUMENT_ALONE_MIN_P,
        "split": split,
        "documents": {k: f"{v[0]}/{v[1]}" for k, v in sorted(counts.items())},
        "docbench_chunks_quarantined": f"{len(quarantined)}/{len(chunks)}",
        "shown": misses + quarantined if show else [],
    }


def validate(candidates: list[float]) -> dict[str, Any]:
    """Each candidate DOCUMENT_ALONE_MIN_P on the train split, and the one the rule picks."""
    guard = Guard(GuardSettings(rate_limit_backend="off", _env_file=None))
    rows = [r for r in load_jsonl(CORPUS / "documents.jsonl") if r["split"] == "train"]
    benign = [r for r in rows if not r["label"]]
    attacks = [r for r in rows if r["label"]]
    ruled = sum(
        bool(injection.screen(canonicalize(corpus_content(r)[0]), use_classifier=False).hits)
        for r in attacks
    )
    table = []
    for value in candidates:
        injection.DOCUMENT_ALONE_MIN_P = value
        contents = [corpus_content(r) for r in rows]
        actions = [guard.screen_write(c, "document", m).action for c, m in contents]
        by_id = {r["id"]: a for r, a in zip(rows, actions, strict=True)}
        flagged = sum(by_id[r["id"]] != "allow" for r in benign)
        caught = sum(by_id[r["id"]] in ("quarantine", "reject") for r in attacks)
        table.append({"min_p": value, "benign_flagged": flagged, "caught": caught})
    limit = 0.03 * len(benign)
    ok = [t for t in table if t["benign_flagged"] <= limit]
    if ok:
        chosen = min(ok, key=lambda t: (-t["caught"], t["min_p"]))
    else:
        chosen = min(table, key=lambda t: (t["benign_flagged"], -t["caught"], t["min_p"]))
    return {
        "validation": f"documents.jsonl train: {len(benign)} benign, {len(attacks)} injections",
        "injections_a_rule_or_concept_fires_on": f"{ruled}/{len(attacks)}",
        "benign_limit": f"<= {limit:.2f} flagged (3%)",
        "table": [
            {
                "min_p": t["min_p"],
                "benign_flagged": f"{t['benign_flagged']}/{len(benign)}",
                "caught": f"{t['caught']}/{len(attacks)}",
            }
            for t in table
        ],
        "chosen": chosen["min_p"],
        "qualified": bool(ok),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", type=Path, help="a model file to screen with (default: shipped)")
    p.add_argument("--split", choices=("train", "test", "all"), default="test")
    p.add_argument("--show", action="store_true", help="list errors and quarantined chunks")
    p.add_argument("--alone-min-p", type=float, help="DOCUMENT_ALONE_MIN_P to screen with")
    p.add_argument("--validate", action="store_true", help="choose DOCUMENT_ALONE_MIN_P")
    p.add_argument(
        "--candidates", type=float, nargs="+", default=[0.0, 0.9, 0.95, 0.97, 0.98, 0.99]
    )
    args = p.parse_args(argv)
    if args.validate:
        print(json.dumps(validate(args.candidates), ensure_ascii=False, indent=1))
        return 0
    if args.alone_min_p is not None:
        injection.DOCUMENT_ALONE_MIN_P = args.alone_min_p
    res = run(args.model, args.split, args.show)
    for line in res.pop("shown"):
        print(line)
    print(json.dumps(res, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
