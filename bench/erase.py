"""Erase time for a user with many memories, against a baseline checkout, alternating.

A store is filled once per code tree (each tree writes its own on-disk format) through the bulk
path (records rows and vectors written directly from a few hundred embedded texts plus noise,
as bench/lifecycle.py does, so no embedding of every memory): one user with --memories
memories over a few sessions, and --others memories of other users. Each trial copies that
prepared directory, opens the service in a fresh process (not timed) and times
`forget_user` alone: the records transaction, the vector and graph purge, and whatever clean-up
and verification the tree does. Trials alternate between the trees so that a busy machine
slows both alike; medians are reported.

Usage:
  python bench/erase.py --base /path/to/baseline/checkout [--memories 10000] [--others 10000]
                        [--trials 5] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
USER = "erase-bench-user"
CHUNK = 2_000


def _child(tree: str) -> None:
    """Import graphmem from `tree` first; the bench modules come from this checkout."""
    sys.path.insert(0, tree)
    sys.path.append(str(HERE.parent))


def prepare(data_dir: Path, memories: int, others: int, seed: int) -> dict[str, Any]:
    import numpy as np

    from bench.synth import Generator
    from graphmem import MemoryService, Settings
    from graphmem.domain.model import Memory, MemoryType, new_id
    from graphmem.domain.summary import summarize
    from graphmem.domain.text import search_text
    from graphmem.service.projection import vector_point

    t0 = time.perf_counter()
    svc = MemoryService(Settings(data_dir=data_dir, lifecycle={"merge_on_write": False}))
    gen = Generator(seed)
    base = svc.embedder.encode(gen.memories(500))
    rng = np.random.default_rng(seed)
    now = datetime.now(UTC)
    plan = [(USER, memories)] + [(f"other-{k}", others // 4) for k in range(4)]
    try:
        for user, n in plan:
            done = 0
            while done < n:
                k = min(CHUNK, n - done)
                texts = gen.memories(k)
                vecs = base[rng.integers(0, len(base), size=k)]
                vecs = vecs + rng.normal(0.0, 0.05, size=vecs.shape).astype(np.float32)
                vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
                mems = [
                    Memory(
                        new_id(),
                        user,
                        text,
                        session_id=f"{user}-session-{(done + j) // 100}",
                        summary=summarize(text),
                        memory_type=MemoryType.FACT,
                        metadata={"i": done + j},
                        created_at=now - timedelta(minutes=done + j),
                        updated_at=now,
                    )
                    for j, text in enumerate(texts)
                ]
                svc.records.insert(mems, [search_text(m.content) for m in mems])
                svc.vectors.upsert([vector_point(m, v) for m, v in zip(mems, vecs, strict=True)])
                ids = [o.id for o in svc.records.outbox_for([m.id for m in mems])]
                svc.records.outbox_done(ids)
                done += k
        svc.vectors.optimize()
    finally:
        svc.close()
    return {"fill_s": round(time.perf_counter() - t0, 1)}


def erase_once(prepared: Path) -> dict[str, Any]:
    from graphmem import MemoryService, Settings

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        shutil.copytree(prepared, data)
        svc = MemoryService(Settings(data_dir=data))
        try:
            t0 = time.perf_counter()
            receipt = svc.forget_user(USER, requested_by="bench")
            took = time.perf_counter() - t0
        finally:
            svc.close()
    d = receipt.to_dict()
    return {
        "erase_s": round(took, 3),
        "memories": d["deleted"].get("records.memories"),
        "verified": d["verified"],
        "files_clean": d.get("files_clean"),
    }


def _run(tree: str, *args: str) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=tree)
    out = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--tree", tree, *args],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", help="baseline checkout to compare with")
    ap.add_argument("--memories", type=int, default=10_000)
    ap.add_argument("--others", type=int, default=10_000)
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--tree", help=argparse.SUPPRESS)
    ap.add_argument("--phase", choices=["prepare", "erase"], help=argparse.SUPPRESS)
    ap.add_argument("--dir", type=Path, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.phase:  # a child process: one step against the tree on PYTHONPATH
        _child(a.tree)
        if a.phase == "prepare":
            res = prepare(a.dir, a.memories, a.others, a.seed)
        else:
            res = erase_once(a.dir)
        print(json.dumps(res))
        return 0

    trees = {"this": str(HERE.parent)}
    if a.base:
        trees["base"] = str(Path(a.base).resolve())
    work = Path(tempfile.mkdtemp(prefix="erase-bench-"))
    try:
        sizes = ["--memories", str(a.memories), "--others", str(a.others), "--seed", str(a.seed)]
        fills = {
            name: _run(tree, "--phase", "prepare", "--dir", str(work / name), *sizes)
            for name, tree in trees.items()
        }
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
        for i in range(a.trials):
            order = list(trees) if i % 2 == 0 else list(reversed(trees))
            for name in order:
                res = _run(trees[name], "--phase", "erase", "--dir", str(work / name))
                runs[name].append(res)
                print(f"trial {i + 1} {name}: {res}", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report: dict[str, Any] = {
        "memories": a.memories,
        "others": a.others,
        "trials": a.trials,
        "fill": fills,
        "median_erase_s": {
            n: statistics.median(r["erase_s"] for r in rs) for n, rs in runs.items()
        },
        "runs": runs,
    }
    if "base" in runs:
        m = report["median_erase_s"]
        report["ratio_this_to_base"] = round(m["this"] / m["base"], 2)
    text = json.dumps(report, indent=2)
    print(text)
    if a.json:
        a.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
