"""The graph read straight from the records store: the embedded default.

The relations, entities and memory-entity links are already canonical rows in the records
store (`memory_relations`, `entities`, `memory_entities`), written in the same transaction as
the memories they belong to. The networkx adapter copied them into the process on every start:
83-106 s and about 3.5 GB of anonymous memory at 100,000 memories and 1.71 million relations,
growing with the store (17 million relations at 1M memories would not fit in 2 GB, and a
restart kept the server down for many minutes). This adapter keeps no copy: a hop asks the
records store for the relations around the frontier (two indexed lookups), and ranks them here
by `edge_order`, so it cuts exactly the edges the other adapters cut.

Consequences, all by construction rather than by bookkeeping:
- nothing to rebuild on open and nothing to lose in a crash: the graph is what the records say
  the moment a write commits (`projected = False`: the outbox has no graph work for it, and
  `doctor` has no drift to look for);
- memory use is the database's page cache (file-backed, reclaimable), not Python objects;
- erasing or deleting in the records erases the graph with them.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from graphmem.stores.graph.port import GraphEdge, GraphNode
from graphmem.stores.records.port import RecordsStore


@lru_cache(maxsize=65536)
def _epoch(value: Any) -> float | None:
    """A validity bound as the records return it (datetime, or ISO text from SQLite). Cached:
    an edge's bounds are its memories' times, met again by every walk that passes them."""
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return float(value.timestamp())


class RecordsGraph:
    backend = "records"
    in_process = False
    projected = False

    def __init__(self, records: RecordsStore) -> None:
        self.records = records
        self._closed = False

    def _check(self) -> None:
        if self._closed:
            raise ConnectionError("graph store is closed")

    # Writes: the records are the graph; the records store already wrote (or deleted) the rows.
    def sync(self, nodes: list[GraphNode], edges: list[GraphEdge]) -> None:
        self._check()

    def delete(self, memory_ids: list[str]) -> None:
        self._check()

    def prune_entities(self, user_ids: list[str]) -> None:
        self._check()

    def delete_user(self, user_id: str) -> None:
        self._check()

    def rebuilt(self) -> None:
        """Nothing is cached, so nothing to prepare."""

    def neighbours(
        self,
        user_id: str,
        memory_ids: list[str],
        relation_types: tuple[str, ...] | None,
        per_node: int,
        at: float | None = None,
    ) -> list[GraphEdge]:
        """The hot path of the walk (two calls per search, ~400 rows each at 20,000 memories):
        rows are grouped per listed memory and sorted only where a memory has more than
        `per_node` of them (the order of the result is not part of the contract: the walk and
        the neighbourhood view sort it themselves), and validity bounds, which repeat across
        edges and searches, are parsed once per process (`_epoch`, cached)."""
        self._check()
        ids = list(dict.fromkeys(memory_ids))
        if not ids or per_node <= 0:
            return []
        wanted = set(ids)
        when = datetime.fromtimestamp(at, UTC) if at is not None else None
        around: dict[str, list[tuple[Any, ...]]] = {}
        seen: set[tuple[str, str, str]] = set()
        for row in self.records.relation_rows(user_id, ids, relation_types, per_node, when):
            key = (row[0], row[1], row[2])
            if key in seen:  # an edge between two listed memories comes back from both sides
                continue
            seen.add(key)
            if row[0] in wanted:
                around.setdefault(row[0], []).append(row)
            if row[1] in wanted:
                around.setdefault(row[1], []).append(row)
        out: dict[tuple[str, str, str], GraphEdge] = {}
        for mid, rows in around.items():
            if len(rows) > per_node:
                rows.sort(key=_rank(mid))
                del rows[per_node:]
            for r in rows:
                key = (r[0], r[1], r[2])
                if key not in out:
                    out[key] = GraphEdge(
                        user_id, r[0], r[1], r[2], float(r[3]), _epoch(r[4]), _epoch(r[5])
                    )
        return list(out.values())

    def node_ids(self, user_id: str | None = None) -> set[str]:
        self._check()
        return self.records.all_ids(user_id)

    def edge_count(self, user_id: str | None = None) -> int:
        self._check()
        return self.records.graph_counts(user_id)["memory_relations"]

    def entity_names(self, user_id: str, memory_ids: list[str]) -> dict[str, list[str]]:
        self._check()
        return {
            m: [e.name for e in refs]
            for m, refs in self.records.entities_for(user_id, memory_ids).items()
        }

    def close(self) -> None:
        self._closed = True

    def open(self) -> None:
        self._closed = False

    def health(self) -> dict[str, object]:
        if self._closed:
            return {"backend": self.backend, "ok": False, "error": "closed"}
        inner = self.records.health()
        return {"backend": self.backend, "ok": bool(inner.get("ok")), "reads": inner.get("backend")}


def _rank(mid: str) -> Callable[[tuple[Any, ...]], tuple[float, str, str, str]]:
    """port.edge_order on raw rows of `mid`: (-strength, the other end, type, source)."""

    def key(r: tuple[Any, ...]) -> tuple[float, str, str, str]:
        return (-float(r[3]), r[1] if r[0] == mid else r[0], r[2], r[0])

    return key
