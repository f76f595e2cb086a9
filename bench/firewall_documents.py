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

Usage: python bench/firewall_documents.py [--model PATH] [--split test] [--show]
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
        "split": split,
        "documents": {k: f"{v[0]}/{v[1]}" for k, v in sorted(counts.items())},
        "docbench_chunks_quarantined": f"{len(quarantined)}/{len(chunks)}",
        "shown": misses + quarantined if show else [],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", type=Path, help="a model file to screen with (default: shipped)")
    p.add_argument("--split", choices=("train", "test", "all"), default="test")
    p.add_argument("--show", action="store_true", help="list errors and quarantined chunks")
    args = p.parse_args(argv)
    res = run(args.model, args.split, args.show)
    for line in res.pop("shown"):
        print(line)
    print(json.dumps(res, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
