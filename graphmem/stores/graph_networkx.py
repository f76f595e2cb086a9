"""networkx graph adapter: the embedded default, in process, no server.

It holds the projection in memory and is rebuilt from the records when a service starts (the
graph is a projection, so that is always possible, and it keeps one source of truth on disk).
"""

from __future__ import annotations

import threading

import networkx as nx

from graphmem.stores.graph import GraphEdge, GraphNode, edge_order


class NetworkxGraph:
    backend = "networkx"

    def __init__(self) -> None:
        self.g = nx.MultiDiGraph()  # memory nodes; edges keyed by relation type
        self.mentions: dict[str, list[str]] = {}  # memory id -> entity names
        self._lock = threading.RLock()
        self._closed = False

    def _check(self) -> None:
        if self._closed:
            raise ConnectionError("graph store is closed")

    def sync(self, nodes: list[GraphNode], edges: list[GraphEdge]) -> None:
        with self._lock:
            self._check()
            for n in nodes:
                if n.memory_id in self.g:
                    stale = [*self.g.in_edges(n.memory_id, keys=True),
                             *self.g.out_edges(n.memory_id, keys=True)]
                    self.g.remove_edges_from(stale)
                self.g.add_node(
                    n.memory_id, user_id=n.user_id, memory_type=n.memory_type, status=n.status,
                    created_at=n.created_at, session_id=n.session_id, summary=n.summary,
                    valid_from=n.valid_from, valid_to=n.valid_to,
                )
                self.mentions[n.memory_id] = [e.name for e in n.entities]
            for e in edges:
                a, b = self.g.nodes.get(e.source_id), self.g.nodes.get(e.target_id)
                if a is None or b is None:
                    continue
                if a["user_id"] != e.user_id or b["user_id"] != e.user_id:
                    continue
                self.g.add_edge(e.source_id, e.target_id, key=e.relation_type,
                                user_id=e.user_id, strength=e.strength,
                                valid_from=e.valid_from, valid_to=e.valid_to)

    def delete(self, memory_ids: list[str]) -> None:
        with self._lock:
            self._check()
            self.g.remove_nodes_from(memory_ids)
            for m in memory_ids:
                self.mentions.pop(m, None)

    def prune_entities(self, user_ids: list[str]) -> None:
        """Entities live on their memories here, so a deleted memory already took them."""

    def delete_user(self, user_id: str) -> None:
        with self._lock:
            self._check()
            self.delete([n for n, u in self.g.nodes(data="user_id") if u == user_id])

    def neighbours(
        self,
        user_id: str,
        memory_ids: list[str],
        relation_types: tuple[str, ...] | None,
        per_node: int,
        at: float | None = None,
    ) -> list[GraphEdge]:
        out: dict[tuple[str, str, str], GraphEdge] = {}
        with self._lock:
            self._check()
            for mid in dict.fromkeys(memory_ids):
                if mid not in self.g or self.g.nodes[mid].get("user_id") != user_id:
                    continue
                cand = []
                for s, t, k, d in [*self.g.out_edges(mid, keys=True, data=True),
                                   *self.g.in_edges(mid, keys=True, data=True)]:
                    other = t if s == mid else s
                    if d.get("user_id") != user_id or self.g.nodes[other].get("user_id") != user_id:
                        continue
                    if relation_types is not None and k not in relation_types:
                        continue
                    e = GraphEdge(user_id, s, t, k, float(d["strength"]), d.get("valid_from"),
                                  d.get("valid_to"))
                    if e.valid_at(at):
                        cand.append(e)
                cand.sort(key=lambda e, m=mid: edge_order(m, e))
                for e in cand[:per_node]:
                    out.setdefault((e.source_id, e.target_id, e.relation_type), e)
        return list(out.values())

    def node_ids(self, user_id: str | None = None) -> set[str]:
        with self._lock:
            self._check()
            return {n for n, u in self.g.nodes(data="user_id") if user_id is None or u == user_id}

    def edge_count(self, user_id: str | None = None) -> int:
        with self._lock:
            self._check()
            return sum(1 for *_, u in self.g.edges(data="user_id") if user_id in (None, u))

    def entity_names(self, user_id: str, memory_ids: list[str]) -> dict[str, list[str]]:
        with self._lock:
            return {
                m: list(self.mentions.get(m, []))
                for m in memory_ids
                if m in self.g and self.g.nodes[m].get("user_id") == user_id
            }

    def close(self) -> None:
        self._closed = True

    def open(self) -> None:
        self._closed = False

    def health(self) -> dict[str, object]:
        if self._closed:
            return {"backend": self.backend, "ok": False, "error": "closed"}
        return {"backend": self.backend, "ok": True, "nodes": self.g.number_of_nodes(),
                "edges": self.g.number_of_edges()}
