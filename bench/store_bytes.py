"""Bytes per memory in each part of a store: records, relations, entities, keyword index, vectors.

Capacity planning needs the cost of one memory in every store, measured on a store that real
writes built (relations, entities and keyword statistics grow with what is written, not only
with the count). This script reads a store and prints, per table and per index, its bytes, its
rows and its bytes per memory, grouped into parts:

records    the `memories` table and its secondary indexes
relations  `memory_relations` and its indexes (the two rank indexes graph expansion reads)
entities   `entities` and `memory_entities`
keyword    the full-text index (SQLite FTS5 postings; MariaDB/MySQL FULLTEXT), the per-user
           document frequencies `keyword_df` and SQLite's `memories_fts_owner`
vectors    the Qdrant Edge shard of an embedded store, per part of its segments (original
           vectors, HNSW graph, payload, payload indexes, id tracker) and its WAL
other      audit log, outbox, store facts, the schema

Where the bytes come from:
- SQLite (an embedded store directory): the `dbstat` virtual table, i.e. the pages each table
  and index occupies, free space inside them included. The database is opened read-only.
- Qdrant Edge: the files under `vectors/`, as allocated on disk (what `du` counts; the mapped
  chunk files are sparse, so their apparent size is larger).
- MariaDB / MySQL (a `mysql://` URL): `information_schema.TABLES` (DATA_LENGTH, INDEX_LENGTH:
  InnoDB's pages per table, its clustered rows and its secondary indexes), after
  `ANALYZE TABLE` with `--analyze`. InnoDB keeps a FULLTEXT index in hidden auxiliary tables
  that information_schema does not list; with `--datadir` (the server's data directory, read
  on the database host) their `.ibd` files are summed, as are every table's, which is also
  the size on disk with InnoDB's extent preallocation.

- Redis (a `redis://` URL): `MEMORY USAGE` of every key under `--redis-prefix` (default
  `graphmem:`), grouped by kind: the search cache (`sc`), working memory (`wm`), rate-limit
  buckets (`rl`). Run it on a live deployment to get bytes per active user.

`--copy-from STORE` first copies an embedded store's first N memories (`--copy-memories`, by
write order) with the relations among them, their entity links and entities into the given,
empty MySQL database (the records adapter creates the schema; keyword statistics are
recounted), so one store can be measured in both engines.

Usage:
  python bench/store_bytes.py STORE
  python bench/store_bytes.py mysql://USER:PASSWORD@HOST:3306/DB --analyze [--datadir DATADIR]
  python bench/store_bytes.py mysql://USER:PASSWORD@HOST:3306/DB --copy-from STORE \\
      --copy-memories 20000 --analyze
  python bench/store_bytes.py redis://HOST:6379/0 [--redis-prefix graphmem:]
  add --json FILE to keep the figures
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

DB = "graphmem.sqlite3"
PARTS = ("records", "relations", "entities", "keyword", "vectors", "redis", "other")
TABLE_PART = {
    "memories": "records",
    "memory_relations": "relations",
    "entities": "entities",
    "memory_entities": "entities",
    "memories_fts": "keyword",
    "memories_fts_owner": "keyword",
    "keyword_df": "keyword",
}
COUNTED = ("memories", "memory_relations", "entities", "memory_entities", "keyword_df")


@dataclass
class Item:
    """One table, index or group of files: its part, its bytes and the rows it holds."""

    part: str
    name: str
    kind: str
    bytes: int
    rows: int | None = None


@dataclass
class Report:
    source: str
    engine: str
    memories: int
    relations: int
    items: list[Item]
    notes: list[str]


# ---------------------------------------------------------------- SQLite + Qdrant Edge


def _sqlite_owner(name: str, tables: dict[str, str], fts: list[str]) -> str:
    """The table a dbstat name belongs to: an index's table, an FTS5 shadow table's index."""
    for vt in fts:
        if name.startswith(vt + "_") and name not in TABLE_PART:
            return vt
    return tables.get(name, name)


def sqlite_items(db_path: Path) -> tuple[list[Item], dict[str, int], list[str]]:
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        master = con.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall()
        owner = {name: tbl for _, name, tbl, _ in master}
        fts = [
            name
            for kind, name, _, sql in master
            if kind == "table" and sql and "VIRTUAL TABLE" in sql.upper()
        ]
        kinds = {name: kind for kind, name, _, _ in master}
        pages = con.execute(
            "SELECT name, SUM(pgsize), SUM(ncell) FROM dbstat GROUP BY name ORDER BY name"
        ).fetchall()
        existing = {name for kind, name, _, _ in master if kind == "table"}
        counts = {
            t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
            for t in (*COUNTED, "memories_fts_owner")
            if t in existing
        }
        (page_size,) = con.execute("PRAGMA page_size").fetchone()
        (page_count,) = con.execute("PRAGMA page_count").fetchone()
        (free,) = con.execute("PRAGMA freelist_count").fetchone()
    finally:
        con.close()
    items = []
    for name, nbytes, _cells in pages:
        table = _sqlite_owner(name, owner, fts)
        part = TABLE_PART.get(table, "other")
        if name == table:
            kind = "FTS5 index" if table in fts else "table"
        elif table in fts:
            kind = "FTS5 shadow table"
        else:
            kind = "index" if kinds.get(name) == "index" else "table"
        rows = counts.get(name) if kind == "table" else None
        items.append(Item(part, name, kind, int(nbytes), rows))
    notes = [
        f"SQLite: {page_count:,} pages of {page_size:,} B ({page_count * page_size:,} B),"
        f" {free:,} of them free"
    ]
    return items, counts, notes


def _allocated(path: Path) -> int:
    st = path.stat()
    return int(getattr(st, "st_blocks", 0)) * 512 or st.st_size


def edge_items(vectors: Path) -> tuple[list[Item], list[str]]:
    """The shard's files by role, summed over its segments."""
    sizes: dict[str, list[int]] = {}
    for root, _dirs, files in os.walk(vectors):
        for f in files:
            p = Path(root) / f
            rel = p.relative_to(vectors).parts
            if rel[0] == "segments" and len(rel) > 3:
                role = rel[2]
            elif rel[0] == "segments":
                role = "segment metadata"
            elif rel[0] == "wal":
                role = "wal"
            else:
                role = "shard metadata"
            acc = sizes.setdefault(role, [0, 0])
            acc[0] += _allocated(p)
            acc[1] += p.stat().st_size
    items = [Item("vectors", role, "files", alloc) for role, (alloc, _) in sorted(sizes.items())]
    apparent = sum(s[1] for s in sizes.values())
    segments = len(list((vectors / "segments").iterdir())) if (vectors / "segments").is_dir() else 0
    notes = [f"Qdrant Edge: {segments} segment(s); apparent file size {apparent:,} B"]
    return items, notes


def measure_embedded(store: Path) -> Report:
    db_path = store / DB
    if not db_path.is_file():
        raise SystemExit(f"{store} holds no {DB}: not an embedded graphmem store")
    items, counts, notes = sqlite_items(db_path)
    if (store / "vectors").is_dir():
        v_items, v_notes = edge_items(store / "vectors")
        items += v_items
        notes += v_notes
    return Report(
        str(store),
        "sqlite + qdrant-edge",
        counts.get("memories", 0),
        counts.get("memory_relations", 0),
        items,
        notes,
    )


# ---------------------------------------------------------------- MariaDB / MySQL


def _mysql_connect(url: str) -> Any:
    import pymysql

    from graphmem.stores.records.mysql import parse_mysql_url

    return pymysql.connect(charset="utf8mb4", autocommit=True, **parse_mysql_url(url))


def measure_mysql(
    url: str, analyze: bool, datadir: Path | None, estimated_rows: bool = False
) -> Report:
    from graphmem.stores.records.mysql import parse_mysql_url

    schema = parse_mysql_url(url)["database"]
    con = _mysql_connect(url)
    try:
        with con.cursor() as cur:
            cur.execute(
                "SELECT TABLE_NAME, TABLE_ROWS, DATA_LENGTH, INDEX_LENGTH, DATA_FREE"
                " FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s ORDER BY TABLE_NAME",
                (schema,),
            )
            tables = cur.fetchall()
            if analyze:
                for name, *_rest in tables:
                    cur.execute(f"ANALYZE TABLE `{name}`")
                    cur.fetchall()
                cur.execute(
                    "SELECT TABLE_NAME, TABLE_ROWS, DATA_LENGTH, INDEX_LENGTH, DATA_FREE"
                    " FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s"
                    " ORDER BY TABLE_NAME",
                    (schema,),
                )
                tables = cur.fetchall()
            counts: dict[str, int] = {}
            for name, est, *_ in tables:
                if name in COUNTED:
                    if estimated_rows:
                        counts[name] = int(est or 0)
                    else:
                        cur.execute(f"SELECT COUNT(*) FROM `{name}`")
                        counts[name] = int(cur.fetchone()[0])
    finally:
        con.close()
    items: list[Item] = []
    for name, est, data, index, _free in tables:
        part = TABLE_PART.get(name, "other")
        rows = counts.get(name, int(est or 0))
        items.append(Item(part, name, "rows (clustered index)", int(data or 0), rows))
        items.append(Item(part, name, "secondary indexes", int(index or 0)))
    notes = [
        "InnoDB: DATA_LENGTH = the clustered index (the rows), INDEX_LENGTH = secondary indexes;"
        " the FULLTEXT index's auxiliary tables are not included"
        + (" (see the data directory rows)" if datadir else " (pass --datadir to count them)")
    ]
    if datadir is not None:
        files = sorted((datadir / schema).glob("*.ibd"))
        if not files:
            notes.append(f"no .ibd files under {datadir / schema}")
        fts_total = sum(_allocated(f) for f in files if f.name.startswith("FTS_"))
        if fts_total:
            # memories.search_text holds the schema's only FULLTEXT index
            items.append(Item("keyword", "memories FULLTEXT", "auxiliary tables (.ibd)", fts_total))
        for f in files:
            if not f.name.startswith("FTS_"):
                notes.append(f"on disk: {f.name} {_allocated(f):,} B")
        notes.append(
            f"on disk: {sum(_allocated(f) for f in files):,} B in {len(files)} .ibd files"
            f" ({sum(1 for f in files if f.name.startswith('FTS_'))} FULLTEXT auxiliary)"
        )
    return Report(
        url.split("@")[-1],
        "mysql",
        counts.get("memories", 0),
        counts.get("memory_relations", 0),
        items,
        notes,
    )


def _columns(con: sqlite3.Connection, table: str) -> list[str]:
    return [r[1] for r in con.execute(f"PRAGMA table_info({table})")]


def copy_to_mysql(store: Path, url: str, limit: int | None, batch: int = 1000) -> dict[str, int]:
    """The first `limit` memories of an embedded store, with what hangs off them, into MySQL."""
    from graphmem.stores.records.mysql import MySQLRecords

    MySQLRecords(url).close()  # creates the schema
    src = sqlite3.connect(f"file:{store / DB}?mode=ro", uri=True)
    dst = _mysql_connect(url)
    try:
        with dst.cursor() as cur:
            cur.execute("SELECT COUNT(*) FROM memories")
            if cur.fetchone()[0]:
                raise SystemExit(
                    f"{url.split('@')[-1]} already holds memories: copy into an empty one"
                )
        src.execute("CREATE TEMP TABLE keep (id TEXT PRIMARY KEY)")
        src.execute(
            "INSERT INTO temp.keep SELECT id FROM memories ORDER BY doc_id LIMIT ?",
            (-1 if limit is None else limit,),
        )
        selects = {
            "memories": "SELECT {cols} FROM memories WHERE id IN (SELECT id FROM temp.keep)"
            " ORDER BY doc_id",
            "memory_relations": "SELECT {cols} FROM memory_relations"
            " WHERE source_memory_id IN (SELECT id FROM temp.keep)"
            " AND target_memory_id IN (SELECT id FROM temp.keep) ORDER BY id",
            "entities": "SELECT {cols} FROM entities WHERE id IN (SELECT entity_id FROM"
            " memory_entities WHERE memory_id IN (SELECT id FROM temp.keep)) ORDER BY id",
            "memory_entities": "SELECT {cols} FROM memory_entities"
            " WHERE memory_id IN (SELECT id FROM temp.keep)",
            "store_meta": "SELECT {cols} FROM store_meta",
        }
        copied: dict[str, int] = {}
        for table, select in selects.items():
            with dst.cursor() as cur:
                cur.execute(
                    "SELECT COLUMN_NAME FROM information_schema.COLUMNS"
                    " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = %s",
                    (table,),
                )
                theirs = {r[0] for r in cur.fetchall()}
            cols = [c for c in _columns(src, table) if c in theirs]
            names = ", ".join(f"`{c}`" for c in cols)
            verb = "REPLACE" if table == "store_meta" else "INSERT"
            insert = f"{verb} INTO `{table}` ({names}) VALUES ({', '.join(['%s'] * len(cols))})"
            rows = src.execute(select.format(cols=", ".join(cols)))
            n = 0
            while chunk := rows.fetchmany(batch):
                with dst.cursor() as cur:
                    cur.executemany(insert, chunk)
                n += len(chunk)
            copied[table] = n
    finally:
        src.close()
        dst.close()
    records = MySQLRecords(url)
    try:
        records.rebuild_keyword_stats()
        copied["keyword_df"] = int(records._fetch("SELECT COUNT(*) FROM keyword_df")[0][0])
    finally:
        records.close()
    return copied


# ---------------------------------------------------------------- Redis


REDIS_KINDS = {"sc": "search cache", "wm": "working memory", "rl": "rate limits"}


def measure_redis(url: str, prefix: str = "graphmem:") -> Report:
    """Every key under `prefix`, by kind (the next segment: sc, wm, rl), with MEMORY USAGE."""
    import redis

    client = redis.Redis.from_url(url)
    sizes: dict[str, list[int]] = {}
    try:
        for key in client.scan_iter(match=f"{prefix}*", count=1000):
            rest = key.decode("utf-8", "replace")[len(prefix) :]
            kind = rest.split(":", 1)[0] if ":" in rest else "other"
            usage = client.memory_usage(key, samples=0) or 0
            acc = sizes.setdefault(kind, [0, 0])
            acc[0] += int(usage)
            acc[1] += 1
    finally:
        client.close()
    items = [
        Item("redis", f"{prefix}{kind}:*", REDIS_KINDS.get(kind, kind), nbytes, keys)
        for kind, (nbytes, keys) in sorted(sizes.items())
    ]
    notes = ["Redis: MEMORY USAGE of each key (value, key and overhead; SAMPLES 0 = exact)"]
    return Report(url.split("@")[-1], "redis", 0, 0, items, notes)


# ---------------------------------------------------------------- output


def render(report: Report) -> str:
    """A Markdown table; bytes per memory only where the store holds memories (not Redis)."""
    mem = report.memories

    def per_memory(n: int) -> str:
        return f"{n / mem:,.0f}" if mem else "–"

    lines = [f"{report.engine}: {report.source}"]
    if report.engine != "redis":
        lines.append(
            f"{report.memories:,} memories, {report.relations:,} relations"
            + (f" ({report.relations / mem:.1f} per memory)" if mem else "")
        )
    lines += [
        "",
        "| part | object | kind | rows / keys | bytes | bytes per memory | bytes per row / key |",
        "|---|---|---|---|---|---|---|",
    ]
    for part in PARTS:
        items = [i for i in report.items if i.part == part]
        if not items:
            continue
        for i in items:
            per_row = f"{i.bytes / i.rows:,.0f}" if i.rows else ""
            rows = f"{i.rows:,}" if i.rows is not None else ""
            lines.append(
                f"| {part} | {i.name} | {i.kind} | {rows} | {i.bytes:,}"
                f" | {per_memory(i.bytes)} | {per_row} |"
            )
        total = sum(i.bytes for i in items)
        lines.append(f"| **{part}** | | total | | {total:,} | **{per_memory(total)}** | |")
    total = sum(i.bytes for i in report.items)
    lines.append(f"| **all** | | total | | {total:,} | **{per_memory(total)}** | |")
    lines.append("")
    lines += report.notes
    return "\n".join(lines)


def main(argv: Iterable[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "target",
        help="an embedded store directory, mysql://USER:PW@HOST:PORT/DB or redis://HOST:PORT/N",
    )
    p.add_argument("--analyze", action="store_true", help="MySQL: ANALYZE TABLE first")
    p.add_argument("--datadir", type=Path, help="MySQL: the server's data directory (.ibd files)")
    p.add_argument(
        "--estimated-rows",
        action="store_true",
        help="MySQL: use information_schema's row estimates instead of COUNT(*) (large tables)",
    )
    p.add_argument("--copy-from", type=Path, metavar="STORE", help="MySQL: copy this store in")
    p.add_argument("--copy-memories", type=int, default=None, metavar="N")
    p.add_argument("--redis-prefix", default="graphmem:", help="Redis: the keys' common prefix")
    p.add_argument("--json", type=Path, default=None, metavar="FILE")
    args = p.parse_args(list(argv) if argv is not None else None)
    if args.target.startswith(("redis://", "rediss://")):
        report = measure_redis(args.target, args.redis_prefix)
    elif args.target.startswith(("mysql://", "mysql+pymysql://")):
        if args.copy_from is not None:
            copied = copy_to_mysql(args.copy_from, args.target, args.copy_memories)
            print("copied: " + ", ".join(f"{t} {n:,}" for t, n in copied.items()), flush=True)
        report = measure_mysql(args.target, args.analyze, args.datadir, args.estimated_rows)
    else:
        if args.copy_from is not None:
            p.error("--copy-from needs a mysql:// target")
        report = measure_embedded(Path(args.target))
    print(render(report))
    if args.json is not None:
        args.json.write_text(json.dumps(asdict(report), indent=2) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
