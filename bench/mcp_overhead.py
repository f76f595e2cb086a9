"""What the MCP layer costs: memory_search over streamable HTTP vs MemoryService.search directly.

One run, one machine, loopback only:

1. Seed N synthetic memories into a data directory with MemoryService, close it, and copy the
   directory, so the direct path and the server search identical data.
2. Start a real `graphmem serve` on the copy (its own process, a free 127.0.0.1 port, a bearer
   token), and reopen MemoryService on the original in this process.
3. Sequential: the same Q queries through both paths, one at a time, alternating, twice. The
   first pass embeds every query (each side has its own caches, all cold); the second pass
   repeats them (query embeddings and, where the service keeps them, search results cached on
   both sides), which isolates the transport's share.
   Overhead ratio = HTTP median / direct median per pass.
4. Concurrent: C clients, each with its own MCP session, each issuing R searches back to back,
   all released at once; every query is new, so every request embeds. Reports p50/p95/p99
   latency and throughput as the clients see them, next to the same load on MemoryService
   directly (one thread per client, no MCP), so the transport's share shows under load too.

Both paths use the server's intra-op thread setting for the model (GRAPHMEM_TORCH_THREADS).
The load generator runs on the same machine and competes with the server for CPU; the load
average at start and end is recorded with the results, because the machine may be shared.

Usage: python bench/mcp_overhead.py [--memories 2000] [--queries 100] [--clients 50]
                                    [--requests 10] [--out PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402
    RESULTS_DIR,
    command_line,
    fmt,
    machine_info,
    percentile,
)
from _mcp_load import PEOPLE, PLACES, THINGS  # noqa: E402

USER = "bench"
PREFS = [
    "window seats",
    "green tea",
    "short emails",
    "morning meetings",
    "vegetarian food",
    "dark mode",
    "paper notes",
    "quiet hotels",
    "train travel",
    "jazz playlists",
]


def synthetic_memories(n: int, seed: int = 7) -> list[dict[str, str]]:
    """Deterministic, varied first-person memories across the four types."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        p, q, t, f = rng.choice(PEOPLE), rng.choice(PLACES), rng.choice(THINGS), rng.choice(PREFS)
        kind = i % 4
        if kind == 0:
            out.append(
                {
                    "content": f"{p} from {q} is my contact for the {t} (note {i}).",
                    "memory_type": "fact",
                }
            )
        elif kind == 1:
            out.append(
                {
                    "content": f"I prefer {f} when dealing with the {t} (note {i}).",
                    "memory_type": "preference",
                }
            )
        elif kind == 2:
            out.append(
                {
                    "content": f"Met {p} in {q} about the {t} on day {i % 28 + 1} (note {i}).",
                    "memory_type": "event",
                }
            )
        else:
            out.append(
                {
                    "content": f"Remind me to call {p} about the {t} before {q} (note {i}).",
                    "memory_type": "task",
                }
            )
    return out


def queries(n: int, seed: int) -> list[str]:
    """Distinct natural-language questions; a serial number keeps every one cache-unique."""
    rng = random.Random(seed)
    forms = [
        "who is my contact for the {t}?",
        "what do I prefer for the {t}?",
        "when did I meet {p} in {q}?",
        "what should I tell {p} about the {t}?",
        "anything about {q} and the {t}?",
    ]
    return [
        rng.choice(forms).format(p=rng.choice(PEOPLE), q=rng.choice(PLACES), t=rng.choice(THINGS))
        + f" #{seed}-{i}"
        for i in range(n)
    ]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(
    data_dir: Path, token: str | None, log: Path, extra_env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """`graphmem serve` on `data_dir`, with `token` for USER in GRAPHMEM_TOKENS (None: only the
    tokens file in the data directory), and whatever GRAPHMEM_ settings `extra_env` adds."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    env["GRAPHMEM_DATA_DIR"] = str(data_dir)
    if token is not None:
        env["GRAPHMEM_TOKENS"] = f"{token}={USER}"
    env.update(extra_env or {})
    exe = Path(sys.executable).with_name("graphmem")
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [
                str(exe if exe.exists() else "graphmem"),
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
            ],
            env=env,
            cwd=data_dir.parent,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"graphmem serve exited:\n{log.read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), 0.5):
                return proc, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            time.sleep(0.25)
    proc.kill()
    raise SystemExit("graphmem serve did not come up in 180 s")


def summary(ms: list[float]) -> dict[str, Any]:
    return {
        "n": len(ms),
        "mean_ms": round(statistics.fmean(ms), 3) if ms else None,
        "p50_ms": round(percentile(ms, 50), 3) if ms else None,
        "p95_ms": round(percentile(ms, 95), 3) if ms else None,
        "p99_ms": round(percentile(ms, 99), 3) if ms else None,
    }


async def sequential(svc: Any, url: str, token: str, qs: list[str]) -> dict[str, Any]:
    from fastmcp import Client
    from fastmcp.client.transports import StreamableHttpTransport

    out: dict[str, Any] = {}
    async with Client(StreamableHttpTransport(url, auth=token), timeout=120) as client:
        await client.call_tool("memory_search", {"query": "warm up the session"})
        svc.search(USER, "warm up the model", 5, track_access=False)
        for label in ("cold_cache", "warm_cache"):
            direct, http = [], []
            for q in qs:
                t = time.perf_counter()
                svc.search(USER, q, 5, track_access=False)
                direct.append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                res = await client.call_tool("memory_search", {"query": q, "top_k": 5})
                http.append((time.perf_counter() - t) * 1000)
                assert not res.is_error and res.structured_content["count"] == 5
            d, h = summary(direct), summary(http)
            out[label] = {
                "direct": d,
                "http": h,
                "overhead_ratio_p50": round(h["p50_ms"] / d["p50_ms"], 3),
                "overhead_ratio_mean": round(h["mean_ms"] / d["mean_ms"], 3),
                "overhead_ms_p50": round(h["p50_ms"] - d["p50_ms"], 3),
            }
    return out


async def concurrent(url: str, token: str, clients: int, requests: int) -> dict[str, Any]:
    """Connect every client first, then release them together, so the clock covers load only."""
    from fastmcp import Client
    from fastmcp.client.transports import StreamableHttpTransport

    latencies: list[float] = []
    errors = 0
    ready = 0
    all_ready, go = asyncio.Event(), asyncio.Event()

    async def one_client(c: int) -> None:
        nonlocal errors, ready
        qs = queries(requests, seed=1000 + c)
        async with Client(StreamableHttpTransport(url, auth=token), timeout=300) as client:
            await client.list_tools()
            ready += 1
            if ready == clients:
                all_ready.set()
            await go.wait()
            for q in qs:
                t = time.perf_counter()
                res = await client.call_tool(
                    "memory_search", {"query": q, "top_k": 5}, raise_on_error=False
                )
                latencies.append((time.perf_counter() - t) * 1000)
                errors += bool(res.is_error)

    tasks = [asyncio.create_task(one_client(c)) for c in range(clients)]
    await asyncio.wait_for(all_ready.wait(), timeout=120)
    t0 = time.perf_counter()
    go.set()
    await asyncio.gather(*tasks)
    wall = time.perf_counter() - t0
    return {
        "clients": clients,
        "requests_per_client": requests,
        "errors": errors,
        "wall_s": round(wall, 3),
        "throughput_rps": round(len(latencies) / wall, 1),
        **summary(latencies),
    }


def concurrent_direct(svc: Any, clients: int, requests: int) -> dict[str, Any]:
    """The same load on MemoryService directly: one thread per client, no MCP, no HTTP."""
    from concurrent.futures import ThreadPoolExecutor

    barrier = threading.Barrier(clients + 1)
    per_client: list[list[float]] = [[] for _ in range(clients)]

    def one(c: int) -> None:
        qs = queries(requests, seed=5000 + c)
        barrier.wait()
        for q in qs:
            t = time.perf_counter()
            svc.search(USER, q, 5, track_access=False)
            per_client[c].append((time.perf_counter() - t) * 1000)

    with ThreadPoolExecutor(max_workers=clients) as pool:
        futures = [pool.submit(one, c) for c in range(clients)]
        barrier.wait()
        t0 = time.perf_counter()
        for f in futures:
            f.result()
        wall = time.perf_counter() - t0
    latencies = [ms for lst in per_client for ms in lst]
    return {
        "clients": clients,
        "requests_per_client": requests,
        "wall_s": round(wall, 3),
        "throughput_rps": round(len(latencies) / wall, 1),
        **summary(latencies),
    }


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()


def mixed(args: argparse.Namespace) -> None:
    """The mixed load, direct and over HTTP, alternating `--rounds` times in one run."""
    from _mcp_load import (
        make_tokens,
        proc_cpu_s,
        run_direct,
        run_http,
        seed_users,
        summarise,
    )

    from graphmem import MemoryService, Settings

    clients = args.clients or 200
    load_start = os.getloadavg()
    tmp = Path(tempfile.mkdtemp(prefix="graphmem-mcp-mixed-"))
    # Rate limits raised so that they measure nothing here (a write every ~2 s per user would
    # be within the defaults anyway); the direct side charges none.
    limits = json.dumps({"write": 1e9, "search": 1e9})
    server_env = {"GRAPHMEM_GUARD_RATE_LIMITS": limits, **dict(parse_env(args.server_env))}
    proc = None
    rounds: list[dict[str, Any]] = []
    try:
        direct_dir, server_dir = tmp / "direct" / "data", tmp / "server" / "data"
        t = time.perf_counter()
        with MemoryService(Settings(data_dir=direct_dir)) as svc:
            seed_users(svc, clients, args.seed_per_user)
        seed_s = time.perf_counter() - t
        shutil.copytree(direct_dir, server_dir)
        tokens = make_tokens(server_dir / "mcp_tokens.json", clients)
        proc, url = start_server(server_dir, None, tmp / "server.log", server_env)
        svc = MemoryService(Settings(data_dir=direct_dir))
        try:
            # Both sides load their models (the query embedder, spaCy for writes) before the
            # clock starts: one write and one search each, as mix-0000.
            svc.write_many(
                "mix-0000", [{"content": "Warming up: I like tea.", "memory_type": "preference"}]
            )
            svc.search("mix-0000", "warm up the model", 5, track_access=False)
            asyncio.run(warm_up(url, tokens[0]))
            for r in range(args.rounds):
                row: dict[str, Any] = {"round": r + 1}
                for side in args.sides:
                    salt = f"r{r}-{side}"
                    cpu0, srv0 = proc_cpu_s(), proc_cpu_s(proc.pid)
                    load0 = os.getloadavg()[0]
                    if side == "direct":
                        records, wall = run_direct(
                            svc, clients, args.duration, args.write_share, salt
                        )
                        failures: list[str] = []
                    else:
                        records, wall, failures = asyncio.run(
                            run_http(
                                url, tokens, args.duration, args.write_share, salt, args.client
                            )
                        )
                    res = summarise(records, wall, percentile)
                    res["cpu_s"] = {
                        "bench_process": round(proc_cpu_s() - cpu0, 1),
                        "server_process": round(proc_cpu_s(proc.pid) - srv0, 1),
                    }
                    res["loadavg_1m"] = {
                        "start": round(load0, 2),
                        "end": round(os.getloadavg()[0], 2),
                    }
                    if failures:
                        res["failures"] = failures
                    row[side] = res
                    print(f"round {r + 1} {side}: {json.dumps(res)}", flush=True)
                if "http" in row and "direct" in row:
                    row["ratio_ops"] = round(
                        row["http"]["ops_per_s"] / row["direct"]["ops_per_s"], 3
                    )
                rounds.append(row)
        finally:
            svc.close()
    finally:
        if proc is not None:
            stop_server(proc)
        shutil.rmtree(tmp, ignore_errors=True)

    result = {
        "benchmark": "mcp_overhead_mixed",
        "command": command_line(),
        "machine": machine_info(),
        "loadavg_1m": {"start": round(load_start[0], 2), "end": round(os.getloadavg()[0], 2)},
        "clients": clients,
        "duration_s": args.duration,
        "write_share": args.write_share,
        "seed_per_user": args.seed_per_user,
        "seed_s": round(seed_s, 1),
        "client": args.client,
        "server_env": {k: v for k, v in server_env.items()},
        "rounds": rounds,
    }
    out = args.out or RESULTS_DIR / f"mcp_mixed-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")

    print(
        f"\n{clients} clients, one user and token each, {args.duration:g} s,"
        f" {args.write_share:.0%} memory_write / {1 - args.write_share:.0%} memory_search"
        f" ({result['command']})\n"
    )
    print(
        "| round | side | ops/s | write p50 / p95 ms | search p50 / p95 ms | errors"
        " | CPU s: bench / server | HTTP / direct |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for row in rounds:
        for side in args.sides:
            x = row[side]
            w, q = x["write"], x["search"]
            print(
                f"| {row['round']} | {side} | {x['ops_per_s']} | {fmt(w['p50_ms'], 0)} /"
                f" {fmt(w['p95_ms'], 0)} | {fmt(q['p50_ms'], 0)} / {fmt(q['p95_ms'], 0)} |"
                f" {x['errors']} | {x['cpu_s']['bench_process']} /"
                f" {x['cpu_s']['server_process']} |"
                f" {row.get('ratio_ops', '') if side == 'http' else ''} |"
            )
    print(f"\nload average (1 min) {load_start[0]:.2f} at start, {os.getloadavg()[0]:.2f} at end")
    print(f"results: {out}")


async def warm_up(url: str, token: str) -> None:
    from _mcp_load import RawClient

    async with RawClient(url, token) as client:
        await client.call(
            "memory_write", {"content": "Warming up: I like tea.", "memory_type": "preference"}
        )
        await client.call("memory_search", {"query": "warm up the server", "top_k": 5})


def parse_env(pairs: list[str]) -> list[tuple[str, str]]:
    out = []
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.startswith("GRAPHMEM_"):
            raise SystemExit(f"--server-env {pair!r}: expected GRAPHMEM_NAME=VALUE")
        out.append((key, value))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--memories", type=int, default=2000)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--clients", type=int, help="concurrent clients (default 50; 200 with --mixed)")
    ap.add_argument("--requests", type=int, default=10, help="searches per concurrent client")
    ap.add_argument("--out", type=Path, help="JSON results file (default bench/results/...)")
    mix = ap.add_argument_group("mixed load (--mixed)")
    mix.add_argument(
        "--mixed",
        action="store_true",
        help="writes and searches from many users, over HTTP and directly, instead of the"
        " overhead passes",
    )
    mix.add_argument("--duration", type=float, default=60.0, help="seconds per phase")
    mix.add_argument("--write-share", type=float, default=0.4, help="share of memory_write")
    mix.add_argument("--seed-per-user", type=int, default=10, help="memories per user first")
    mix.add_argument("--rounds", type=int, default=1, help="direct then HTTP, this many times")
    mix.add_argument(
        "--client",
        choices=("raw", "raw-legacy", "fastmcp"),
        default="raw",
        help="the HTTP load generator: a minimal JSON-RPC client speaking the 2026-07-28"
        " protocol (one POST per call, as fastmcp's Client does with this server), the same"
        " with the legacy session handshake, or fastmcp's Client itself",
    )
    mix.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="GRAPHMEM_NAME=VALUE",
        help="a setting for the server process (repeatable)",
    )
    mix.add_argument(
        "--sides",
        type=lambda v: [x for x in v.split(",") if x],
        default=["direct", "http"],
        help="which sides to run, in order (default direct,http; one side for profiling)",
    )
    args = ap.parse_args()
    if not set(args.sides) <= {"direct", "http"}:
        ap.error("--sides: direct and/or http")
    if args.mixed:
        mixed(args)
        return
    args.clients = args.clients or 50

    from graphmem import MemoryService, Settings

    load_start = os.getloadavg()  # the machine may be shared; record how busy it was
    tmp = Path(tempfile.mkdtemp(prefix="graphmem-mcp-bench-"))
    proc = None
    try:
        direct_dir, server_dir = tmp / "direct" / "data", tmp / "server" / "data"
        t = time.perf_counter()
        with MemoryService(Settings(data_dir=direct_dir)) as svc:
            items = synthetic_memories(args.memories)
            for i in range(0, len(items), 256):
                svc.write_many(USER, items[i : i + 256])
        seed_s = time.perf_counter() - t
        shutil.copytree(direct_dir, server_dir)
        token = f"bench-{uuid.uuid4().hex}"
        proc, url = start_server(server_dir, token, tmp / "server.log")
        svc = MemoryService(Settings(data_dir=direct_dir))
        try:
            seq = asyncio.run(sequential(svc, url, token, queries(args.queries, seed=1)))
            conc_direct = concurrent_direct(svc, args.clients, args.requests)
        finally:
            svc.close()
        conc = asyncio.run(concurrent(url, token, args.clients, args.requests))
    finally:
        if proc is not None:
            stop_server(proc)
        shutil.rmtree(tmp, ignore_errors=True)

    result = {
        "benchmark": "mcp_overhead",
        "command": command_line(),
        "machine": machine_info(),
        "loadavg_1m": {"start": round(load_start[0], 2), "end": round(os.getloadavg()[0], 2)},
        "memories": args.memories,
        "seed_s": round(seed_s, 1),
        "sequential": seq,
        "concurrent": conc,
        "concurrent_direct": conc_direct,
        "embedding_threads": Settings().embedding.torch_threads,
    }
    out = args.out or RESULTS_DIR / f"mcp_overhead-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")

    print(f"memory_search, {args.memories} memories, top_k=5, loopback ({result['command']})\n")
    print("| pass | direct p50 / p95 ms | HTTP p50 / p95 ms | overhead p50 ms | ratio p50 |")
    print("|---|---|---|---|---|")
    for label, r in seq.items():
        d, h = r["direct"], r["http"]
        print(
            f"| {label.replace('_', ' ')} (n={d['n']}) | {fmt(d['p50_ms'], 2)} /"
            f" {fmt(d['p95_ms'], 2)} | {fmt(h['p50_ms'], 2)} / {fmt(h['p95_ms'], 2)} |"
            f" {fmt(r['overhead_ms_p50'], 2)} | {fmt(r['overhead_ratio_p50'], 2)}× |"
        )
    print(
        f"\n{args.clients} concurrent clients × {args.requests} searches each, every query new:\n"
    )
    print("| path | p50 ms | p95 ms | p99 ms | throughput | errors |")
    print("|---|---|---|---|---|---|")
    for label, c in (("HTTP (MCP)", conc), ("direct, one thread per client", conc_direct)):
        print(
            f"| {label} | {fmt(c['p50_ms'], 1)} | {fmt(c['p95_ms'], 1)} | {fmt(c['p99_ms'], 1)} |"
            f" {c['throughput_rps']} req/s | {c.get('errors', 0)} |"
        )
    print(f"\nload average (1 min) {load_start[0]:.2f} at start, {os.getloadavg()[0]:.2f} at end")
    print(f"results: {out}")


if __name__ == "__main__":
    main()
