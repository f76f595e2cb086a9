"""Production adapters vs the embedded default, in one run, on this machine.

Writes N synthetic memories in batches and runs distinct searches through MemoryService on
(a) SQLite + Qdrant Edge + networkx and (b) MariaDB + Qdrant (qdrant-client) + Neo4j + Redis,
then times erasing one user with 10,000 memories on both.

No Qdrant server can run here, so (b) uses qdrant-client's local mode, which speaks the same
client API but is far slower than a server: the vector part of (b) is a pessimistic stand-in.
MariaDB, Neo4j and Redis are the real servers from scripts/services.sh (GRAPHMEM_TEST_* vars).

    scripts/services.sh start && source .services/env
    .venv/bin/python bench/production.py --memories 2000 --searches 200 --erase 10000
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pymysql  # noqa: E402

from bench._common import RESULTS_DIR, machine_info, median, percentile  # noqa: E402
from graphmem import MemoryService, Settings  # noqa: E402
from graphmem.stores.records.mysql import parse_mysql_url  # noqa: E402

TOPICS = [
    "budget",
    "flight",
    "doctor",
    "project",
    "garden",
    "concert",
    "contract",
    "school",
    "recipe",
    "marathon",
    "landlord",
    "invoice",
    "vacation",
    "laptop",
    "birthday",
]
PEOPLE = ["Alice", "Bob", "Priya", "Zhang San", "Li Na", "Carlos", "Fatima", "Kenji"]
VERBS = ["talked about", "worried about", "planned", "finished", "postponed", "booked", "paid"]


def sentence(rng: random.Random, i: int) -> str:
    return (
        f"{rng.choice(PEOPLE)} {rng.choice(VERBS)} the {rng.choice(TOPICS)} with "
        f"{rng.choice(PEOPLE)} on day {i % 365} (note {i})"
    )


def fresh_database(base_url: str) -> str:
    kw = parse_mysql_url(base_url)
    name = f"graphmem_bench_{uuid.uuid4().hex[:8]}"
    conn = pymysql.connect(
        host=kw["host"], port=kw["port"], user=kw["user"], password=kw["password"], autocommit=True
    )
    with conn.cursor() as cur:
        cur.execute(f"CREATE DATABASE {name} CHARACTER SET utf8mb4")
    conn.close()
    return base_url.rsplit("/", 1)[0] + "/" + name


def drop_database(url: str) -> None:
    kw = parse_mysql_url(url)
    conn = pymysql.connect(
        host=kw["host"], port=kw["port"], user=kw["user"], password=kw["password"], autocommit=True
    )
    with conn.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS {kw['database']}")
    conn.close()


def run(
    label: str, settings: Settings, n: int, searches: int, erase: int, batch: int
) -> dict[str, Any]:
    rng = random.Random(7)
    svc = MemoryService(settings)
    user = f"bench-{uuid.uuid4().hex[:6]}"
    items = [{"content": sentence(rng, i), "session_id": f"s{i // 20}"} for i in range(n)]
    t = time.perf_counter()
    for i in range(0, n, batch):
        svc.write_many(user, items[i : i + batch])
    write_s = time.perf_counter() - t
    lat = []
    for i in range(searches):
        q = f"what did {rng.choice(PEOPLE)} say about the {rng.choice(TOPICS)} ({i})"
        t = time.perf_counter()
        svc.search(user, q, 10, track_access=False)
        lat.append((time.perf_counter() - t) * 1000)
    doomed = f"erase-{uuid.uuid4().hex[:6]}"
    for i in range(0, erase, batch):
        svc.write_many(
            doomed, [{"content": sentence(rng, j)} for j in range(i, min(erase, i + batch))]
        )
    t = time.perf_counter()
    receipt = svc.forget_user(doomed, requested_by="bench")
    erase_s = time.perf_counter() - t
    svc.forget_user(user, requested_by="bench")
    svc.close()
    out = {
        "label": label,
        "memories": n,
        "write_per_s": n / write_s,
        "search_p50_ms": median(lat),
        "search_p95_ms": percentile(lat, 95),
        "erase_memories": erase,
        "erase_s": erase_s,
        "erase_verified": receipt.verified,
    }
    print(json.dumps(out), file=sys.stderr)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--memories", type=int, default=2000)
    ap.add_argument("--searches", type=int, default=200)
    ap.add_argument("--erase", type=int, default=10_000)
    ap.add_argument("--batch", type=int, default=500)
    ap.add_argument("--out", default=str(RESULTS_DIR / "production.json"))
    args = ap.parse_args()
    for var in ("GRAPHMEM_TEST_MYSQL_URL", "GRAPHMEM_TEST_NEO4J_URL", "GRAPHMEM_TEST_REDIS_URL"):
        if not os.environ.get(var):
            sys.exit(f"{var} is not set: run scripts/services.sh start && source .services/env")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        rows.append(
            run(
                "embedded (SQLite + Qdrant Edge + networkx)",
                Settings(data_dir=Path(tmp) / "embedded"),
                args.memories,
                args.searches,
                args.erase,
                args.batch,
            )
        )
        db = fresh_database(os.environ["GRAPHMEM_TEST_MYSQL_URL"])
        try:
            prod = Settings(
                data_dir=Path(tmp) / "prod",
                redis_url=os.environ["GRAPHMEM_TEST_REDIS_URL"],
                records={"backend": "mysql", "mysql_url": db},
                vectors={"backend": "qdrant"},
                qdrant={"url": str(Path(tmp) / "qdrant-local")},
                graph={"backend": "neo4j"},
                neo4j={
                    "url": os.environ["GRAPHMEM_TEST_NEO4J_URL"],
                    "password": os.environ.get("GRAPHMEM_TEST_NEO4J_PASSWORD"),
                },
            )
            rows.append(
                run(
                    "production (MariaDB + qdrant-client local + Neo4j + Redis)",
                    prod,
                    args.memories,
                    args.searches,
                    args.erase,
                    args.batch,
                )
            )
        finally:
            drop_database(db)
    base = rows[0]
    print(f"\n{machine_info().get('summary', '')}")
    print("| stack | writes/s | search p50 ms | search p95 ms | erase 10k user s | verified |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['label']} | {r['write_per_s']:.0f}"
            f" ({r['write_per_s'] / base['write_per_s']:.2f}x)"
            f" | {r['search_p50_ms']:.1f} ({r['search_p50_ms'] / base['search_p50_ms']:.2f}x)"
            f" | {r['search_p95_ms']:.1f} | {r['erase_s']:.2f} | {r['erase_verified']} |"
        )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"machine": machine_info(), "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
