"""Cold start of the `graphmem` command and server: what a user waits for before anything.

Three timings, each a fresh process, median of --runs:

* help: `graphmem --help`, exec to exit;
* search: `graphmem search` on a store of --memories synthetic memories, exec to exit,
  model load included (the query differs per run, so no cache helps);
* server ready: `graphmem serve` over HTTP, exec to the first successful MCP `initialize`.

The store is created once, with the Python API of the first tree, and shared by every run
(search and serve only read it, apart from access counts). With several --tree checkouts the
runs alternate between them (tree A, tree B, tree A, ...), so a machine that gets busier or
quieter during the run affects both alike; each tree's code is imported through PYTHONPATH.

Usage: python bench/cold_start.py [--tree PATH ...] [--runs 5] [--memories 1000]
                                  [--store DIR] [--json]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench._common import median  # noqa: E402
from bench.synth import Generator  # noqa: E402

TOKEN = "cold-start-bench-token-0123456789"
READY_TIMEOUT_S = 300.0


def env_for(tree: Path, data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    env["PYTHONPATH"] = str(tree)
    env["GRAPHMEM_DATA_DIR"] = str(data_dir)
    env["GRAPHMEM_TOKENS"] = f"{TOKEN}=bench"
    env["GRAPHMEM_LOG_LEVEL"] = "WARNING"
    return env


def seed(tree: Path, data_dir: Path, n: int) -> None:
    """n synthetic memories for one user, written with the Python API of `tree`."""
    code = (
        "import sys, json\n"
        "from graphmem import MemoryService, Settings\n"
        "texts = json.load(sys.stdin)\n"
        "with MemoryService(Settings(data_dir=sys.argv[1])) as svc:\n"
        "    for i in range(0, len(texts), 256):\n"
        "        svc.write_many('default', [{'content': t} for t in texts[i:i + 256]])\n"
        "    print(svc.records.count('default'))\n"
    )
    texts = Generator(seed=11).memories(n)
    done = subprocess.run(
        [sys.executable, "-c", code, str(data_dir)],
        input=json.dumps(texts),
        env=env_for(tree, data_dir),
        cwd=tree,
        capture_output=True,
        text=True,
        check=True,
    )
    print(f"seeded {done.stdout.strip()} memories in {data_dir}", file=sys.stderr)


def timed(argv: list[str], env: dict[str, str]) -> float:
    """Wall time of one command, run from its tree: `python -m` puts the working directory
    first on sys.path, so from anywhere else another checkout's graphmem could be the one run."""
    t = time.perf_counter()
    subprocess.run(
        argv, env=env, cwd=env["PYTHONPATH"], capture_output=True, check=True, timeout=600
    )
    return time.perf_counter() - t


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def initialize(port: int) -> bool:
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "cold-start", "version": "1"},
            },
        }
    )
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request(
            "POST",
            "/mcp",
            body,
            {
                "Authorization": f"Bearer {TOKEN}",
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
            },
        )
        resp = conn.getresponse()
        resp.read()
        return resp.status == 200
    except OSError:
        return False
    finally:
        conn.close()


def server_ready(tree: Path, data_dir: Path) -> float:
    port = free_port()
    t = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "graphmem.cli", "serve", "--port", str(port)],
        env=env_for(tree, data_dir),
        cwd=tree,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while not initialize(port):
            if proc.poll() is not None:
                raise RuntimeError(f"graphmem serve exited with {proc.returncode}")
            if time.perf_counter() - t > READY_TIMEOUT_S:
                raise RuntimeError("graphmem serve did not answer initialize")
            time.sleep(0.02)
        return time.perf_counter() - t
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def measure(trees: list[Path], data_dir: Path, runs: int) -> dict[str, dict[str, list[float]]]:
    queries = Generator(seed=23).queries(runs * len(trees))
    times: dict[str, dict[str, list[float]]] = {
        str(t): {"help": [], "search": [], "server_ready": []} for t in trees
    }
    cli = [sys.executable, "-m", "graphmem.cli"]
    q = iter(queries)
    for run in range(runs):
        for tree in trees:
            env = env_for(tree, data_dir)
            row = times[str(tree)]
            row["help"].append(timed([*cli, "--help"], env))
            row["search"].append(timed([*cli, "search", next(q), "--data-dir", str(data_dir)], env))
            row["server_ready"].append(server_ready(tree, data_dir))
            print(
                f"run {run + 1}/{runs} {tree}: "
                + ", ".join(f"{k} {v[-1]:.2f}s" for k, v in row.items()),
                file=sys.stderr,
            )
    return times


def table(times: dict[str, dict[str, list[float]]], runs: int, n: int) -> str:
    lines = [
        f"median of {runs} runs, seconds (search on {n} memories)",
        "",
        "| tree | --help | search | server ready |",
        "|---|---|---|---|",
    ]
    for tree, row in times.items():
        cells = [f"{median(v) or 0:.2f}" for v in row.values()]
        lines.append(f"| {tree} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--tree", type=Path, action="append", help="a checkout (default: this one)")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--memories", type=int, default=1000)
    p.add_argument("--store", type=Path, help="reuse (or create) the store here")
    p.add_argument("--json", action="store_true", help="print the raw timings as JSON")
    args = p.parse_args(argv)
    trees = [t.resolve() for t in (args.tree or [REPO])]
    with tempfile.TemporaryDirectory(prefix="graphmem-cold-") as tmp:
        data_dir = args.store or Path(tmp) / "data"
        if not (data_dir / "graphmem.sqlite3").exists():
            seed(trees[0], data_dir, args.memories)
        times = measure(trees, data_dir, args.runs)
    out: dict[str, Any] = {"runs": args.runs, "memories": args.memories, "times": times}
    print(json.dumps(out, indent=2) if args.json else table(times, args.runs, args.memories))
    return 0


if __name__ == "__main__":
    sys.exit(main())
