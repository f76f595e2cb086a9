"""Columns added after a database was first created, added in place when a store opens.

`CREATE TABLE IF NOT EXISTS` leaves an existing table as it was, so a database created by an
older graphmem lacks the newer columns. Each adapter calls its function here on open; adding a
column that is there already is skipped, so opening is idempotent.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any

# table -> [(column, MySQL declaration, SQLite declaration)]
ADDED_COLUMNS: dict[str, list[tuple[str, str, str]]] = {
    "memories": [
        ("valid_from", "DATETIME(6) NULL", "TEXT NULL"),
        ("valid_to", "DATETIME(6) NULL", "TEXT NULL"),
        ("slot", "VARCHAR(191) NULL", "TEXT NULL"),
        ("agent_id", "VARCHAR(128) NULL", "TEXT NULL"),
        ("run_id", "VARCHAR(128) NULL", "TEXT NULL"),
        ("kind", "VARCHAR(16) NOT NULL DEFAULT 'memory'", "TEXT NOT NULL DEFAULT 'memory'"),
    ],
    "memory_relations": [
        ("valid_from", "DATETIME(6) NULL", "TEXT NULL"),
        ("valid_to", "DATETIME(6) NULL", "TEXT NULL"),
    ],
}
# (table, index name, columns) created after the columns above exist. The session index orders
# a session's memories by (created_at, doc_id): InnoDB and SQLite both end a secondary index
# with the primary key, so "the memory before this one" is one index step, not a sort.
ADDED_INDEXES = [
    ("memories", "ix_memories_user_slot", "user_id, slot"),
    ("memories", "ix_memories_user_session_created", "user_id, session_id, created_at"),
    ("memories", "ix_memories_user_agent_created", "user_id, agent_id, created_at"),
    # the memory list sorted by access count or by decay (listing.SORTS)
    ("memories", "ix_memories_user_accessed", "user_id, access_count"),
    ("memories", "ix_memories_user_decay", "user_id, decay_score"),
    # graph expansion from the records (graph_rows.relation_rows)
    (
        "memory_relations",
        "ix_relations_source_rank",
        "source_memory_id, strength DESC, target_memory_id, relation_type",
    ),
    (
        "memory_relations",
        "ix_relations_target_rank",
        "target_memory_id, strength DESC, source_memory_id, relation_type",
    ),
]


def sqlite_add_columns(db: Any) -> None:
    """Run before the schema script, whose CREATE INDEX statements may name new columns."""
    for table, cols in ADDED_COLUMNS.items():
        have = {r[1] for r in db.execute(f"PRAGMA table_info({table})")}
        if not have:
            continue  # a fresh database: the schema script creates the table whole
        for name, _mysql, decl in cols:
            if name not in have:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {decl}")
    db.commit()


def mysql_add_columns(cur: Any) -> None:
    """Run after the schema statements (the tables exist by then)."""
    for table, cols in ADDED_COLUMNS.items():
        cur.execute(
            "SELECT column_name FROM information_schema.columns"
            " WHERE table_schema = DATABASE() AND table_name = %s",
            (table,),
        )
        have = {r[0].lower() for r in cur.fetchall()}
        for name, decl, _sqlite in cols:
            if name not in have:
                cur.execute(f"ALTER TABLE {table} ADD COLUMN {name} {decl}")
    for table, index, columns in ADDED_INDEXES:
        cur.execute(
            "SELECT COUNT(*) FROM information_schema.statistics"
            " WHERE table_schema = DATABASE() AND table_name = %s AND index_name = %s",
            (table, index),
        )
        if not cur.fetchone()[0]:
            cur.execute(f"ALTER TABLE {table} ADD KEY {index} ({columns})")


# The full-text index before its postings were scoped to the user: external content on
# memories, rowid = doc_id, every tenant's postings interleaved in one doclist per term.
_UNSCOPED_FTS = "content='memories'"
_OLD_FTS_TRIGGERS = ("memories_fts_ai", "memories_fts_ad", "memories_fts_au")


def _schema_part(schema: str, part: str) -> list[str]:
    """The statements between the schema's `-- <part>:begin` and `-- <part>:end` lines."""
    lines = schema.splitlines()
    begin = next(i for i, ln in enumerate(lines) if ln.startswith(f"-- {part}:begin"))
    end = next(i for i, ln in enumerate(lines) if ln.startswith(f"-- {part}:end"))
    lines = [ln for ln in lines[begin + 1 : end] if not ln.lstrip().startswith("--")]
    out: list[str] = []
    pending = ""
    for line in lines:
        pending += line + "\n"
        if sqlite3.complete_statement(pending):
            out.append(pending.strip())
            pending = ""
    return out


def sqlite_scope_keyword_index(db: Any, schema: str) -> float | None:
    """Replace a full-text index whose postings are not scoped to the user, before the schema
    script runs; returns the seconds it took, or None when there was nothing to do.

    The old table is dropped, the new one created and filled from memories in one transaction,
    so a crash leaves either the old index or the complete new one (a store whose memories lost
    their index altogether, which no release leaves behind, is indexed the same way).
    """
    have = {
        name: sql
        for name, sql in db.execute(
            "SELECT name, sql FROM sqlite_master WHERE name IN ('memories', 'memories_fts')"
        )
    }
    if "memories" not in have:
        return None  # a fresh database: the schema script creates everything
    fts = have.get("memories_fts")
    if fts is not None and _UNSCOPED_FTS not in fts:
        return None
    return _at_once(
        db,
        [
            *(f"DROP TRIGGER IF EXISTS {trigger}" for trigger in _OLD_FTS_TRIGGERS),
            "DROP TABLE IF EXISTS memories_fts",
            *_schema_part(schema, "fts"),
            "INSERT OR IGNORE INTO memories_fts_owner (user_id)"
            " SELECT DISTINCT user_id FROM memories ORDER BY user_id",
            "INSERT INTO memories_fts (rowid, search_text)"
            " SELECT (o.num << 36) | m.doc_id, m.search_text"
            " FROM memories m JOIN memories_fts_owner o ON o.user_id = m.user_id"
            " ORDER BY o.num, m.doc_id",
        ],
    )


def _at_once(db: Any, statements: list[str]) -> float:
    """Run the statements in one write transaction (all or none); returns the seconds taken."""
    t0 = time.perf_counter()
    db.commit()
    db.execute("BEGIN IMMEDIATE")
    try:
        for stmt in statements:
            db.execute(stmt)
        db.commit()
    except BaseException:
        db.rollback()
        raise
    return time.perf_counter() - t0


GRAPH_TABLES = ("memory_relations", "entities", "memory_entities")


def _derive_table(
    db: Any, schema: str, part: str, source: str, table: str, fills: list[str]
) -> float | None:
    """Give a store made before `table` (derived from `source`) that table, its triggers and
    its first rows, before the schema script runs; returns the seconds it took, or None when
    there was nothing to do (a fresh database, whose schema script creates it, or done already).

    All of it goes in in one transaction: a crash leaves no table (derived at the next open),
    never an empty table over rows it should describe."""
    names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if source not in names or table in names:
        return None
    return _at_once(db, [*_schema_part(schema, part), *fills])


def sqlite_count_graph_rows(db: Any, schema: str) -> float | None:
    """Give a store made before `graph_row_counts` its counts (see _derive_table)."""
    fills = [
        "INSERT INTO graph_row_counts (user_id, tbl, n)"
        f" SELECT user_id, '{table}', COUNT(*) FROM {table} GROUP BY user_id"
        for table in GRAPH_TABLES
    ]
    return _derive_table(db, schema, "counts", "memory_relations", "graph_row_counts", fills)


def sqlite_index_metadata(db: Any, schema: str) -> float | None:
    """Give a store made before `memory_meta` its rows (see _derive_table; about half a second
    at 100,000 memories)."""
    # the insert trigger's SELECT, over every memory
    fill = (
        "INSERT OR IGNORE INTO memory_meta (user_id, meta_key, kind, meta_value, doc_id)"
        " SELECT m.user_id, j.key, CASE j.type WHEN 'text' THEN 's' WHEN 'integer' THEN 'n'"
        " WHEN 'real' THEN 'n' ELSE 'b' END, j.atom, m.doc_id FROM memories m,"
        " json_each(CASE WHEN json_valid(m.metadata) AND json_type(m.metadata) = 'object'"
        " THEN m.metadata END) j WHERE j.type IN ('text', 'integer', 'real', 'true', 'false')"
    )
    return _derive_table(db, schema, "meta", "memories", "memory_meta", [fill])
