"""The records side of the graph: entities, memory-entity links and relations, in SQL.

A mixin on `SQLBase`, so the graph tables are written by the same connection, and inside the
same transaction, as the memory rows they belong to. Relations are insert-or-keep on their
unique key (source, target, type): re-running extraction never duplicates an edge.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from graphmem.domain.model import utcnow
from graphmem.stores.records.base import SQLBase, chunks
from graphmem.stores.records.migrate import GRAPH_TABLES
from graphmem.stores.records.rows import (
    EntityRef,
    GraphRows,
    Placed,
    Relation,
    Supersession,
)


class SQLGraphTables(SQLBase):
    """The `GraphTables` port, plus the graph writes `insert` and `merge` share."""

    # ------------------------------------------------------------------ writes
    def _entity_ids(self, cur: Any, user_id: str, refs: dict[str, EntityRef]) -> dict[str, int]:
        """Resolve entity keys to ids for one user, creating the missing ones."""
        ids: dict[str, int] = {}

        def lookup(keys: list[str]) -> None:
            for chunk in chunks(keys):
                cur.execute(
                    self._q(
                        "SELECT normalized_name, id FROM entities WHERE user_id = ? AND"
                        f" normalized_name IN ({self._marks(len(chunk))}) ORDER BY id"
                    ),
                    (user_id, *chunk),
                )
                for key, eid in cur.fetchall():
                    ids.setdefault(key, int(eid))

        lookup(list(refs))
        missing = [refs[k] for k in refs if k not in ids]
        if missing:
            now = self._dt_in(utcnow())
            cur.executemany(
                self._q(
                    f"{self._ignore} INTO entities (user_id, name, normalized_name, entity_type,"
                    " created_at) VALUES (?, ?, ?, ?, ?)"
                ),
                [(user_id, r.name[:255], r.key[:255], r.entity_type[:32], now) for r in missing],
            )
            lookup([r.key for r in missing])
        return ids

    def _write_graph(self, cur: Any, graph: GraphRows, *, set_strength: bool = False) -> None:
        refs = {r.key: r for rs in graph.entities.values() for r in rs}
        if refs:
            ids = self._entity_ids(cur, graph.user_id, refs)
            links = {
                (mid, ids[r.key]) for mid, rs in graph.entities.items() for r in rs if r.key in ids
            }
            cur.executemany(
                self._q(
                    f"{self._ignore} INTO memory_entities (memory_id, entity_id, user_id)"
                    " VALUES (?, ?, ?)"
                ),
                [(mid, eid, graph.user_id) for mid, eid in sorted(links)],
            )
        rels = [r for r in graph.relations if r.user_id == graph.user_id]
        if not rels:
            return
        if set_strength:
            cur.executemany(
                self._q(
                    "UPDATE memory_relations SET strength = ? WHERE user_id = ? AND"
                    " source_memory_id = ? AND target_memory_id = ? AND relation_type = ?"
                ),
                [(r.strength, r.user_id, r.source_id, r.target_id, r.relation_type) for r in rels],
            )
        now = self._dt_in(utcnow())
        cur.executemany(
            self._q(
                f"{self._ignore} INTO memory_relations (user_id, source_memory_id,"
                " target_memory_id, relation_type, strength, created_at, valid_from, valid_to)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
            ),
            [
                (
                    r.user_id,
                    r.source_id,
                    r.target_id,
                    r.relation_type,
                    r.strength,
                    now,
                    self._dt_in(r.valid_from),
                    self._dt_in(r.valid_to),
                )
                for r in rels
            ],
        )
        touched = sorted({m for r in rels for m in (r.source_id, r.target_id)})
        self._relation_validity(cur, graph.user_id, touched)

    def _relation_validity(self, cur: Any, user_id: str, memory_ids: list[str]) -> None:
        """A relation holds while both its memories do: fill validity of new rows from them.

        An edge written today between two memories of 2023 is valid from the later of their
        valid_from; an edge into a memory that was already superseded ends when it ended
        (a `superseded_by` edge is the exception: it marks the end, it does not end).
        """
        ends = (
            "FROM memories m WHERE m.user_id = memory_relations.user_id AND m.id IN"
            " (memory_relations.source_memory_id, memory_relations.target_memory_id)"
        )
        # One statement per side, each on its own index (see `_user_col`): with
        # `source IN (..) OR target IN (..)` SQLite walked every relation of the user instead.
        # Running the target side second is safe: the values depend only on the two memories,
        # so a row the first statement filled would get the same values again.
        for chunk in chunks(memory_ids, 200):
            marks = self._marks(len(chunk))
            for side in ("source_memory_id", "target_memory_id"):
                cur.execute(
                    self._q(
                        "UPDATE memory_relations SET valid_to = CASE WHEN relation_type ="
                        f" 'superseded_by' THEN valid_to ELSE (SELECT MIN(m.valid_to) {ends}) END,"
                        f" valid_from = (SELECT MAX(COALESCE(m.valid_from, m.created_at)) {ends})"
                        f" WHERE {self._user_col} = ? AND valid_from IS NULL AND valid_to IS NULL"
                        f" AND {side} IN ({marks})"
                    ),
                    (user_id, *chunk),
                )

    def _supersede(self, cur: Any, user_id: str, items: list[Supersession]) -> None:
        """Close the old memories and their edges, link old -superseded_by-> new, re-project."""
        now = self._dt_in(utcnow())
        done: list[str] = []
        for s in items:
            at = self._dt_in(s.at)
            cur.execute(
                self._q(
                    "UPDATE memories SET status = 'superseded', valid_to = ?, updated_at = ?"
                    " WHERE user_id = ? AND id = ? AND valid_to IS NULL"
                ),
                (at, now, user_id, s.old_id),
            )
            if cur.rowcount <= 0:
                continue  # gone, or superseded already: its history stays as it was
            cur.execute(
                self._q(
                    "UPDATE memory_relations SET valid_to = ? WHERE user_id = ? AND"
                    " (source_memory_id = ? OR target_memory_id = ?) AND valid_to IS NULL"
                    " AND relation_type <> 'superseded_by'"
                ),
                (at, user_id, s.old_id, s.old_id),
            )
            cur.execute(
                self._q(
                    f"{self._ignore} INTO memory_relations (user_id, source_memory_id,"
                    " target_memory_id, relation_type, strength, created_at, valid_from,"
                    " valid_to) VALUES (?, ?, ?, 'superseded_by', 1.0, ?, ?, NULL)"
                ),
                (user_id, s.old_id, s.new_id, now, at),
            )
            done.append(s.old_id)
        if done:
            self._outbox_rows(cur, [(user_id, m, "upsert") for m in done])

    def supersede(self, user_id: str, items: list[Supersession]) -> None:
        """Record supersessions on their own (after a review approval, a version update)."""
        if items:
            with self._tx() as cur:
                self._supersede(cur, user_id, items)

    def save_graph(
        self, graph: GraphRows, *, project: bool = True, set_strength: bool = False
    ) -> int:
        """Store entities, links and relations; queue graph projection of every touched memory."""
        touched = list(
            dict.fromkeys(
                [
                    *graph.entities,
                    *(r.source_id for r in graph.relations),
                    *(r.target_id for r in graph.relations),
                ]
            )
        )
        with self._tx() as cur:
            self._write_graph(cur, graph, set_strength=set_strength)
            if project and touched:
                self._outbox_rows(
                    cur, [(graph.user_id, m, "relations") for m in touched], target="graph"
                )
        return len(graph.relations)

    # ------------------------------------------------------------------ reads
    def mentions_of(self, user_id: str, keys: list[str], per_key: int) -> dict[str, list[str]]:
        return {k: [p.id for p in v] for k, v in self.mentions(user_id, keys, per_key).items()}

    def mentions(
        self, user_id: str, keys: list[str], per_key: int, *, written_before: int | None = None
    ) -> dict[str, list[Placed]]:
        """Memories mentioning each entity key, latest first by (created_at, write order), at
        most `per_key` each; with `written_before`, only those written before that sequence
        number (what a stored memory's own write saw)."""
        out: dict[str, list[Placed]] = {}
        bound = "" if written_before is None else f" AND m.doc_id < {int(written_before)}"
        for chunk in chunks(sorted(set(keys))):
            rows = self._fetch(
                "SELECT k, mid, at, seq FROM (SELECT e.normalized_name AS k, me.memory_id AS mid,"
                " m.created_at AS at, m.doc_id AS seq, ROW_NUMBER() OVER (PARTITION BY"
                " e.normalized_name ORDER BY m.created_at DESC, m.doc_id DESC) AS rn FROM"
                " entities e JOIN memory_entities me ON me.entity_id = e.id AND"
                " me.user_id = e.user_id JOIN memories m ON m.id = me.memory_id AND"
                f" m.user_id = e.user_id WHERE e.user_id = ?{bound} AND e.normalized_name IN"
                f" ({self._marks(len(chunk))})) ranked WHERE rn <= {int(per_key)} ORDER BY k, rn",
                (user_id, *chunk),
            )
            for key, mid, at, seq in rows:
                got = out.setdefault(key, [])
                if len(got) < per_key and all(p.id != mid for p in got):
                    got.append(Placed(mid, self._dt_out(at), int(seq)))  # type: ignore[arg-type]
        return out

    def mention_counts(self, user_id: str, keys: list[str]) -> dict[str, int]:
        """How many of the user's memories mention each entity key (absent: none)."""
        out: dict[str, int] = {}
        for chunk in chunks(sorted(set(keys))):
            rows = self._fetch(
                "SELECT e.normalized_name, COUNT(*) FROM entities e"
                " JOIN memory_entities me ON me.entity_id = e.id AND me.user_id = e.user_id"
                f" WHERE e.user_id = ? AND e.normalized_name IN ({self._marks(len(chunk))})"
                " GROUP BY e.normalized_name",
                (user_id, *chunk),
            )
            out.update({k: int(n) for k, n in rows})
        return out

    def session_previous(
        self,
        user_id: str,
        session_id: str | None,
        at: datetime | None,
        *,
        written_before: int | None = None,
    ) -> Placed | None:
        """The memory a write at `at` follows: of those written before it (`written_before`, a
        sequence number; None: everything stored) and not dated after it, the latest by
        (created_at, write order); in the session, or of the user if `session_id` is None.

        Equal timestamps are ordered by the writes, so turns sharing a session date still
        follow one another. A version copy kept by `update` is a past content of a memory, not
        a turn of its own, and is never the previous one.
        """
        clauses = ["user_id = ?", "json_extract(metadata, '$.version_of') IS NULL"]
        params: list[Any] = [user_id]
        if session_id is not None:
            clauses.append("session_id = ?")
            params.append(session_id)
        if at is not None:
            clauses.append("created_at <= ?")
            params.append(self._dt_in(at))
        if written_before is not None:
            clauses.append("doc_id < ?")
            params.append(int(written_before))
        rows = self._fetch(
            f"SELECT id, created_at, doc_id FROM memories WHERE {' AND '.join(clauses)}"
            " ORDER BY created_at DESC, doc_id DESC LIMIT 1",
            params,
        )
        if not rows:
            return None
        mid, created, seq = rows[0]
        return Placed(mid, self._dt_out(created), int(seq))  # type: ignore[arg-type]

    def relations_for(self, user_id: str, memory_ids: list[str]) -> list[Relation]:
        """Every relation with one of these memories at either end, in insertion order.

        Two indexed lookups joined by UNION ALL rather than `source IN (..) OR target IN (..)`,
        which SQLite answered by walking all of the user's relations (the graph projection of a
        write batch grew with the store: measured 40 ms vs 1.5 ms for 400 ids among 150k
        relations). An edge between two listed memories comes back twice and is kept once.
        """
        out: dict[tuple[str, str, str], Relation] = {}
        cols = (
            "id, source_memory_id, target_memory_id, relation_type, strength, valid_from, valid_to"
        )
        uid = self._user_col
        for chunk in chunks(list(dict.fromkeys(memory_ids)), 200):
            marks = self._marks(len(chunk))
            rows = self._fetch(
                f"SELECT {cols} FROM memory_relations WHERE {uid} = ? AND source_memory_id IN"
                f" ({marks}) UNION ALL SELECT {cols} FROM memory_relations WHERE {uid} = ? AND"
                f" target_memory_id IN ({marks}) ORDER BY id",
                (user_id, *chunk, user_id, *chunk),
            )
            for _id, s, t, rt, w, vf, vt in rows:
                out.setdefault(
                    (s, t, rt),
                    Relation(user_id, s, t, rt, float(w), self._dt_out(vf), self._dt_out(vt)),
                )
        return list(out.values())

    def relation_rows(
        self,
        user_id: str,
        memory_ids: list[str],
        relation_types: tuple[str, ...] | None,
        per_node: int,
        at: datetime | None = None,
    ) -> list[tuple[Any, ...]]:
        """The strongest `per_node` relations on each side of each memory, as raw (source,
        target, type, strength, valid_from, valid_to) rows: graph expansion straight from
        the records.

        Each side is one index range read in the expansion's own order (`edge_order`:
        strength descending, then the other end, then the type), filtered by type and
        validity before the cut and stopped after `per_node` rows: the rank indexes
        `ix_relations_{source,target}_rank` make a hop cost ~2 x per_node rows per memory
        instead of every incident edge (hundreds on a well-linked memory; reading them all
        made expansion 5x slower than networkx at 35,000 memories). The caller merges the two
        sides and cuts again, which is exact: a node's best `per_node` are among each side's
        best `per_node`. An edge between two listed memories may come back twice.
        """
        if per_node <= 0 or not memory_ids or (relation_types is not None and not relation_types):
            return []
        cols = "source_memory_id, target_memory_id, relation_type, strength, valid_from, valid_to"
        uid = self._user_col
        extra, extra_params = "", list[Any]()
        if relation_types is not None:
            extra += f" AND relation_type IN ({self._marks(len(relation_types))})"
            extra_params.extend(relation_types)
        if at is not None:
            extra += (
                " AND (valid_from IS NULL OR valid_from <= ?)"
                " AND (valid_to IS NULL OR valid_to > ?)"
            )
            extra_params.extend([self._dt_in(at), self._dt_in(at)])
        limit = int(per_node)
        out: list[tuple[Any, ...]] = []
        for chunk in chunks(list(dict.fromkeys(memory_ids)), 25):
            arms, params = [], []
            for n, mid in enumerate(chunk):
                for side, other in (("source", "target"), ("target", "source")):
                    arms.append(
                        f"SELECT * FROM (SELECT {cols} FROM memory_relations"
                        f" WHERE {side}_memory_id = ? AND {uid} = ?{extra}"
                        f" ORDER BY strength DESC, {other}_memory_id, relation_type"
                        f" LIMIT {limit}) r{n}{side[0]}"
                    )
                    params.extend([mid, user_id, *extra_params])
            out.extend(self._fetch(" UNION ALL ".join(arms), params))
        return out

    def relation_table(self, user_id: str, page: int = 20_000) -> Iterator[tuple[Any, ...]]:
        """Every relation of the user as the raw rows `relation_rows` returns, read in pages
        of `page` in storage order: what the walk's prepared adjacency is built from
        (graphmem.stores.graph.adjacency). Paged, so a build holds one page of row tuples,
        not 1.7 million."""
        after = -1
        while True:
            rows = self._fetch(
                "SELECT id, source_memory_id, target_memory_id, relation_type, strength,"
                " valid_from, valid_to FROM memory_relations WHERE user_id = ? AND id > ?"
                f" ORDER BY id LIMIT {int(page)}",
                [user_id, after],
            )
            for r in rows:
                yield r[1:]
            if len(rows) < page:
                return
            after = int(rows[-1][0])

    def relations_page(
        self, after_id: int, limit: int, user_id: str | None = None
    ) -> tuple[int, list[Relation]]:
        where = "id > ?"
        params: list[Any] = [int(after_id)]
        if user_id is not None:
            where += " AND user_id = ?"
            params.append(user_id)
        rows = self._fetch(
            "SELECT id, user_id, source_memory_id, target_memory_id, relation_type, strength,"
            f" valid_from, valid_to FROM memory_relations WHERE {where} ORDER BY id"
            f" LIMIT {int(limit)}",
            params,
        )
        rels = [
            Relation(u, s, t, rt, float(w), self._dt_out(vf), self._dt_out(vt))
            for _, u, s, t, rt, w, vf, vt in rows
        ]
        return (int(rows[-1][0]) if rows else int(after_id)), rels

    def entities_for(self, user_id: str, memory_ids: list[str]) -> dict[str, list[EntityRef]]:
        """The entities each memory names. The links are looked up by memory id, the user only
        checked (`_user_col`): the user's index is a walk over every link of the tenant."""
        out: dict[str, list[EntityRef]] = {}
        uid = self._user_of("me")
        for chunk in chunks(list(dict.fromkeys(memory_ids))):
            rows = self._fetch(
                "SELECT me.memory_id, e.normalized_name, e.name, e.entity_type"
                " FROM memory_entities me JOIN entities e ON e.id = me.entity_id"
                f" WHERE {uid} = ? AND me.memory_id IN ({self._marks(len(chunk))})"
                " ORDER BY e.id",
                (user_id, *chunk),
            )
            for mid, key, name, etype in rows:
                out.setdefault(mid, []).append(EntityRef(key, name, etype))
        return out

    def graph_counts(self, user_id: str | None = None) -> dict[str, int]:
        where, params = (" WHERE user_id = ?", (user_id,)) if user_id is not None else ("", ())
        return {
            table: int(self._fetch(f"SELECT COUNT(*) FROM {table}{where}", params)[0][0])
            for table in GRAPH_TABLES
        }
