"""networkx graph adapter: the embedded default, in process, no server.

It holds the projection in memory and is rebuilt from the records when a service starts (the
graph is a projection, so that is always possible, and it keeps one source of truth on disk).

Expansion asks for the `per_node` strongest edges of a few hundred memories per search. Walking
networkx's edge views and sorting every incident edge on each call cost about 1 s per search at
100,000 memories (degree in the hundreds on well-connected memories), so each node's incident
edges are kept ranked (graph.edge_order) in a cache that a write touching the node drops;
a lookup then reads the head of the ranked list and stops after `per_node` edges pass the
filters. Edge attributes live on the edge as one GraphEdge, shared by both endpoints' lists.
"""

from __future__ import annotations

import threading

import networkx as nx

from graphmem.stores.graph.port import GraphEdge, GraphNode, edge_order


class NetworkxGraph:
    backend = "networkx"
    in_process = True
    projected = True

    def __init__(self) -> None:
        self.g = nx.MultiDiGraph()  # memory nodes; edges keyed by relation type
        self.mentions: dict[str, list[str]] = {}  # memory id -> entity names
        self._ranked: dict[str, list[GraphEdge]] = {}  # memory id -> incident edges, ranked
        self._lock = threading.RLock()
        self._closed = False

    def _check(self) -> None:
        if self._closed:
            raise ConnectionError("graph store is closed")

    def sync(self, nodes: list[GraphNode], edges: list[GraphEdge]) -> None:
        with self._lock:
            self._check()
            g, ranked = self.g, self._ranked
            for n in nodes:
                if n.memory_id in g:
                    stale = [
                        *g.in_edges(n.memory_id, keys=True),
                        *g.out_edges(n.memory_id, keys=True),
                    ]
                    for s, t, _ in stale:
                        ranked.pop(s, None)
                        ranked.pop(t, None)
                    g.remove_edges_from(stale)
                g.add_node(
                    n.memory_id,
                    user_id=n.user_id,
                    memory_type=n.memory_type,
                    status=n.status,
                    created_at=n.created_at,
                    session_id=n.session_id,
                    summary=n.summary,
                    valid_from=n.valid_from,
                    valid_to=n.valid_to,
                    agent_id=n.agent_id,
                    run_id=n.run_id,
                )
                self.mentions[n.memory_id] = [e.name for e in n.entities]
            attrs = g._node  # noqa: SLF001 - the plain dict behind g.nodes: 1.7M lookups on a rebuild
            admitted = []
            for e in edges:
                a, b = attrs.get(e.source_id), attrs.get(e.target_id)
                if a is None or b is None:
                    continue
                if a["user_id"] != e.user_id or b["user_id"] != e.user_id:
                    continue
                admitted.append((e.source_id, e.target_id, e.relation_type, {"edge": e}))
                ranked.pop(e.source_id, None)
                ranked.pop(e.target_id, None)
            g.add_edges_from(admitted)

    def delete(self, memory_ids: list[str]) -> None:
        with self._lock:
            self._check()
            for m in memory_ids:
                if m in self.g:
                    for other in [*self.g.successors(m), *self.g.predecessors(m)]:
                        self._ranked.pop(other, None)
                self._ranked.pop(m, None)
                self.mentions.pop(m, None)
            self.g.remove_nodes_from(memory_ids)

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
            nodes = self.g.nodes
            for mid in dict.fromkeys(memory_ids):
                node = nodes.get(mid)
                if node is None or node.get("user_id") != user_id:
                    continue
                taken = 0
                for e in self._ranked_edges(mid):
                    if taken >= per_node:
                        break
                    if e.user_id != user_id:  # sync admits same-user edges only; belt and braces
                        continue
                    if relation_types is not None and e.relation_type not in relation_types:
                        continue
                    if not e.valid_at(at):
                        continue
                    taken += 1
                    out.setdefault((e.source_id, e.target_id, e.relation_type), e)
        return list(out.values())

    def rebuilt(self) -> None:
        """Rank every node's edges now rather than on its first search: after a start, cold
        nodes cost searches a sort each (about 14 per search at 100,000 memories, still after
        100 searches). Measured in docs/benchmarks.md (graph expansion cost)."""
        with self._lock:
            self._check()
            for mid in self.g:
                if mid not in self._ranked:
                    self._ranked_edges(mid)

    def _ranked_edges(self, mid: str) -> list[GraphEdge]:
        """The node's incident edges in edge_order, computed once per change of the node."""
        got = self._ranked.get(mid)
        if got is None:
            incident = [
                d["edge"]
                for adj in (self.g._succ[mid], self.g._pred[mid])  # noqa: SLF001 - hot path
                for keyed in adj.values()
                for d in keyed.values()
            ]
            got = sorted(incident, key=lambda e: edge_order(mid, e))
            self._ranked[mid] = got
        return got

    def node_ids(self, user_id: str | None = None) -> set[str]:
        with self._lock:
            self._check()
            return {n for n, u in self.g.nodes(data="user_id") if user_id is None or u == user_id}

    def edge_count(self, user_id: str | None = None) -> int:
        with self._lock:
            self._check()
            return sum(
                1 for *_, e in self.g.edges(data="edge") if user_id is None or e.user_id == user_id
            )

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
        return {
            "backend": self.backend,
            "ok": True,
            "nodes": self.g.number_of_nodes(),
            "edges": self.g.number_of_edges(),
        }
