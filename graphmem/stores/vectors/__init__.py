"""The vector index: its port here; adapters `edge` (embedded Qdrant Edge, the default) and
`qdrant` (a Qdrant server), imported by `open_vectors` only when chosen."""

from graphmem.stores.vectors.port import (
    VectorFilter,
    VectorHit,
    VectorPoint,
    VectorStore,
    vector_point,
)

__all__ = ["VectorFilter", "VectorHit", "VectorPoint", "VectorStore", "vector_point"]
