"""Build a large embedded store (SQLite + Qdrant Edge) with the graph that real writes make.

Writing a million memories through the service takes hours on a small machine (screening,
entity extraction, linking and the graph projection run per memory). This script multiplies a
store that real writes built instead, so every copy carries exactly the graph, entities and
keyword statistics those writes made:

1. the source: a store written through `write_many` (e.g. `bench/scale.py --bulk-path service
   --data-dir SRC`, which runs everything but the embedding model for real). It is read, never
   written: its SQLite file is attached read-only and its vectors are read from a copy of its
   Qdrant Edge shard, since loading a shard takes its write lock.
2. records: a fresh store is created by the records adapter (its own schema), then every row of
   `memories`, `memory_relations`, `entities`, `memory_entities` and `keyword_df` is copied
   `--copies` times with INSERT ... SELECT. Copy c gets new memory ids: the last four hex
   digits of each UUID replaced by c (still a valid UUID4; copy 0 is renamed too, or a source
   id that happens to end in c's digits would collide with its own copy); relations and
   entity links are remapped inside the copy, so no edge crosses copies. Rows go in copy by
   copy in the source's write order (doc_id; relations in their unique key's order, their
   secondary indexes made once at the end), the full-text index is filled by the schema's
   own triggers, `store_meta` is copied so the service sees the same embedding model
   and token version. The audit log and outbox are not copied.
   `--shape one-user`: copies keep the user id (one user with copies x the memories; entities
   are that user's, shared by every copy as real writes would share them; keyword document
   frequencies add up). `--shape users`: copy c > 0 renames each user u to `u~c<c>`, so 10
   source users x 100 copies make 1,000 users, each with its own entities and statistics.
   `--take-per-user N` keeps only each user's first N memories (and the edges and entity
   links among them; keyword statistics are then recounted), e.g. for the same shape at a
   tenth of the size.
3. vectors: copy 0 gets the source vectors unchanged; copy c > 0 gets each source vector plus
   Gaussian noise (`--perturb`, per dimension) re-normalised, like bench/scale.py's bulk path,
   so every point is distinct and the distribution stays clustered like real text. Points are
   written through the vector adapter's upsert (payload as the service writes it: hashed ids,
   type, status, time, metadata tokens), and the HNSW index is built every `--optimize-every`
   points and once at the end.

Texts repeat across copies (copy c's memory says what the source memory said): keyword postings
grow with the copies as they would with more text, but ties in keyword ranking are more common
than in real data, and a copy's text matches its vector only up to the noise. Latency, start
and memory are meaningful on such a store; relevance is not.

Usage:
  python bench/build_store.py --source SRC --out DIR --copies 10 --shape one-user
  python bench/build_store.py --source SRC10 --out DIR --copies 100 --shape users
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import command_line, machine_info  # noqa: E402

DB = "graphmem.sqlite3"
MEMORY_COPY_COLUMNS = (
    "session_id, content, summary, search_text, memory_type, source, confidence, embedding_id,"
    " metadata, access_count, last_access_at, decay_score, status, expires_at, created_at,"
    " updated_at, valid_from, valid_to, slot, agent_id, run_id"
)
RELATION_COPY_COLUMNS = "relation_type, strength, created_at, valid_from, valid_to"


def copy_id(column: str, copy: int) -> str:
    """SQL for the copy's memory id: the last four hex digits replaced by the copy number (the
    version and variant digits of a UUID4 are untouched)."""
    return f"(substr({column}, 1, 32) || '{copy:04x}')"


def copy_id_py(memory_id: str, copy: int) -> str:
    return memory_id[:32] + f"{copy:04x}"


def copy_user(column: str, copy: int, shape: str) -> str:
    return column if copy == 0 or shape == "one-user" else f"({column} || '~c{copy}')"


def copy_user_py(user_id: str, copy: int, shape: str) -> str:
    return user_id if copy == 0 or shape == "one-user" else f"{user_id}~c{copy}"


def check_source(source: Path) -> None:
    if not (source / DB).exists() or not (source / "vectors").is_dir():
        raise SystemExit(f"--source {source}: not an embedded store (no {DB} and vectors/)")
    con = sqlite3.connect(f"file:{source / DB}?mode=ro", uri=True)
    try:
        bad = con.execute(
            "SELECT count(*) FROM memories WHERE length(id) != 36 OR id != lower(id)"
        ).fetchone()[0]
        (n, prefixes) = con.execute(
            "SELECT count(*), count(DISTINCT substr(id, 1, 32)) FROM memories"
        ).fetchone()
    finally:
        con.close()
    if bad:
        raise SystemExit(f"--source {source}: {bad} memory ids are not canonical UUIDs")
    if prefixes != n:
        raise SystemExit(f"--source {source}: memory ids differing only in their last 4 digits")


def build_records(
    source: Path, out: Path, copies: int, shape: str, take: int | None, progress: bool
) -> dict[str, Any]:
    """Copy the source's rows `copies` times into a fresh records store under `out`."""
    from tqdm import tqdm

    from graphmem.stores.records.sqlite import SQLiteRecords

    SQLiteRecords(out / DB).close()  # the adapter creates the schema (and the id-hash key)
    db = sqlite3.connect(out / DB, uri=True, isolation_level=None)
    db.execute("PRAGMA synchronous = OFF")
    db.execute("PRAGMA cache_size = -1048576")  # 1 GiB while building
    # Secondary indexes are dropped while the rows go in and made again at the end from sorted
    # rows: inserting millions of random UUIDs into them one by one is most of the build time.
    # The adapter's schema names them all (CREATE INDEX IF NOT EXISTS), so nothing is lost.
    deferred = db.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
        " AND tbl_name IN ('memories', 'memory_relations', 'memory_entities')"
    ).fetchall()
    for name, _ in deferred:
        db.execute(f"DROP INDEX {name}")
    db.execute(f"ATTACH DATABASE 'file:{source / DB}?mode=ro' AS src")
    db.execute("CREATE TEMP TABLE keep (id TEXT PRIMARY KEY)")
    if take:
        db.execute(
            "INSERT INTO keep SELECT id FROM (SELECT id, row_number() OVER"
            " (PARTITION BY user_id ORDER BY doc_id) AS n FROM src.memories) WHERE n <= ?",
            (take,),
        )
    else:
        db.execute("INSERT INTO keep SELECT id FROM src.memories")
    (max_entity,) = db.execute("SELECT coalesce(max(id), 0) FROM src.entities").fetchone()
    counts = {
        t: 0 for t in ("memories", "memory_relations", "entities", "memory_entities", "keyword_df")
    }
    timings: dict[str, float] = {t: 0.0 for t in counts}
    kept_entities = (
        "SELECT entity_id FROM src.memory_entities WHERE memory_id IN (SELECT id FROM keep)"
    )
    bar = tqdm(total=copies, desc="records", unit="copy", file=sys.stderr, disable=not progress)
    for c in range(copies):
        uid = copy_user("user_id", c, shape)
        # one user: the entities are that user's, shared by every copy; else one set per copy
        entity_shift = 0 if shape == "one-user" else c * max_entity
        steps: list[tuple[str, str]] = [
            (
                "memories",
                f"INSERT INTO memories (id, user_id, {MEMORY_COPY_COLUMNS})"
                f" SELECT {copy_id('id', c)}, {uid}, {MEMORY_COPY_COLUMNS} FROM src.memories"
                " WHERE id IN (SELECT id FROM keep) ORDER BY doc_id",
            ),
            (
                "memory_relations",
                "INSERT INTO memory_relations (user_id, source_memory_id, target_memory_id,"
                f" {RELATION_COPY_COLUMNS}) SELECT {uid}, {copy_id('source_memory_id', c)},"
                f" {copy_id('target_memory_id', c)}, {RELATION_COPY_COLUMNS}"
                " FROM src.memory_relations WHERE source_memory_id IN (SELECT id FROM keep)"
                " AND target_memory_id IN (SELECT id FROM keep)"
                # the order of the UNIQUE key: its inserts then go to neighbouring pages
                " ORDER BY source_memory_id, target_memory_id, relation_type",
            ),
            (
                "memory_entities",
                "INSERT INTO memory_entities (memory_id, entity_id, user_id)"
                f" SELECT {copy_id('memory_id', c)}, entity_id + {entity_shift}, {uid}"
                " FROM src.memory_entities WHERE memory_id IN (SELECT id FROM keep)",
            ),
        ]
        if c == 0 or shape != "one-user":
            steps.append(
                (
                    "entities",
                    "INSERT INTO entities (id, user_id, name, normalized_name, entity_type,"
                    f" created_at) SELECT id + {entity_shift}, {uid}, name, normalized_name,"
                    f" entity_type, created_at FROM src.entities WHERE id IN ({kept_entities})",
                )
            )
        if not take:  # a subset's statistics are recounted at the end
            steps.append(
                (
                    "keyword_df",
                    f"INSERT INTO keyword_df (user_id, term, df) SELECT {uid}, term, df"
                    " FROM src.keyword_df WHERE true"
                    " ON CONFLICT (user_id, term) DO UPDATE SET df = df + excluded.df",
                )
            )
        db.execute("BEGIN")
        for table, sql in steps:
            t0 = time.perf_counter()
            counts[table] += db.execute(sql).rowcount
            timings[table] += time.perf_counter() - t0
        db.execute("COMMIT")
        bar.update(1)
    bar.close()
    db.execute(
        "INSERT OR REPLACE INTO store_meta (name, value) SELECT name, value FROM src.store_meta"
    )
    db.execute("DETACH DATABASE src")
    t0 = time.perf_counter()
    for _, sql in deferred:
        db.execute(sql)
    timings["secondary indexes"] = time.perf_counter() - t0
    db.close()
    out_info: dict[str, Any] = {
        "rows": counts,
        "seconds": {k: round(v, 1) for k, v in timings.items()},
    }
    t0 = time.perf_counter()
    records = SQLiteRecords(out / DB)  # ANALYZE on open
    if take:
        records.rebuild_keyword_stats()
        out_info["rows"]["keyword_df"] = records._fetch("SELECT count(*) FROM keyword_df")[0][0]
    records.close()
    out_info["seconds"]["analyze + statistics"] = round(time.perf_counter() - t0, 1)
    return out_info


def source_vectors(source: Path, ids: list[str], scratch: Path) -> Any:
    """The source's vectors in `ids` order, read from a copy of its shard (loading a shard
    takes its write lock and may replay its WAL: the source itself is left alone)."""
    import numpy as np

    from graphmem.stores.id_hash import IdHasher
    from graphmem.stores.vectors.edge import EdgeVectors

    shutil.copytree(source / "vectors", scratch)
    store = EdgeVectors(scratch, dim=384, id_hasher=IdHasher.for_dir(source))
    try:
        got: dict[str, Any] = {}
        for i in range(0, len(ids), 1000):
            got.update(store.vectors(ids[i : i + 1000]))
    finally:
        store.close()
        shutil.rmtree(scratch)
    missing = [i for i in ids if i not in got]
    if missing:
        raise SystemExit(f"the source's vector store lacks {len(missing)} of its memories")
    return np.stack([got[i] for i in ids]).astype(np.float32)


def build_vectors(
    source: Path,
    out: Path,
    copies: int,
    shape: str,
    take: int | None,
    sigma: float,
    optimize_every: int,
    chunk: int,
    progress: bool,
    index: bool = True,
) -> dict[str, Any]:
    """Write every copy's points through the vector adapter, in the records' order."""
    import numpy as np
    from tqdm import tqdm

    from graphmem.service.projection import vector_point
    from graphmem.stores.records.base import MEMORY_COLUMNS
    from graphmem.stores.records.sqlite import SQLiteRecords
    from graphmem.stores.vectors.edge import EdgeVectors

    reader = SQLiteRecords(":memory:")  # only its row -> Memory conversion
    con = sqlite3.connect(f"file:{source / DB}?mode=ro", uri=True)
    if take:
        sql = (
            f"SELECT {MEMORY_COLUMNS} FROM (SELECT *, row_number() OVER"
            " (PARTITION BY user_id ORDER BY doc_id) AS n FROM memories) WHERE n <= ?"
            " ORDER BY doc_id"
        )
        rows = con.execute(sql, (take,)).fetchall()
    else:
        rows = con.execute(f"SELECT {MEMORY_COLUMNS} FROM memories ORDER BY doc_id").fetchall()
    con.close()
    mems = [reader._row_to_memory(r) for r in rows]
    reader.close()
    t0 = time.perf_counter()
    base = source_vectors(source, [m.id for m in mems], out / "vectors.source-copy")
    read_s = time.perf_counter() - t0
    if not index:
        optimize_every = 1 << 62
    store = EdgeVectors(out / "vectors", dim=384, optimize_every=optimize_every)
    rng = np.random.default_rng(0)
    total = copies * len(mems)
    upsert_s = 0.0
    build_s = 0.0
    builds = 0
    orig_optimize = store.optimize

    def timed_optimize() -> None:
        nonlocal build_s, builds
        t = time.perf_counter()
        orig_optimize()
        build_s += time.perf_counter() - t
        builds += 1

    store.optimize = timed_optimize  # type: ignore[method-assign]
    bar = tqdm(total=total, desc="vectors", unit="pt", file=sys.stderr, disable=not progress)
    try:
        for c in range(copies):
            for i in range(0, len(mems), chunk):
                part = mems[i : i + chunk]
                vecs = base[i : i + chunk]
                if c:
                    vecs = vecs + rng.normal(0.0, sigma, size=vecs.shape).astype(np.float32)
                    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
                points = [
                    vector_point(
                        dataclasses.replace(
                            m,
                            id=copy_id_py(m.id, c),
                            user_id=copy_user_py(m.user_id, c, shape),
                        ),
                        v,
                    )
                    for m, v in zip(part, vecs, strict=True)
                ]
                t = time.perf_counter()
                store.upsert(points)
                upsert_s += time.perf_counter() - t
                bar.update(len(points))
        if store._since_optimize and index:
            store.optimize()
        health = store.health()
    finally:
        bar.close()
        store.close()
    return {
        "points": total,
        "read_source_s": round(read_s, 1),
        "upsert_s_incl_hnsw": round(upsert_s, 1),
        "hnsw_build_s": round(build_s, 1),
        "hnsw_builds": builds,
        "perturb_sigma": sigma,
        "health": health,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--source", type=Path, required=True, help="a store built by real writes")
    p.add_argument("--out", type=Path, required=True, help="the new store (must not exist)")
    p.add_argument("--copies", type=int, required=True, help="copies of the source (>= 1)")
    p.add_argument(
        "--shape",
        choices=("one-user", "users"),
        required=True,
        help="one-user: copies keep the user ids; users: copy c renames user u to u~c<c>",
    )
    p.add_argument(
        "--take-per-user", type=int, default=None, help="copy only each user's first N memories"
    )
    p.add_argument("--perturb", type=float, default=0.02, help="vector noise per dimension")
    p.add_argument("--optimize-every", type=int, default=200_000, help="points per HNSW build")
    p.add_argument("--chunk", type=int, default=2000, help="points per upsert")
    p.add_argument(
        "--no-index",
        action="store_true",
        help="leave the vectors unindexed (no HNSW build): search over one user's points then"
        " scans them; a tenant of a few thousand is scanned even with an index",
    )
    p.add_argument(
        "--vectors-only",
        action="store_true",
        help="the records of --out are complete (an earlier run): write only the vectors again",
    )
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    if args.copies < 1:
        raise SystemExit("--copies: at least 1")
    if args.take_per_user is not None and args.take_per_user < 1:
        raise SystemExit("--take-per-user: at least 1")
    if args.vectors_only:
        if not (args.out / DB).exists():
            raise SystemExit(f"--vectors-only: {args.out} has no records yet")
        shutil.rmtree(args.out / "vectors", ignore_errors=True)
        shutil.rmtree(args.out / "vectors.source-copy", ignore_errors=True)
    elif args.out.exists() and any(args.out.iterdir()):
        raise SystemExit(f"--out {args.out}: exists and is not empty")
    check_source(args.source)
    args.out.mkdir(parents=True, exist_ok=True)
    progress = not args.no_progress
    result: dict[str, Any] = {
        "benchmark": "build_store",
        "command": command_line(),
        "machine": machine_info(),
        "source": str(args.source),
        "copies": args.copies,
        "shape": args.shape,
        "take_per_user": args.take_per_user,
    }
    t0 = time.perf_counter()
    if not args.vectors_only:
        result["records"] = build_records(
            args.source, args.out, args.copies, args.shape, args.take_per_user, progress
        )
        result["records_s"] = round(time.perf_counter() - t0, 1)
    t1 = time.perf_counter()
    result["vectors"] = build_vectors(
        args.source,
        args.out,
        args.copies,
        args.shape,
        args.take_per_user,
        args.perturb,
        args.optimize_every,
        args.chunk,
        progress,
        index=not args.no_index,
    )
    result["vectors_s"] = round(time.perf_counter() - t1, 1)
    result["total_s"] = round(time.perf_counter() - t0, 1)
    result["disk_mb"] = round(
        sum(f.stat().st_size for f in args.out.rglob("*") if f.is_file()) / 2**20, 1
    )
    suffix = ".vectors.build.json" if args.vectors_only else ".build.json"
    args.out.with_name(args.out.name + suffix).write_text(
        json.dumps(result, indent=1, default=str), "utf-8"
    )
    print(json.dumps({k: v for k, v in result.items() if k != "machine"}, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
