"""Columns added after a database was first created, added in place when a store opens.

`CREATE TABLE IF NOT EXISTS` leaves an existing table as it was, so a database created by an
older graphmem lacks the newer columns. Each adapter calls its function here on open; adding a
column that is there already is skipped, so opening is idempotent.
"""

from __future__ import annotations

from typing import Any

# table -> [(column, MySQL declaration, SQLite declaration)]
ADDED_COLUMNS: dict[str, list[tuple[str, str, str]]] = {
    "memories": [
        ("valid_from", "DATETIME(6) NULL", "TEXT NULL"),
        ("valid_to", "DATETIME(6) NULL", "TEXT NULL"),
        ("slot", "VARCHAR(191) NULL", "TEXT NULL"),
        ("agent_id", "VARCHAR(128) NULL", "TEXT NULL"),
        ("run_id", "VARCHAR(128) NULL", "TEXT NULL"),
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
