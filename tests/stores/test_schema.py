"""init.sql (MySQL) and the SQLite schema must describe the same tables, columns and keys."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pymysql
import pytest

from graphmem.stores.records.mysql import MySQLRecords, parse_mysql_url, schema_sql
from graphmem.stores.records.sqlite import SQLiteRecords

ROOT = Path(__file__).resolve().parents[2]
# type families: what each side's declared type means for the data it holds
FAMILY = {
    "bigint": "int",
    "int": "int",
    "integer": "int",
    "char": "text",
    "varchar": "text",
    "text": "text",
    "mediumtext": "text",
    "json": "text",
    "datetime": "time",
    "double": "real",
    "real": "real",
}
TIME_COLUMNS = {
    "last_access_at", "expires_at", "created_at", "updated_at", "next_attempt_at", "valid_from",
    "valid_to",
}


def _family(column: str, decl: str) -> str:
    base = re.match(r"[a-z]+", decl.lower()).group(0)  # type: ignore[union-attr]
    fam = FAMILY[base]
    # SQLite keeps times as ISO-8601 TEXT; the name is what ties them to DATETIME columns.
    return "time" if fam == "text" and column in TIME_COLUMNS else fam


def mysql_static() -> dict[str, dict[str, tuple[str, bool]]]:
    tables: dict[str, dict[str, tuple[str, bool]]] = {}
    for name, body in re.findall(
        r"CREATE TABLE IF NOT EXISTS (\w+) \((.*?)\) ENGINE", schema_sql(), re.S
    ):
        cols = {}
        for line in body.splitlines():
            m = re.match(r"\s*(\w+)\s+([A-Z]+(?:\(\d+\))?)\s+(NOT NULL|NULL)", line)
            if m and m.group(1) not in ("PRIMARY", "UNIQUE", "KEY", "FULLTEXT"):
                cols[m.group(1)] = (_family(m.group(1), m.group(2)), m.group(3) == "NOT NULL")
        tables[name] = cols
    return tables


def sqlite_schema(path: Path) -> dict[str, dict[str, tuple[str, bool]]]:
    SQLiteRecords(path).close()
    db = sqlite3.connect(path)
    names = [
        r[0]
        for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'memories_fts%'"
            " AND name NOT LIKE 'sqlite_%'"  # SQLite's own statistics tables
            # derived from the graph tables by triggers, as the full-text tables are from
            # memories: the embedded store's way to count a user's graph rows
            " AND name <> 'graph_row_counts'"
            # derived from memories.metadata by triggers: the embedded store's index of the
            # metadata values a memory list filters by (graphmem.stores.records.sqlite_meta)
            " AND name <> 'memory_meta'"
            " AND sql NOT LIKE 'CREATE VIRTUAL%'"
        )
    ]
    out = {}
    for t in names:
        cols = {}
        for _, col, decl, notnull, _default, pk in db.execute(f"PRAGMA table_info({t})"):
            cols[col] = (_family(col, decl), bool(notnull) or bool(pk))
        out[t] = cols
    db.close()
    return out


def test_init_sql_is_the_packaged_mysql_schema() -> None:
    assert (ROOT / "init.sql").read_text("utf-8") == schema_sql()


def test_sqlite_schema_is_equivalent_to_init_sql(tmp_path: Path) -> None:
    mysql = mysql_static()
    sqlite = sqlite_schema(tmp_path / "s.sqlite3")
    assert (
        set(mysql)
        == set(sqlite)
        == {
            "memories",
            "memory_relations",
            "entities",
            "memory_entities",
            "audit_log",
            "outbox",
            "keyword_df",
            "store_meta",
            "library_readers",
            "vault_keys",
            "vault_secrets",
        }
    )
    for table in mysql:
        assert sqlite[table] == mysql[table], table
    seed = {
        "content",
        "summary",
        "memory_type",
        "embedding_id",
        "metadata",
        "confidence",
        "access_count",
        "last_access_at",
        "created_at",
        "updated_at",
        "decay_score",
        "source",
        "status",
        "expires_at",
        "session_id",
    }
    assert seed <= set(mysql["memories"])
    assert {"source_memory_id", "target_memory_id", "relation_type", "strength"} <= set(
        mysql["memory_relations"]
    )


@pytest.mark.services
def test_live_mariadb_schema_matches_sqlite(mysql_url: str, tmp_path: Path) -> None:
    MySQLRecords(mysql_url).close()
    kw = parse_mysql_url(mysql_url)
    db = pymysql.connect(**kw)
    with db.cursor() as cur:
        cur.execute(
            "SELECT table_name, column_name, column_type, is_nullable"
            " FROM information_schema.columns WHERE table_schema = %s",
            (kw["database"],),
        )
        live: dict[str, dict[str, tuple[str, bool]]] = {}
        for t, c, typ, nullable in cur.fetchall():
            # MariaDB reports JSON columns as longtext (JSON is an alias there)
            fam = "text" if typ.startswith("longtext") else _family(c, typ)
            live.setdefault(t, {})[c] = (fam, nullable == "NO")
        cur.execute(
            "SELECT index_name FROM information_schema.statistics WHERE table_schema = %s"
            " AND table_name = 'memories' AND index_type = 'FULLTEXT'",
            (kw["database"],),
        )
        assert cur.fetchall(), "memories.search_text needs its FULLTEXT index"
    db.close()
    assert live == sqlite_schema(tmp_path / "s.sqlite3")
