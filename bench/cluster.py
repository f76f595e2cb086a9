"""Replicas of `graphmem serve` on one MariaDB, Redis and Qdrant cluster, under MCP load.

For each replica count (default 1, 2, 3) this starts that many identical `graphmem serve`
processes on a fresh MariaDB database, the same Redis and a fresh collection on the Qdrant
cluster (users hashed into shard groups, replication factor 2), and runs C MCP clients for D
seconds, each client its own user and token, spread round-robin over the replicas, a share of
them writing (`memory_write`) and the rest searching (`memory_search`). With `--kill`, halfway
through the run with the most replicas, the last replica and the Qdrant node it talks to are
killed with SIGKILL; their clients move to the next replica, as behind a load balancer.

After each run it checks what replicas must guarantee:
  - every acknowledged write is readable (`memory_get`) from every replica still alive;
  - once the outbox is drained, every stored memory has exactly one vector point and no point
    lacks its memory (no lost or duplicate projection), for each acknowledged write too;
  - `graphmem doctor --json` reports no drift.
It prints throughput and p50/p95 per replica count. On a 2-core machine everything (the
replicas, MariaDB, Redis, three Qdrant nodes and the load generator) shares two cores: the
figures are CPU-bound and say how the pieces behave together, not how replicas scale.

Usage (the services from scripts/services.sh and a Qdrant cluster from scripts/qdrant.sh):
    scripts/services.sh start && source .services/env
    scripts/qdrant.sh start cluster && source .services/qdrant.env
    python bench/cluster.py --replicas 1,2,3 --clients 200 --duration 60 --kill
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import RESULTS_DIR, command_line, fmt, machine_info, percentile  # noqa: E402
from _mcp_load import Ops, RawClient, make_tokens, proc_cpu_s, summarise, user_of  # noqa: E402
from mcp_overhead import free_port, stop_server  # noqa: E402
from production import drop_database, fresh_database  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def need(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise SystemExit(f"{name} is not set (see this script's docstring)")
    return value


def settings_env(mysql_url: str, qdrant_url: str, collection: str, replicas: int) -> dict[str, str]:
    return {
        "GRAPHMEM_RECORDS_BACKEND": "mysql",
        "GRAPHMEM_MYSQL_URL": mysql_url,
        "GRAPHMEM_REDIS_URL": need("GRAPHMEM_TEST_REDIS_URL"),
        "GRAPHMEM_VECTOR_BACKEND": "qdrant",
        "GRAPHMEM_QDRANT_URL": qdrant_url,
        "GRAPHMEM_QDRANT_COLLECTION": collection,
        "GRAPHMEM_QDRANT_SHARD_GROUPS": "3",
        "GRAPHMEM_QDRANT_REPLICATION_FACTOR": str(replicas),
        "GRAPHMEM_QDRANT_WRITE_CONSISTENCY": "1",
        # Rate limits measure nothing here; the load is the point.
        "GRAPHMEM_GUARD_RATE_LIMITS": json.dumps({"write": 1e9, "search": 1e9}),
        "GRAPHMEM_OUTBOX_DRAIN_SECONDS": "2",
    }


def start_replica(
    data_dir: Path, env_extra: dict[str, str], log: Path
) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    env.update(env_extra)
    env["GRAPHMEM_DATA_DIR"] = str(data_dir)
    exe = Path(sys.executable).with_name("graphmem")
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [str(exe), "serve", "--host", "127.0.0.1", "--port", str(port)],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    return proc, f"http://127.0.0.1:{port}/mcp"


async def wait_ready(url: str, token: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"a replica exited:\n{log.read_text()[-3000:]}")
        try:
            async with RawClient(url, token) as c:
                if await c.result("memory_search", {"query": "warm up", "top_k": 1}) is not None:
                    return
        except OSError:
            pass
        except RuntimeError:
            pass
        await asyncio.sleep(1)
    raise SystemExit(f"a replica did not come up: {log}")


async def load(
    urls: list[str],
    alive: list[bool],
    tokens: list[str],
    duration: float,
    write_share: float,
    salt: str,
    on_half: Any,
) -> tuple[list[tuple[str, float, bool]], float, dict[str, list[str]], list[int]]:
    """Closed-loop clients; client c starts on replica c % R and moves on when it fails."""
    clients = len(tokens)
    records: list[list[tuple[str, float, bool]]] = [[] for _ in range(clients)]
    acked: dict[str, list[str]] = {}
    served = [0] * len(urls)
    go = asyncio.Event()
    deadline = [0.0]

    async def one(c: int) -> None:
        ops, out, home = Ops(c, write_share, salt), records[c], c % len(urls)
        await go.wait()
        client: RawClient | None = None
        while time.perf_counter() < deadline[0]:
            if client is None:
                while not alive[home]:
                    home = (home + 1) % len(urls)
                client = RawClient(urls[home], tokens[c])
                try:
                    await client.__aenter__()
                except OSError:
                    client = None
                    home = (home + 1) % len(urls)
                    await asyncio.sleep(0.2)
                    continue
            kind, args = ops.next()
            t = time.perf_counter()
            try:
                res = await client.result(
                    "memory_write" if kind == "write" else "memory_search", args
                )
            except (OSError, RuntimeError, asyncio.IncompleteReadError):
                res = None
                await client.http.close()
                client = None  # the replica may be gone: reconnect (elsewhere if it is dead)
            ok = res is not None
            if ok and kind == "write":
                acked.setdefault(user_of(c), []).append(str(res["memory_id"]))  # type: ignore[index]
            if ok:
                served[home] += 1
            out.append((kind, (time.perf_counter() - t) * 1000, ok))
        if client is not None:
            await client.__aexit__(None, None, None)

    tasks = [asyncio.create_task(one(c)) for c in range(clients)]
    deadline[0] = time.perf_counter() + duration
    t0 = time.perf_counter()
    go.set()
    if on_half is not None:
        await asyncio.sleep(duration / 2)
        on_half()
    await asyncio.gather(*tasks)
    wall = time.perf_counter() - t0
    return [r for lst in records for r in lst], wall, acked, served


async def readable_everywhere(
    urls: list[str], alive: list[bool], tokens: list[str], acked: dict[str, list[str]]
) -> dict[str, Any]:
    """memory_get of every acknowledged write, from every live replica."""
    missing: dict[str, int] = {}
    token_of = {user_of(c): t for c, t in enumerate(tokens)}
    for i, url in enumerate(urls):
        if not alive[i]:
            continue
        lost = 0
        for user, ids in acked.items():
            async with RawClient(url, token_of[user]) as c:
                for j in range(0, len(ids), 50):
                    res = await c.result("memory_get", {"memory_ids": ids[j : j + 50]})
                    got = {m["memory_id"] for m in (res or {}).get("memories", [])}
                    lost += sum(1 for x in ids[j : j + 50] if x not in got)
        missing[f"replica{i + 1}"] = lost
    return missing


def projection_check(env: dict[str, str], acked: dict[str, list[str]]) -> dict[str, Any]:
    """Drain the outbox, then compare the records with the vector index, id by id."""
    from graphmem import MemoryService, Settings

    saved = dict(os.environ)
    os.environ.update(env)
    try:
        with MemoryService(Settings(data_dir=Path(tempfile.mkdtemp()))) as svc:
            ctx = svc.context
            deadline = time.monotonic() + 180
            while ctx.records.outbox_count() and time.monotonic() < deadline:
                ctx.drain_outbox(force=True)
                time.sleep(1)
            records = ctx.records.all_ids()
            points = ctx.vectors.ids()
            count = ctx.vectors.count()
            every_ack = [i for ids in acked.values() for i in ids]
            return {
                "outbox_left": ctx.records.outbox_count(),
                "memories": len(records),
                "vector_points": count,
                "memories_without_point": len(records - points),
                "points_without_memory": len(points - records),
                "acked": len(every_ack),
                "acked_not_in_records": sum(1 for i in every_ack if i not in records),
                "acked_without_point": sum(1 for i in every_ack if i not in points),
            }
    finally:
        os.environ.clear()
        os.environ.update(saved)


def doctor(env: dict[str, str], data_dir: Path) -> dict[str, Any]:
    run_env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    run_env.update(env)
    run_env["GRAPHMEM_DATA_DIR"] = str(data_dir)
    exe = Path(sys.executable).with_name("graphmem")
    p = subprocess.run(
        [str(exe), "doctor", "--json"], env=run_env, capture_output=True, text=True, timeout=600
    )
    try:
        report = json.loads(p.stdout)
    except json.JSONDecodeError:
        report = {"raw": p.stdout[-2000:], "stderr": p.stderr[-2000:]}
    return {"exit": p.returncode, "report": report}


def run(args: argparse.Namespace, replicas: int, kill: bool) -> dict[str, Any]:
    base_mysql = need("GRAPHMEM_TEST_MYSQL_URL")
    qdrant_urls = need("GRAPHMEM_TEST_QDRANT_URLS").split(",")
    mysql_url = fresh_database(base_mysql)
    collection = f"graphmem_cluster_{uuid.uuid4().hex[:8]}"
    tmp = Path(tempfile.mkdtemp(prefix="graphmem-cluster-"))
    procs: list[subprocess.Popen[bytes]] = []
    try:
        envs = [
            settings_env(
                mysql_url,
                qdrant_urls[i % len(qdrant_urls)],
                collection,
                min(2, len(qdrant_urls)),
            )
            for i in range(replicas)
        ]
        tokens_file = tmp / "tokens.json"
        tokens = make_tokens(tokens_file, args.clients)
        urls = []
        for i in range(replicas):
            d = tmp / f"replica{i + 1}"
            d.mkdir()
            shutil.copy(tokens_file, d / "mcp_tokens.json")
            proc, url = start_replica(d, envs[i], tmp / f"replica{i + 1}.log")
            procs.append(proc)
            urls.append(url)
            # One at a time: the first creates the schema and the collection.
            asyncio.run(wait_ready(url, tokens[0], proc, tmp / f"replica{i + 1}.log"))
        alive = [True] * replicas
        killed: dict[str, Any] = {}

        def on_half() -> None:
            victim = replicas - 1
            procs[victim].kill()
            alive[victim] = False
            node = victim % len(qdrant_urls) + 1
            subprocess.run([str(REPO / "scripts/qdrant.sh"), "kill", str(node)], check=True)
            killed.update({"replica": victim + 1, "qdrant_node": node, "at_s": args.duration / 2})

        cpu0 = {i: proc_cpu_s(p.pid) for i, p in enumerate(procs)}
        load0 = os.getloadavg()[0]
        recs, wall, acked, served = asyncio.run(
            load(
                urls,
                alive,
                tokens,
                args.duration,
                args.write_share,
                f"cluster-{replicas}",
                on_half if kill else None,
            )
        )
        res = summarise(recs, wall, percentile)
        res["replicas"] = replicas
        res["served_per_replica"] = served
        res["loadavg_1m"] = {"start": round(load0, 2), "end": round(os.getloadavg()[0], 2)}
        res["replica_cpu_s"] = [
            round(proc_cpu_s(p.pid) - cpu0[i], 1) for i, p in enumerate(procs) if alive[i]
        ]
        # Checked with the killed Qdrant node still down: replication must serve every shard.
        res["unreadable_acked_writes"] = asyncio.run(
            readable_everywhere(urls, alive, tokens, acked)
        )
        res["projection"] = projection_check(envs[0], acked)
        res["doctor"] = doctor(envs[0], tmp / "doctor")
        if killed:
            res["killed"] = killed
            subprocess.run(
                [str(REPO / "scripts/qdrant.sh"), "restart-node", str(killed["qdrant_node"])],
                check=True,
            )
        print(json.dumps(res), flush=True)
        return res
    finally:
        for p in procs:
            if p.poll() is None:
                stop_server(p)
        try:
            from qdrant_client import QdrantClient

            QdrantClient(url=qdrant_urls[0]).delete_collection(collection)
        except Exception as e:  # noqa: BLE001 - cleanup only
            print(f"could not drop collection {collection}: {e}", file=sys.stderr)
        drop_database(mysql_url)
        shutil.rmtree(tmp, ignore_errors=True)


def killed_text(run: dict[str, Any]) -> str:
    k = run.get("killed")
    if not k:
        return ""
    return f"replica {k['replica']} + Qdrant node {k['qdrant_node']} at {k['at_s']:g} s"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--replicas", default="1,2,3", help="replica counts to run, in order")
    ap.add_argument("--clients", type=int, default=200)
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--write-share", type=float, default=0.2)
    ap.add_argument("--kill", action="store_true", help="kill a replica and a Qdrant node")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    counts = [int(x) for x in args.replicas.split(",")]
    load_start = os.getloadavg()[0]
    runs = [run(args, r, args.kill and r == max(counts) and r > 1) for r in counts]
    result = {
        "benchmark": "cluster",
        "command": command_line(),
        "machine": machine_info(),
        "clients": args.clients,
        "duration_s": args.duration,
        "write_share": args.write_share,
        "loadavg_1m_start": round(load_start, 2),
        "runs": runs,
    }
    out = args.out or RESULTS_DIR / f"cluster-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\n{args.clients} MCP clients, {args.duration:g} s, ({result['command']})\n")
    print(
        "| replicas | ops/s | write p50 / p95 ms | search p50 / p95 ms | errors | killed"
        " | unreadable acked writes | lost / orphan points | doctor |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for x in runs:
        w, q, pr = x["write"], x["search"], x["projection"]
        print(
            f"| {x['replicas']} | {x['ops_per_s']} | {fmt(w['p50_ms'], 0)} / {fmt(w['p95_ms'], 0)}"
            f" | {fmt(q['p50_ms'], 0)} / {fmt(q['p95_ms'], 0)} | {x['errors']}"
            f" | {killed_text(x)} | {sum(x['unreadable_acked_writes'].values())}"
            f" | {pr['memories_without_point']} / {pr['points_without_memory']}"
            f" | exit {x['doctor']['exit']} |"
        )
    print(f"results: {out}")


if __name__ == "__main__":
    main()
