"""SQLite records adapter: the embedded default, one file under the data directory."""

from __future__ import annotations

import itertools
import json
import logging
import math
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any

from graphmem.domain.filters import Scalar
from graphmem.domain.model import Memory
from graphmem.stores.id_hash import IdHasher
from graphmem.stores.private_files import FILE_MODE, private_dir, tighten
from graphmem.stores.records.keyword import (
    LEVEL_TERMS,
    RANK_MAX,
    RANKED_WINDOW,
    at_least,
    idf,
)
from graphmem.stores.records.migrate import (
    GRAPH_TABLES,
    sqlite_add_columns,
    sqlite_count_graph_rows,
    sqlite_index_metadata,
    sqlite_scope_keyword_index,
)
from graphmem.stores.records.rows import GraphRows, RecordQuery, SecretRow, Supersession
from graphmem.stores.records.sql_store import SQLRecords
from graphmem.stores.records.sqlite_meta import SQLiteMetaListing
from graphmem.stores.records.sqlite_reads import ReadConnections

log = logging.getLogger("graphmem.records")

MMAP_BYTES = 1 << 30
# A level expected (terms independent) to hold this many times `cap` is not counted first.
SKIP_FACTOR = 3
# A memory's full-text rowid is (its user's number << USER_SHIFT) | doc_id (sql/sqlite.sql).
USER_SHIFT = 36
DOC_MASK = (1 << USER_SHIFT) - 1


def schema_sql() -> str:
    return resources.files("graphmem.stores.records").joinpath("sql/sqlite.sql").read_text("utf-8")


def expected_at_least(level: list[str], j: int, df: dict[str, int], n: int) -> float:
    """How many memories hold all of some j of `level`, if terms fell independently: the sum
    over the j-combinations of n x the product of their shares (0 without statistics)."""
    if n <= 0 or any(t not in df for t in level):
        return 0.0
    return sum(
        n * math.prod(df[t] / n for t in combo) for combo in itertools.combinations(level, j)
    )


class SQLiteRecords(SQLiteMetaListing, SQLRecords):
    backend = "sqlite"
    ph = "?"
    # the metadata values' rows (sqlite_meta) go with their memories by trigger; naming the
    # table here makes an erasure delete and check it by the user as well
    USER_TABLES = (*SQLRecords.USER_TABLES, "memory_meta")

    def __init__(self, path: Path | str, id_hasher: IdHasher | None = None) -> None:
        self.path = str(path)
        on_disk = self.path != ":memory:"
        if on_disk:
            folder = private_dir(Path(self.path).parent)
            id_hasher = id_hasher or IdHasher.for_dir(folder)
            # SQLite gives the -wal and -shm files the mode of the database file
            os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, FILE_MODE))
            for suffix in ("", "-wal", "-shm"):
                tighten(Path(self.path + suffix))
        super().__init__(id_hasher)
        # Writes go through one connection guarded by the base class lock; reads through a
        # connection per thread (sqlite_reads), which WAL lets run beside a write.
        self._writing = threading.local()
        self._readers = ReadConnections(self.path, _reader_setup) if on_disk else None
        self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        self._db.execute("PRAGMA synchronous = NORMAL")
        self._db.execute("PRAGMA foreign_keys = OFF")
        # Deleted rows are overwritten with zeros, in table, index and full-text pages alike:
        # an erased memory must not survive in a free page or a page's free space.
        self._db.execute("PRAGMA secure_delete = ON")
        # Reads through a memory map instead of a read() into the 2 MB page cache per page: the
        # keyword channel looks up hundreds of scattered memories rows per query (at 100k
        # memories the row join took 0.9 instead of 1.6 ms CPU). Mapped pages are the OS page
        # cache, shared and reclaimable, not process heap; beyond 1 GiB reads fall back to read().
        self._db.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
        sqlite_add_columns(self._db)
        took = sqlite_scope_keyword_index(self._db, schema_sql())
        if took is not None:
            log.warning("rebuilt the full-text index with per-user postings in %.1f s", took)
        took = sqlite_count_graph_rows(self._db, schema_sql())
        if took is not None:
            log.info("counted each user's graph rows once in %.1f s", took)
        took = sqlite_index_metadata(self._db, schema_sql())
        if took is not None:
            log.info("indexed the memories' metadata values once in %.1f s", took)
        self._db.executescript(schema_sql())
        # Without statistics SQLite assumes `user_id = ?` picks a handful of rows and scans a
        # whole tenant instead of using the id index (24 ms instead of 0.1 ms for 60 ids at
        # 100k memories). A sampled ANALYZE is cheap; it is refreshed as the table grows.
        self._db.execute("PRAGMA analysis_limit = 1000")
        self._analyzed_at = -1
        self._rows_since_analyze = 0
        self._maybe_analyze(force=True)
        self._ensure_keyword_stats()

    def _maybe_analyze(self, added: int = 0, force: bool = False) -> None:
        self._rows_since_analyze += added
        if force or self._rows_since_analyze > max(1000, self._analyzed_at // 2):
            with self._lock:
                self._db.execute("ANALYZE")
                self._analyzed_at = int(
                    self._db.execute("SELECT COUNT(*) FROM memories").fetchone()[0]
                )
                if self._readers is not None:
                    self._readers.stale()
            self._rows_since_analyze = 0

    def insert(
        self,
        memories: list[Memory],
        search_texts: list[str],
        graph: GraphRows | None = None,
        supersede: list[Supersession] | None = None,
        secrets: list[SecretRow] | None = None,
    ) -> None:
        super().insert(memories, search_texts, graph, supersede, secrets)
        self._maybe_analyze(len(memories))

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            raise sqlite3.ProgrammingError("records store is closed")
        return self._db

    @contextmanager
    def _tx(self) -> Iterator[Any]:
        """The base transaction, marking this thread as writing: its reads stay on the write
        connection until it ends, so they see its own uncommitted rows."""
        depth = getattr(self._writing, "depth", 0)
        self._writing.depth = depth + 1
        try:
            with super()._tx() as cur:
                yield cur
        finally:
            self._writing.depth = depth

    def _fetch(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        """A read on this thread's read connection: it neither waits for a running write
        transaction nor for another thread's read (a search's keyword channel beside its row
        fetch). Inside a write transaction, or on an in-memory database, the write connection."""
        if self._readers is None or self._writing.__dict__.get("depth", 0):
            return super()._fetch(sql, params)
        cur = self._read_conn().execute(sql, tuple(params))
        try:
            return cur.fetchall()
        finally:
            cur.close()

    def _read_conn(self) -> sqlite3.Connection:
        """The connection this thread's reads run on (the write connection without readers)."""
        if self._readers is None or self._db is None:
            return self._conn()
        return self._readers.get()

    def _dt_in(self, value: datetime | None) -> Any:
        dt = super()._dt_in(value)
        return dt.isoformat(sep=" ", timespec="microseconds") if dt else None

    _df_upsert = (
        "INSERT INTO keyword_df (user_id, term, df) VALUES (?, ?, ?)"
        " ON CONFLICT (user_id, term) DO UPDATE SET df = df + excluded.df"
    )

    def _candidates(
        self, q: RecordQuery, terms: list[str], limit: int, ranked: bool = True
    ) -> list[tuple[str, str]]:
        """The user's memories matching any of `terms`, best by bm25() first when `ranked`."""
        return self._fts_rows(q, " OR ".join(f'"{t}"' for t in terms), limit, ranked)

    def _user_range(self, user_id: str) -> tuple[int, int] | None:
        """The user's full-text rowids (the range their postings occupy), or None without any."""
        rows = self._fetch("SELECT num FROM memories_fts_owner WHERE user_id = ?", (user_id,))
        if not rows:
            return None
        lo = int(rows[0][0]) << USER_SHIFT
        return lo, lo | DOC_MASK

    def graph_counts(self, user_id: str | None = None) -> dict[str, int]:
        """The rows of each graph table (of one user, or of all), read from the counts the
        schema's triggers keep (`graph_row_counts`), not counted: a few rows read however
        large the graph, where COUNT(*) walked every index entry of the user's relations."""
        where, params = (" WHERE user_id = ?", (user_id,)) if user_id is not None else ("", ())
        got = dict(
            self._fetch(f"SELECT tbl, SUM(n) FROM graph_row_counts{where} GROUP BY tbl", params)
        )
        return {table: int(got.get(table) or 0) for table in GRAPH_TABLES}

    def _meta_equals(self, column: str, key: str, value: Scalar) -> tuple[str, list[Any]]:
        path = f'$."{key}"'
        if isinstance(value, bool):
            return f"json_type({column}, ?) = ?", [path, "true" if value else "false"]
        if isinstance(value, str):
            return (
                f"(json_type({column}, ?) = 'text' AND json_extract({column}, ?) = ?)",
                [path, path, value],
            )
        return (
            f"(json_type({column}, ?) IN ('integer', 'real') AND json_extract({column}, ?) = ?)",
            [path, path, value],
        )

    def _fts_rows(
        self, q: RecordQuery, expr: str, limit: int, ranked: bool
    ) -> list[tuple[str, str]]:
        span = self._user_range(q.user_id)
        if span is None:
            return []
        where, params = self._where(q, alias="m")
        if not ranked:
            # rowid order, no bm25(): the caller re-scores every row it gets
            return self._fetch(
                "SELECT m.id, m.search_text FROM memories_fts"
                f" JOIN memories m ON m.doc_id = memories_fts.rowid & {DOC_MASK}"
                " WHERE memories_fts MATCH ? AND memories_fts.rowid BETWEEN ? AND ?"
                f" AND {where} LIMIT {int(limit)}",
                (expr, *span, *params),
            )
        # Rank inside the full-text table first and join only the best rows: the join and the
        # filters then cost `limit` row lookups instead of one per match. The user's rows that
        # the filters drop can crowd that window; when they do, rank after the filters.
        rows = self._fetch(
            "SELECT m.id, m.search_text FROM (SELECT rowid AS r, bm25(memories_fts) AS s"
            " FROM memories_fts WHERE memories_fts MATCH ? AND rowid BETWEEN ? AND ?"
            f" ORDER BY s LIMIT {int(limit)}) f"
            f" JOIN memories m ON m.doc_id = f.r & {DOC_MASK} WHERE {where} ORDER BY f.s",
            (expr, *span, *params),
        )
        if (
            len(rows) < limit
            and self._fetch(
                "SELECT COUNT(*) FROM (SELECT 1 FROM memories_fts WHERE memories_fts MATCH ?"
                f" AND rowid BETWEEN ? AND ? LIMIT {int(limit)})",
                (expr, *span),
            )[0][0]
            >= limit
        ):
            rows = self._fetch(
                "SELECT m.id, m.search_text FROM memories_fts"
                f" JOIN memories m ON m.doc_id = memories_fts.rowid & {DOC_MASK}"
                " WHERE memories_fts MATCH ? AND memories_fts.rowid BETWEEN ? AND ?"
                f" AND {where} ORDER BY bm25(memories_fts) LIMIT {int(limit)}",
                (expr, *span, *params),
            )
        return [(r[0], r[1]) for r in rows]

    def _narrow_candidates(
        self,
        q: RecordQuery,
        terms: list[str],
        want: int,
        cap: int,
        df: dict[str, int] | None = None,
        n: int = 0,
    ) -> list[tuple[str, str]]:
        """Memories holding at least j of the rarest terms, j falling until `want` are found.

        A level's rowids come from the full-text table alone (no join, no bm25()), within the
        user's range; with too few the next level is tried without reading a memory. A level in
        range is joined to memories by those rowids (the expression is not evaluated twice)
        with the filters applied; its rows are re-scored anyway, so they are not ranked. A
        level with more than `cap` rows, or all terms' matches when no level holds `want`, is
        not ranked as a whole: bm25() over thousands of matches cost 20-40 ms at a million
        memories. `_fill_by_weight` takes its best-weighted term combinations instead.
        """
        span = self._user_range(q.user_id)
        if span is None:
            return []
        window = min(cap, RANKED_WINDOW * want)
        level = terms[:LEVEL_TERMS]
        df = df or {}
        above: list[int] = []
        for j in range(len(level), 1, -1):
            if expected_at_least(level, j, df, n) > SKIP_FACTOR * cap:
                # certainly over-full: counting the level to cap would only cost its walk
                return self._rows_by_ids(
                    q, self._fill_by_weight(span, level, j, above, window, df, n)
                )
            # commonest first: at_least names its first term once and repeats the later ones,
            # and repeating the short posting lists of rare terms is the cheaper way round
            # (about 20% less CPU per level at 100k)
            expr = at_least(level[::-1], j)
            ids = self._level_ids(expr, span, cap + 1)
            if len(ids) < want:
                above = ids
                continue
            if len(ids) > cap:
                return self._rows_by_ids(
                    q, self._fill_by_weight(span, level, j, above, window, df, n)
                )
            rows = self._rows_by_ids(q, ids)
            if len(rows) >= want:
                return rows
        return self._rows_by_ids(q, self._fill_by_weight(span, level, 1, above, window, df, n))

    def _level_ids(
        self, expr: str, span: tuple[int, int], limit: int, newest: bool = False
    ) -> list[int]:
        """The user's full-text rowids matching `expr`, at most `limit`, oldest or newest first."""
        rows = self._fetch(
            "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?"
            f" AND rowid BETWEEN ? AND ? ORDER BY rowid{' DESC' if newest else ''}"
            f" LIMIT {int(limit)}",
            (expr, *span),
        )
        return [r[0] for r in rows]

    def _rows_by_ids(self, q: RecordQuery, ids: list[int]) -> list[tuple[str, str]]:
        """(id, search_text) of these full-text rowids that pass the query's filters."""
        where, params = self._where(q, alias="m")
        rows = self._fetch(
            "SELECT m.id, m.search_text FROM memories m"
            f" WHERE m.doc_id IN (SELECT value FROM json_each(?)) AND {where}",
            (json.dumps([i & DOC_MASK for i in ids]), *params),
        )
        return [(r[0], r[1]) for r in rows]

    def _fill_by_weight(
        self,
        span: tuple[int, int],
        level: list[str],
        j: int,
        above: list[int],
        window: int,
        df: dict[str, int],
        n: int,
    ) -> list[int]:
        """Up to `window` rowids: `above` (every memory holding more than j of `level`), then
        the memories holding each j of them, the combinations of highest summed idf first.

        A memory's BM25 score is mostly the idf of the terms it holds, so the combinations of
        rare terms come first; each is a conjunction, which the engine answers by skipping
        through the posting lists instead of reading them whole, and no query reads more than
        the room left in the window or RANK_MAX rows. A combination that overflows the window
        is ranked by bm25() (term frequency and length decide within it) when its rarest term
        bounds it to RANK_MAX matches; a larger one gives its newest memories.
        """
        pool = dict.fromkeys(above)
        big = RANK_MAX + 1
        combos = sorted(
            itertools.combinations(level, j),
            key=lambda c: (-sum(idf(df.get(t, big), max(n, 1)) for t in c), c),
        )
        for combo in combos:
            room = window - len(pool)
            if room <= 0:
                break
            expr = " AND ".join(f'"{t}"' for t in combo)
            if min(df.get(t, big) for t in combo) <= RANK_MAX:
                ids = self._level_ids(expr, span, RANK_MAX)
                new = [i for i in ids if i not in pool]
                if len(new) > room:
                    ranked = self._fetch(
                        "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?"
                        " AND rowid BETWEEN ? AND ? ORDER BY bm25(memories_fts)"
                        f" LIMIT {len(pool) + room}",
                        (expr, *span),
                    )
                    new = [r[0] for r in ranked if r[0] not in pool]
            else:
                # at most len(pool) of these are in the pool already, so room new ones remain
                ids = self._level_ids(expr, span, len(pool) + room, newest=True)
                new = [i for i in ids if i not in pool]
            pool.update(dict.fromkeys(new[:room]))
        return list(pool)

    def scrub(self) -> None:
        """Leave nothing deleted readable in the database's files.

        secure_delete zeroes most of what a delete frees, but not all: a page rebuilt while
        rebalancing can keep an old cell in its unused middle, and the full-text index deletes
        by appending tombstones, its terms staying in older segments until they are merged. So
        'optimize' merges the index, VACUUM rewrites every page from the live rows, and the
        checkpoint copies the WAL (whose old frames hold rows as they were) into the database
        and truncates it.
        """
        with self._lock:
            db = self._conn()
            db.execute("INSERT INTO memories_fts (memories_fts) VALUES ('optimize')")
            db.commit()
            db.execute("VACUUM")
            busy = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
            if busy:  # another process is reading: the files check of the erasure reports it
                log.warning("WAL checkpoint blocked by a reader; erased rows remain in the WAL")

    def close(self) -> None:
        if self._readers is not None:
            self._readers.close()
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


def _reader_setup(conn: sqlite3.Connection) -> None:
    """A read connection reads like the write connection: through the memory map."""
    conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
