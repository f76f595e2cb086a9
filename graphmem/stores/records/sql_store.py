"""What the SQLite and MySQL records adapters share: the statements, written once.

`SQLRecords` is the records store (`RecordsStore`) in SQL: memory rows, outbox, audit and
erasure here, the graph tables, lifecycle and keyword channel from the mixins it stacks on
`SQLBase` (base <- graph_rows <- lifecycle, base <- keyword). The adapters below it only connect
and speak their dialect.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from graphmem.domain.model import Memory, utcnow
from graphmem.stores.records.base import MEMORY_COLUMNS, chunks, iso
from graphmem.stores.records.keyword import KeywordIndex
from graphmem.stores.records.libraries import LibraryReaders
from graphmem.stores.records.lifecycle import SQLLifecycle
from graphmem.stores.records.listing import SQLListing
from graphmem.stores.records.meta import StoreMeta
from graphmem.stores.records.outbox import SQLOutbox
from graphmem.stores.records.rows import (
    ERASE_MARK,
    GraphRows,
    RecordQuery,
    SecretRow,
    Supersession,
)
from graphmem.stores.records.vault_rows import VaultRows


class SQLRecords(
    SQLLifecycle, SQLListing, SQLOutbox, KeywordIndex, StoreMeta, LibraryReaders, VaultRows
):
    """The records store in SQL: memory rows, outbox, audit and erasure, over the mixins."""

    # ------------------------------------------------------------------ writes
    def insert(
        self,
        memories: list[Memory],
        search_texts: list[str],
        graph: GraphRows | None = None,
        supersede: list[Supersession] | None = None,
        secrets: list[SecretRow] | None = None,
    ) -> None:
        rows = [
            (
                m.id,
                m.user_id,
                m.session_id,
                m.content,
                m.summary,
                st,
                m.memory_type.value,
                m.source.value,
                m.confidence,
                m.embedding_id,
                json.dumps(m.metadata, ensure_ascii=False),
                m.access_count,
                self._dt_in(m.last_access_at),
                m.decay_score,
                m.status.value,
                self._dt_in(m.expires_at),
                self._dt_in(m.created_at),
                self._dt_in(m.updated_at),
                self._dt_in(m.valid_from),
                self._dt_in(m.valid_to),
                m.slot,
                m.agent_id,
                m.run_id,
                m.kind.value,
            )
            for m, st in zip(memories, search_texts, strict=True)
        ]
        with self._tx() as cur:
            cur.executemany(
                self._q(
                    "INSERT INTO memories (id, user_id, session_id, content, summary, search_text,"
                    " memory_type, source, confidence, embedding_id, metadata, access_count,"
                    " last_access_at, decay_score, status, expires_at, created_at, updated_at,"
                    " valid_from, valid_to, slot, agent_id, run_id, kind)"
                    f" VALUES ({self._marks(24)})"
                ),
                rows,
            )
            if graph is not None:
                self._write_graph(cur, graph)
            if supersede:
                self._supersede(cur, memories[0].user_id, supersede)
            for user_id in {m.user_id for m in memories}:
                self._df_change(
                    cur,
                    user_id,
                    [
                        st
                        for m, st in zip(memories, search_texts, strict=True)
                        if m.user_id == user_id
                    ],
                    +1,
                )
            self._vault_put(cur, secrets or [])
            self._outbox_rows(cur, [(m.user_id, m.id, "upsert") for m in memories])

    def update_content(
        self,
        memory: Memory,
        search_text: str,
        *,
        op: str = "upsert",
        secrets: list[SecretRow] | None = None,
    ) -> None:
        with self._tx() as cur:
            self._vault_put(cur, secrets or [])
            cur.execute(
                self._q("SELECT search_text FROM memories WHERE id = ? AND user_id = ?"),
                (memory.id, memory.user_id),
            )
            old = [r[0] for r in cur.fetchall()]
            self._df_change(cur, memory.user_id, old, -1)
            self._df_change(cur, memory.user_id, [search_text] if old else [], +1)
            cur.execute(
                self._q(
                    "UPDATE memories SET content = ?, summary = ?, search_text = ?,"
                    " memory_type = ?, metadata = ?, confidence = ?, status = ?, updated_at = ?,"
                    " valid_from = ?, valid_to = ?, slot = ? WHERE id = ? AND user_id = ?"
                ),
                (
                    memory.content,
                    memory.summary,
                    search_text,
                    memory.memory_type.value,
                    json.dumps(memory.metadata, ensure_ascii=False),
                    memory.confidence,
                    memory.status.value,
                    self._dt_in(memory.updated_at),
                    self._dt_in(memory.valid_from),
                    self._dt_in(memory.valid_to),
                    memory.slot,
                    memory.id,
                    memory.user_id,
                ),
            )
            self._outbox_rows(cur, [(memory.user_id, memory.id, op)])

    def delete(self, user_id: str, memory_ids: list[str]) -> list[str]:
        if not memory_ids:
            return []
        marks = self._marks(len(memory_ids))
        with self._tx() as cur:
            cur.execute(
                self._q(
                    f"SELECT id, search_text FROM memories WHERE user_id = ? AND id IN ({marks})"
                ),
                (user_id, *memory_ids),
            )
            rows = cur.fetchall()
            found = [r[0] for r in rows]
            if not found:
                return []
            self._df_change(cur, user_id, [r[1] for r in rows], -1)
            fm = self._marks(len(found))
            cur.execute(
                self._q(f"DELETE FROM memories WHERE user_id = ? AND id IN ({fm})"),
                (user_id, *found),
            )
            cur.execute(
                self._q(
                    "DELETE FROM memory_relations WHERE user_id = ? AND"
                    f" (source_memory_id IN ({fm}) OR target_memory_id IN ({fm}))"
                ),
                (user_id, *found, *found),
            )
            cur.execute(
                self._q(f"DELETE FROM memory_entities WHERE user_id = ? AND memory_id IN ({fm})"),
                (user_id, *found),
            )
            # Entity names come from the content: one no memory mentions any more goes too.
            cur.execute(
                self._q(
                    "DELETE FROM entities WHERE user_id = ? AND id NOT IN"
                    " (SELECT entity_id FROM memory_entities WHERE user_id = ?)"
                ),
                (user_id, user_id),
            )
            self._vault_drop(cur, user_id, found)
            # Pending upserts of a deleted memory must not resurrect its vector.
            cur.execute(
                self._q(f"DELETE FROM outbox WHERE user_id = ? AND memory_id IN ({fm})"),
                (user_id, *found),
            )
            self._outbox_rows(cur, [(user_id, m, "delete") for m in found])
            return found

    USER_TABLES: tuple[str, ...] = (
        "memories",
        "memory_relations",
        "entities",
        "memory_entities",
        "outbox",
        "keyword_df",
        "library_readers",
        # the vault: with the data key gone, any copy of a secret row is unreadable
        "vault_secrets",
        "vault_keys",
    )

    def erase_user(self, user_id: str, requested_by: str) -> dict[str, int]:
        """Delete every row about a user and queue an `erase_user` tombstone, in one transaction.

        Idempotent: a second call deletes nothing and queues one more (harmless) tombstone. The
        user's audit rows stay, as accountability requires, but under the keyed hash of their
        id instead of the id itself; the erase row joins them, with who asked, when, and the
        counts: never the content. The tombstone carries the raw id until it is applied.
        """
        counts: dict[str, int] = {}
        ref = self.id_hasher(user_id)
        with self._tx() as cur:
            for table in self.USER_TABLES:
                cur.execute(self._q(f"DELETE FROM {table} WHERE user_id = ?"), (user_id,))
                counts[table] = max(0, cur.rowcount)
            # A library being erased: its readers' grants go with it.
            cur.execute(self._q("DELETE FROM library_readers WHERE library = ?"), (user_id,))
            counts["library_readers"] += max(0, cur.rowcount)
            self._outbox_rows(cur, [(user_id, ERASE_MARK, "erase_user")])
            cur.execute(
                self._q("UPDATE audit_log SET user_id = ? WHERE user_id = ?"), (ref, user_id)
            )
            cur.execute(
                self._q(
                    "INSERT INTO audit_log (user_id, action, memory_ids, details, created_at)"
                    " VALUES (?, 'forget_user', NULL, ?, ?)"
                ),
                (
                    ref,
                    json.dumps({"requested_by": requested_by, "deleted": counts}),
                    self._dt_in(utcnow()),
                ),
            )
        return counts

    def scrub(self) -> None:
        """Make deleted rows unrecoverable from the store's own files, where the engine allows
        it from a client; a server keeps logs only its operator can purge (docs/lifecycle.md)."""

    def user_markers(self, user_id: str, sessions: int, contents: int, chars: int) -> set[str]:
        """Strings that identify the user in a file: the id, the longest session ids and the
        first `chars` characters of the longest memories. The erasure looks for them on disk."""
        rows = self._fetch(
            "SELECT session_id FROM memories WHERE user_id = ? AND session_id IS NOT NULL"
            f" GROUP BY session_id ORDER BY LENGTH(session_id) DESC LIMIT {int(sessions)}",
            (user_id,),
        )
        rows += self._fetch(
            f"SELECT SUBSTR(content, 1, {int(chars)}) FROM memories WHERE user_id = ?"
            f" ORDER BY LENGTH(content) DESC LIMIT {int(contents)}",
            (user_id,),
        )
        return {user_id, *(r[0].strip() for r in rows if r[0])}

    def shared_markers(self, markers: set[str]) -> set[str]:
        """The markers some remaining memory still holds as its session id or opening."""
        shared = set()
        for m in markers:
            # The opening matched literally: a marker's own % or _ must not act as a wildcard
            # (nor be dropped, which made "user_id ..." never count as shared).
            like = m.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%"
            q = "SELECT 1 FROM memories WHERE session_id = ? OR content LIKE ? ESCAPE '!' LIMIT 1"
            if self._fetch(q, (m, like)):
                shared.add(m)
        return shared

    def user_residue(self, user_id: str) -> dict[str, int]:
        """Rows still about this user in each table (erase-tombstones in the outbox excluded)."""
        out = {}
        for table in self.USER_TABLES:
            extra = " AND op <> 'erase_user'" if table == "outbox" else ""
            out[table] = int(
                self._fetch(f"SELECT COUNT(*) FROM {table} WHERE user_id = ?{extra}", (user_id,))[
                    0
                ][0]
            )
        out["library_readers"] += int(
            self._fetch("SELECT COUNT(*) FROM library_readers WHERE library = ?", (user_id,))[0][0]
        )
        return out

    def set_status(
        self, user_id: str, memory_ids: list[str], status: str, *, only_from: str | None = None
    ) -> list[str]:
        """Change the status of the user's memories (optionally only those now `only_from`)
        and queue their re-projection, in one transaction; returns the ids changed."""
        if not memory_ids:
            return []
        marks = self._marks(len(memory_ids))
        extra = " AND status = ?" if only_from else ""
        args = (user_id, *memory_ids, *((only_from,) if only_from else ()))
        with self._tx() as cur:
            cur.execute(
                self._q(f"SELECT id FROM memories WHERE user_id = ? AND id IN ({marks}){extra}"),
                args,
            )
            found = [r[0] for r in cur.fetchall()]
            if found:
                fm = self._marks(len(found))
                cur.execute(
                    self._q(
                        f"UPDATE memories SET status = ?, updated_at = ?"
                        f" WHERE user_id = ? AND id IN ({fm})"
                    ),
                    (status, self._dt_in(utcnow()), user_id, *found),
                )
                self._outbox_rows(cur, [(user_id, m, "upsert") for m in found])
        return found

    def record_access(self, counts: dict[tuple[str, str], int], at: datetime) -> None:
        if not counts:
            return
        when = self._dt_in(at)
        with self._tx() as cur:
            cur.executemany(
                self._q(
                    "UPDATE memories SET access_count = access_count + ?, last_access_at = ?"
                    " WHERE user_id = ? AND id = ?"
                ),
                [(n, when, u, m) for (u, m), n in counts.items()],
            )

    def audit(self, user_id: str, action: str, memory_ids: list[str], details: dict) -> None:
        with self._tx() as cur:
            cur.execute(
                self._q(
                    "INSERT INTO audit_log (user_id, action, memory_ids, details, created_at)"
                    " VALUES (?, ?, ?, ?, ?)"
                ),
                (
                    user_id,
                    action,
                    json.dumps(memory_ids),
                    json.dumps(details, ensure_ascii=False),
                    self._dt_in(utcnow()),
                ),
            )

    # ------------------------------------------------------------------ reads
    def get(self, user_id: str, memory_ids: list[str]) -> dict[str, Memory]:
        if not memory_ids:
            return {}
        out: dict[str, Memory] = {}
        for i in range(0, len(memory_ids), 500):
            chunk = memory_ids[i : i + 500]
            rows = self._fetch(  # looked up by id, user_id only checked (see _user_col)
                f"SELECT {MEMORY_COLUMNS} FROM memories WHERE {self._user_col} = ?"
                f" AND id IN ({self._marks(len(chunk))})",
                (user_id, *chunk),
            )
            for r in rows:
                m = self._row_to_memory(r)
                out[m.id] = m
        return out

    def slot_holders(self, user_id: str, slots: list[str]) -> dict[str, list[Memory]]:
        out: dict[str, list[Memory]] = {}
        for chunk in chunks(sorted(set(slots))):
            rows = self._fetch(
                f"SELECT {MEMORY_COLUMNS} FROM memories WHERE user_id = ? AND status = 'active'"
                f" AND valid_to IS NULL AND slot IN ({self._marks(len(chunk))})"
                " ORDER BY created_at, doc_id",
                (user_id, *chunk),
            )
            for r in rows:
                m = self._row_to_memory(r)
                out.setdefault(m.slot or "", []).append(m)
        return out

    def count(self, user_id: str | None = None, status: str | None = None) -> int:
        clauses, params = [], []
        if user_id is not None:
            clauses.append("user_id = ?")
            params.append(user_id)
        if status is not None:
            clauses.append("status = ?")
            params.append(status)
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        return int(self._fetch(f"SELECT COUNT(*) FROM memories{where}", params)[0][0])

    def stats(self, user_id: str) -> dict[str, Any]:
        by_type = dict(
            self._fetch(
                "SELECT memory_type, COUNT(*) FROM memories WHERE user_id = ? GROUP BY memory_type",
                (user_id,),
            )
        )
        # Each figure from an index alone, (user_id, status, created_at) and (user_id,
        # access_count): one statement over the rows' own columns read every memory row of
        # the user (80-135 ms of the Health page at 100,000 memories).
        per_status = self._fetch(
            "SELECT status, COUNT(*), MIN(created_at), MAX(created_at) FROM memories"
            " WHERE user_id = ? GROUP BY status",
            (user_id,),
        )
        by_status = {r[0]: r[1] for r in per_status}
        firsts = [r[2] for r in per_status if r[2] is not None]
        lasts = [r[3] for r in per_status if r[3] is not None]
        accesses = self._fetch(
            "SELECT COALESCE(SUM(access_count), 0) FROM memories WHERE user_id = ?", (user_id,)
        )[0][0]
        first_last = (min(firsts, default=None), max(lasts, default=None), accesses)
        return {
            # superseded rows are earlier versions of these memories, not memories of their own
            "total": sum(int(v) for k, v in by_status.items() if k != "superseded"),
            "by_type": {k: int(v) for k, v in sorted(by_type.items())},
            "by_status": {k: int(v) for k, v in sorted(by_status.items())},
            "first_created_at": iso(self._dt_out(first_last[0])),
            "last_created_at": iso(self._dt_out(first_last[1])),
            "total_accesses": int(first_last[2]),
        }

    def audit_rows(self, user_id: str, limit: int = 100) -> list[dict[str, Any]]:
        rows = self._fetch(  # an erased user's rows are kept under the hash of their id
            "SELECT action, memory_ids, details, created_at FROM audit_log"
            f" WHERE user_id IN (?, ?) ORDER BY id DESC LIMIT {int(limit)}",
            (user_id, self.id_hasher(user_id)),
        )
        return [
            {
                "action": r[0],
                "memory_ids": self._json_out(r[1]),
                "details": self._json_out(r[2]),
                "created_at": iso(self._dt_out(r[3])),
            }
            for r in rows
        ]

    def all_ids(self, user_id: str | None = None) -> set[str]:
        if user_id is None:
            return {r[0] for r in self._fetch("SELECT id FROM memories")}
        return {r[0] for r in self._fetch("SELECT id FROM memories WHERE user_id = ?", (user_id,))}

    # last in the class: below it, `list` in an annotation would name this method
    def list(self, q: RecordQuery, limit: int | None = None, offset: int = 0) -> list[Memory]:
        where, params = self._where(q)
        sql = f"SELECT {MEMORY_COLUMNS} FROM memories WHERE {where} ORDER BY created_at, doc_id"
        if limit is not None:
            sql += f" LIMIT {int(limit)} OFFSET {int(offset)}"
        return [self._row_to_memory(r) for r in self._fetch(sql, params)]
