"""The records side of the memory lifecycle: decay updates, merges, scans and preload reads.

A mixin on `SQLGraphTables` (itself on `SQLBase`), so a merge rewrites the survivor, archives
the duplicates, re-points their relations and entity links and queues the re-projections in one
transaction: a merge interrupted half-way leaves both memories as they were.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from graphmem.domain.model import Memory, Status, utcnow
from graphmem.stores.records.base import MEMORY_COLUMNS
from graphmem.stores.records.graph_rows import SQLGraphTables
from graphmem.stores.records.rows import EntityRef, GraphRows, Relation

MERGED_FROM = "merged_from"


class SQLLifecycle(SQLGraphTables):
    """The `LifecycleRecords` port; a merge re-writes graph rows with `_write_graph`."""

    def set_lifecycle(self, rows: list[tuple[str, str, float, datetime | None, str]]) -> None:
        """Store recomputed (user_id, id, decay_score, expires_at, summary) values.

        Not a content change: no re-projection is queued and `updated_at` is left alone, so
        recomputing decay never makes a memory look freshly touched.
        """
        if not rows:
            return
        with self._tx() as cur:
            cur.executemany(
                self._q(
                    "UPDATE memories SET decay_score = ?, expires_at = ?, summary = ?"
                    " WHERE user_id = ? AND id = ?"
                ),
                [(d, self._dt_in(e), s, u, i) for u, i, d, e, s in rows],
            )

    def merge(self, user_id: str, survivor: Memory, loser_ids: list[str]) -> list[str]:
        """Fold `loser_ids` into `survivor` (whose united fields the caller computed).

        The losers stay as archived rows marked `merged_into`, joined to the survivor by a
        `merged_from` edge, so the merge is traceable and reversible; every other relation and
        entity link they had now belongs to the survivor. Returns the losers actually merged
        (those still active at commit time), so two concurrent merges cannot fold one twice.
        """
        ids = [i for i in dict.fromkeys(loser_ids) if i != survivor.id]
        if not ids:
            return []
        marks = self._marks(len(ids))
        q = self._q
        now = utcnow()
        with self._tx() as cur:
            cur.execute(
                q(
                    f"SELECT id, metadata FROM memories WHERE user_id = ? AND id IN ({marks})"
                    " AND status = ?"
                ),
                (user_id, *ids, Status.ACTIVE.value),
            )
            found = {r[0]: self._json_out(r[1]) or {} for r in cur.fetchall()}
            ids = [i for i in ids if i in found]
            if not ids:
                return []
            fm = self._marks(len(ids))
            cur.execute(
                q(
                    "UPDATE memories SET metadata = ?, access_count = ?, last_access_at = ?,"
                    " confidence = ?, created_at = ?, decay_score = ?, updated_at = ?"
                    " WHERE user_id = ? AND id = ?"
                ),
                (
                    json.dumps(survivor.metadata, ensure_ascii=False),
                    survivor.access_count,
                    self._dt_in(survivor.last_access_at),
                    survivor.confidence,
                    self._dt_in(survivor.created_at),
                    survivor.decay_score,
                    self._dt_in(now),
                    user_id,
                    survivor.id,
                ),
            )
            cur.executemany(
                q(
                    "UPDATE memories SET status = ?, metadata = ?, updated_at = ?"
                    " WHERE user_id = ? AND id = ?"
                ),
                [
                    (
                        Status.ARCHIVED.value,
                        json.dumps({**found[i], "merged_into": survivor.id}, ensure_ascii=False),
                        self._dt_in(now),
                        user_id,
                        i,
                    )
                    for i in ids
                ],
            )
            # Relations of the losers are re-pointed at the survivor (self-loops dropped).
            cur.execute(
                q(
                    "SELECT source_memory_id, target_memory_id, relation_type, strength"
                    f" FROM memory_relations WHERE user_id = ? AND (source_memory_id IN ({fm})"
                    f" OR target_memory_id IN ({fm}))"
                ),
                (user_id, *ids, *ids),
            )
            old = cur.fetchall()
            cur.execute(
                q(
                    "DELETE FROM memory_relations WHERE user_id = ? AND"
                    f" (source_memory_id IN ({fm}) OR target_memory_id IN ({fm}))"
                ),
                (user_id, *ids, *ids),
            )
            lost = set(ids)
            moved: list[Relation] = []
            neighbours: set[str] = set()
            for s, t, rt, w in old:
                s2 = survivor.id if s in lost else s
                t2 = survivor.id if t in lost else t
                if rt == MERGED_FROM or s2 == t2:
                    continue
                moved.append(Relation(user_id, s2, t2, rt, float(w)))
                neighbours.update((s, t))
            moved += [Relation(user_id, survivor.id, i, MERGED_FROM, 1.0) for i in ids]
            cur.execute(
                q(
                    "SELECT e.normalized_name, e.name, e.entity_type FROM memory_entities me"
                    " JOIN entities e ON e.id = me.entity_id"
                    f" WHERE me.user_id = ? AND me.memory_id IN ({fm})"
                ),
                (user_id, *ids),
            )
            ents = [EntityRef(k, n, t) for k, n, t in cur.fetchall()]
            self._write_graph(cur, GraphRows(user_id, {survivor.id: ents} if ents else {}, moved))
            touched = [survivor.id, *ids, *sorted(neighbours - lost - {survivor.id})]
            self._outbox_rows(cur, [(user_id, m, "upsert") for m in [survivor.id, *ids]])
            if len(touched) > len(ids) + 1:
                self._outbox_rows(
                    cur,
                    [(user_id, m, "relations") for m in touched[len(ids) + 1 :]],
                    target="graph",
                )
        return ids

    def preload_candidates(self, user_id: str, limit: int) -> dict[str, list[Memory]]:
        """The user's most recently touched and most used active memories, `limit` each."""
        out: dict[str, list[Memory]] = {}
        for name, order in (
            ("recent", "COALESCE(last_access_at, created_at) DESC, doc_id DESC"),
            ("frequent", "access_count DESC, doc_id DESC"),
        ):
            where = " AND access_count > 0" if name == "frequent" else ""
            rows = self._fetch(
                f"SELECT {MEMORY_COLUMNS} FROM memories WHERE user_id = ? AND status = ?{where}"
                f" ORDER BY {order} LIMIT {int(limit)}",
                (user_id, Status.ACTIVE.value),
            )
            out[name] = [self._row_to_memory(r) for r in rows]
        return out

    def scan(
        self, after_doc_id: int, limit: int, user_id: str | None = None
    ) -> list[tuple[int, Memory]]:
        where = "doc_id > ?"
        params: list[Any] = [int(after_doc_id)]
        if user_id is not None:
            where += " AND user_id = ?"
            params.append(user_id)
        rows = self._fetch(
            f"SELECT doc_id, {MEMORY_COLUMNS} FROM memories WHERE {where}"
            f" ORDER BY doc_id LIMIT {int(limit)}",
            params,
        )
        return [(int(r[0]), self._row_to_memory(r[1:])) for r in rows]
