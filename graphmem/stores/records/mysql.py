"""MySQL 8 / MariaDB records adapter (pymysql), for production deployments."""

from __future__ import annotations

import contextlib
import re
from importlib import resources
from typing import Any
from urllib.parse import unquote, urlparse

import pymysql

from graphmem.domain.filters import Scalar
from graphmem.errors import StoreUnavailableError
from graphmem.stores.records.locks import MySQLLocks
from graphmem.stores.records.migrate import mysql_add_columns
from graphmem.stores.records.rows import RecordQuery
from graphmem.stores.records.sql_store import SQLRecords


def schema_sql() -> str:
    return resources.files("graphmem.stores.records").joinpath("sql/mysql.sql").read_text("utf-8")


def parse_mysql_url(url: str) -> dict[str, Any]:
    """mysql://user:password@host:port/database -> pymysql.connect() keyword arguments."""
    u = urlparse(url)
    if u.scheme not in ("mysql", "mysql+pymysql") or not u.path.strip("/"):
        raise ValueError("mysql_url must look like mysql://user:password@host:3306/database")
    return {
        "host": u.hostname or "127.0.0.1",
        "port": u.port or 3306,
        "user": unquote(u.username or "root"),
        "password": unquote(u.password or ""),
        "database": u.path.strip("/"),
    }


def _statements(sql: str) -> list[str]:
    sql = re.sub(r"^\s*--.*$", "", sql, flags=re.MULTILINE)
    return [s.strip() for s in sql.split(";") if s.strip()]


class MySQLRecords(SQLRecords):
    backend = "mysql"
    ph = "%s"
    _skip_locked = " FOR UPDATE SKIP LOCKED"

    def __init__(self, url: str) -> None:
        super().__init__()
        self._kwargs = parse_mysql_url(url)
        self._db: pymysql.connections.Connection | None = None
        self.locks = MySQLLocks(self._kwargs)
        # Replicas starting together would race each other's ALTER TABLEs: one at a time.
        with self.locks.hold("schema", 300):
            with self._tx() as cur:
                for stmt in _statements(schema_sql()):
                    cur.execute(stmt)
                mysql_add_columns(cur)
            self._ensure_keyword_stats()

    def _meta_equals(self, column: str, key: str, value: Scalar) -> tuple[str, list[Any]]:
        # MySQL and MariaDB share JSON_TYPE/JSON_UNQUOTE; MariaDB has no JSON type to CAST to,
        # so values are compared as unquoted text (binary collation) or as numbers.
        path = f'$."{key}"'
        kind = f"JSON_TYPE(JSON_EXTRACT({column}, ?))"
        text = f"JSON_UNQUOTE(JSON_EXTRACT({column}, ?))"
        if isinstance(value, bool):
            return f"({kind} = 'BOOLEAN' AND {text} = ?)", [path, path, str(value).lower()]
        if isinstance(value, str):
            return (
                f"({kind} = 'STRING' AND {text} COLLATE utf8mb4_bin = ?)",
                [path, path, value],
            )
        return (
            f"({kind} IN ('INTEGER', 'UNSIGNED INTEGER', 'DOUBLE', 'DECIMAL')"
            f" AND JSON_EXTRACT({column}, ?) + 0 = ?)",
            [path, path, value],
        )

    def _conn(self) -> pymysql.connections.Connection:
        if self._db is not None and self._db.open:
            return self._db
        try:
            self._db = pymysql.connect(
                charset="utf8mb4", autocommit=False, connect_timeout=5, **self._kwargs
            )
        except pymysql.MySQLError as e:
            self._db = None
            raise StoreUnavailableError(f"records store (MySQL) unreachable: {e}") from e
        with self._db.cursor() as cur:
            cur.execute("SET time_zone = '+00:00'")
        return self._db

    def _on_error(self, exc: BaseException) -> None:
        """A lost connection is dropped so the next call reconnects instead of failing forever."""
        if isinstance(exc, pymysql.OperationalError) and self._db is not None:
            with contextlib.suppress(pymysql.MySQLError):
                self._db.close()
            self._db = None

    def _q(self, sql: str) -> str:
        return sql.replace("?", "%s")

    _df_upsert = (
        "INSERT INTO keyword_df (user_id, term, df) VALUES (?, ?, ?)"
        " ON DUPLICATE KEY UPDATE df = df + VALUES(df)"
    )

    def _candidates(
        self, q: RecordQuery, terms: list[str], limit: int, ranked: bool = True
    ) -> list[tuple[str, str]]:
        """The user's memories matching any of `terms`, best by relevance first when `ranked`."""
        where, params = self._where(q)
        text = " ".join(terms)
        order = " ORDER BY MATCH(search_text) AGAINST (? IN NATURAL LANGUAGE MODE) DESC"
        rows = self._fetch(
            "SELECT id, search_text FROM memories"
            " WHERE MATCH(search_text) AGAINST (? IN NATURAL LANGUAGE MODE)"
            f" AND {where}{order if ranked else ''} LIMIT {int(limit)}",
            (text, *params, *((text,) if ranked else ())),
        )
        return [(r[0], r[1]) for r in rows]

    def close(self) -> None:
        self.locks.close()
        with self._lock:
            if self._db is not None:
                try:
                    self._db.close()
                finally:
                    self._db = None

    def health(self) -> dict[str, object]:
        try:
            version = self._fetch("SELECT VERSION()")[0][0]
            return {
                "backend": self.backend,
                "ok": True,
                "version": version,
                "host": f"{self._kwargs['host']}:{self._kwargs['port']}",
            }
        except Exception as e:  # noqa: BLE001 - health reports, never raises
            return {"backend": self.backend, "ok": False, "error": str(e)}
