"""The graph port: memories as nodes, typed weighted relations as edges, entities beside them.

A projection of the records (`memory_relations`, `entities`, `memory_entities`), rebuildable
from them at any time. Every read takes the user's id and applies it to every node and edge it
touches, at every hop: an edge into another user's memory is never followed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from graphmem.domain.model import Memory
from graphmem.domain.relation_types import RELATION_TYPES as RELATION_TYPES  # re-exported
from graphmem.stores.records.rows import EntityRef, Relation


@dataclass(frozen=True)
class GraphNode:
    memory_id: str
    user_id: str
    memory_type: str
    status: str
    created_at: float  # epoch seconds
    session_id: str | None = None
    summary: str = ""
    entities: tuple[EntityRef, ...] = field(default_factory=tuple)
    valid_from: float | None = None  # epoch seconds; None: open
    valid_to: float | None = None
    agent_id: str | None = None
    run_id: str | None = None


@dataclass(frozen=True)
class GraphEdge:
    user_id: str
    source_id: str
    target_id: str
    relation_type: str
    strength: float = 1.0
    valid_from: float | None = None  # epoch seconds; None: open
    valid_to: float | None = None

    def other(self, memory_id: str) -> str:
        return self.target_id if self.source_id == memory_id else self.source_id

    def valid_at(self, at: float | None) -> bool:
        """Does the edge hold at `at` (None: any time, i.e. follow history too)?"""
        if at is None:
            return True
        return (self.valid_from is None or self.valid_from <= at) and (
            self.valid_to is None or at < self.valid_to
        )


def edge_order(memory_id: str, e: GraphEdge) -> tuple[float, str, str, str]:
    """How a node's edges are ranked when only the strongest `per_node` are followed.

    Both adapters sort by this, so they cut the same edges and expansions agree.
    """
    return (-e.strength, e.other(memory_id), e.relation_type, e.source_id)


def graph_node(m: Memory, entities: list | None = None) -> GraphNode:
    """The node a memory is in the graph, with its entities."""
    return GraphNode(
        memory_id=m.id,
        user_id=m.user_id,
        memory_type=m.memory_type.value,
        status=m.status.value,
        created_at=m.created_at.timestamp(),
        session_id=m.session_id,
        summary=m.summary,
        entities=tuple(entities or ()),
        valid_from=m.valid_since.timestamp(),
        valid_to=m.valid_to.timestamp() if m.valid_to else None,
        agent_id=m.agent_id,
        run_id=m.run_id,
    )


def _ts(value: Any) -> float | None:
    return value.timestamp() if value is not None else None


def graph_edge(r: Relation) -> GraphEdge:
    """The edge a relation of the records is in the graph."""
    return GraphEdge(
        r.user_id,
        r.source_id,
        r.target_id,
        r.relation_type,
        r.strength,
        _ts(r.valid_from),
        _ts(r.valid_to),
    )


class GraphStore(Protocol):
    backend: str
    # True when the graph lives in this process and starts empty: it is rebuilt from the
    # records on open, and is by design what the records say (doctor does not compare them).
    in_process: bool
    # False when the graph is read from the records themselves (RecordsGraph): there is no
    # copy to project into, rebuild or compare, so the outbox's graph work is done at commit.
    projected: bool

    def sync(self, nodes: list[GraphNode], edges: list[GraphEdge]) -> None:
        """Upsert `nodes` and make their edges exactly `edges` (those touching them)."""

    def delete(self, memory_ids: list[str]) -> None:
        """Remove memories with every edge touching them."""

    def prune_entities(self, user_ids: list[str]) -> None:
        """Drop entities of these users that no memory mentions any more."""

    def delete_user(self, user_id: str) -> None: ...

    def rebuilt(self) -> None:
        """A rebuild from the records finished: prepare whatever makes expansion fast."""

    def neighbours(
        self,
        user_id: str,
        memory_ids: list[str],
        relation_types: tuple[str, ...] | None,
        per_node: int,
        at: float | None = None,
    ) -> list[GraphEdge]:
        """Edges of `user_id` touching these memories, both directions, strongest `per_node`
        per memory (ranked by `edge_order`), both ends owned by `user_id`; with `at` (epoch
        seconds) only edges valid then (GraphEdge.valid_at), filtered before the cut."""

    def node_ids(self, user_id: str | None = None) -> set[str]: ...

    def edge_count(self, user_id: str | None = None) -> int: ...

    def entity_names(self, user_id: str, memory_ids: list[str]) -> dict[str, list[str]]: ...

    def close(self) -> None: ...

    def health(self) -> dict[str, object]: ...
