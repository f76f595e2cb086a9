"""SQLite records adapter: the embedded default, one file under the data directory."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any

from graphmem.stores.records import RecordQuery
from graphmem.stores.records_sql import SQLRecords


def schema_sql() -> str:
    return resources.files("graphmem.stores").joinpath("sql/sqlite.sql").read_text("utf-8")


class SQLiteRecords(SQLRecords):
    backend = "sqlite"
    ph = "?"

    def __init__(self, path: Path | str) -> None:
        super().__init__()
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        # One connection guarded by the base class lock; WAL lets other processes read meanwhile.
        self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        self._db.execute("PRAGMA synchronous = NORMAL")
        self._db.execute("PRAGMA foreign_keys = OFF")
        self._db.executescript(schema_sql())
        self._ensure_keyword_stats()

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            raise sqlite3.ProgrammingError("records store is closed")
        return self._db

    def _dt_in(self, value: datetime | None) -> Any:
        dt = super()._dt_in(value)
        return dt.isoformat(sep=" ", timespec="microseconds") if dt else None

    _df_upsert = (
        "INSERT INTO keyword_df (user_id, term, df) VALUES (?, ?, ?)"
        " ON CONFLICT (user_id, term) DO UPDATE SET df = df + excluded.df"
    )

    def _candidates(self, q: RecordQuery, terms: list[str], limit: int) -> list[tuple[str, str]]:
        where, params = self._where(q, alias="m")
        rows = self._fetch(
            "SELECT m.id, m.search_text FROM memories_fts"
            " JOIN memories m ON m.doc_id = memories_fts.rowid"
            f" WHERE memories_fts MATCH ? AND {where} ORDER BY bm25(memories_fts)"
            f" LIMIT {int(limit)}",
            (" OR ".join(f'"{t}"' for t in terms), *params),
        )
        return [(r[0], r[1]) for r in rows]

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None  # type: ignore[assignment]

    def health(self) -> dict[str, object]:
        try:
            self._fetch("SELECT 1")
            return {
                "backend": self.backend,
                "ok": True,
                "path": self.path,
                "version": sqlite3.sqlite_version,
            }
        except Exception as e:  # noqa: BLE001 - health reports, never raises
            return {"backend": self.backend, "ok": False, "error": str(e)}
