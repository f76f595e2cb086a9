"""The graph: its port here; adapters `records` (the default: read from the records store's
relation tables), `networkx` (an in-process copy) and `neo4j` (a Neo4j server), imported by
`open_graph` only when chosen."""

from graphmem.stores.graph.port import (
    RELATION_TYPES,
    GraphEdge,
    GraphNode,
    GraphStore,
    edge_order,
    graph_edge,
    graph_node,
)

__all__ = [
    "RELATION_TYPES",
    "GraphEdge",
    "GraphNode",
    "GraphStore",
    "edge_order",
    "graph_edge",
    "graph_node",
]
