"""The graph projection: its port here; adapters `networkx` (in-process, the default) and
`neo4j` (a Neo4j server), imported by `open_graph` only when chosen."""

from graphmem.stores.graph.port import (
    RELATION_TYPES,
    GraphEdge,
    GraphNode,
    GraphStore,
    edge_order,
)

__all__ = ["RELATION_TYPES", "GraphEdge", "GraphNode", "GraphStore", "edge_order"]
