"""The vector index port: a projection of the records, rebuildable from them at any time.

Every query carries the user's id as a filter; adapters must apply it inside the index (a payload
filter), never by post-filtering a global top-k, or a busy tenant could starve a quiet one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np

from graphmem.domain.filters import MemoryFilter, meta_token, meta_tokens
from graphmem.domain.model import Memory


@dataclass(frozen=True)
class VectorFilter:
    user_id: str
    memory_type: str | None = None
    statuses: tuple[str, ...] = ("active",)
    created_after: float | None = None  # epoch seconds
    session_id: str | None = None
    # A caller's filter (graphmem.domain.filters) as payload conditions; `meta` holds, per metadata
    # key, the tokens (graphmem.domain.filters.meta_token) of the values it may hold.
    agent_id: str | None = None
    run_id: str | None = None
    sources: tuple[str, ...] | None = None
    meta: tuple[tuple[str, ...], ...] = ()
    # One record kind to keep (graphmem.domain.model.Kind), None for all. Points written before
    # kinds existed carry no kind and are memories, so "memory" is matched as "not a document".
    kind: str | None = None

    def narrowed(self, f: MemoryFilter) -> VectorFilter:
        """This filter with a caller's filter pushed down (confidence is not in the payload:
        the records re-read applies it)."""
        return replace(
            self,
            session_id=f.session_id or self.session_id,
            agent_id=f.agent_id,
            run_id=f.run_id,
            sources=f.sources,
            meta=tuple(tuple(meta_token(c.key, v) for v in c.values) for c in f.metadata),
            kind=f.kinds[0] if f.kinds is not None and len(f.kinds) == 1 else None,
        )


@dataclass(frozen=True)
class VectorHit:
    memory_id: str
    score: float  # cosine similarity, in [-1, 1]


@dataclass(frozen=True)
class VectorPoint:
    memory_id: str
    vector: np.ndarray
    user_id: str
    memory_type: str
    status: str
    created_at: float  # epoch seconds
    session_id: str | None = None
    agent_id: str | None = None
    run_id: str | None = None
    source: str | None = None
    meta: tuple[str, ...] = ()  # graphmem.domain.filters.meta_tokens of its metadata
    kind: str = "memory"

    def payload(self) -> dict[str, Any]:
        """The payload the point is stored with: what `VectorFilter` matches on, the optional
        ids and source as "" when unset. Built here, once, so every adapter (Qdrant Edge, the
        Qdrant server) indexes the same fields in the same form."""
        return {
            "user_id": self.user_id,
            "memory_type": self.memory_type,
            "status": self.status,
            "created_at": self.created_at,
            "session_id": self.session_id or "",
            "agent_id": self.agent_id or "",
            "run_id": self.run_id or "",
            "source": self.source or "",
            "meta": list(self.meta),
            "kind": self.kind,
        }


def vector_point(m: Memory, vec: np.ndarray) -> VectorPoint:
    """The point a memory is in the index: its vector and the payload a search filters on."""
    return VectorPoint(
        memory_id=m.id,
        vector=vec,
        user_id=m.user_id,
        memory_type=m.memory_type.value,
        status=m.status.value,
        created_at=m.created_at.timestamp(),
        session_id=m.session_id,
        agent_id=m.agent_id,
        run_id=m.run_id,
        source=m.source.value,
        meta=tuple(meta_tokens(m.metadata)),
        kind=m.kind.value,
    )


class VectorStore(Protocol):
    def upsert(self, points: list[VectorPoint]) -> None: ...

    def delete(self, memory_ids: list[str]) -> None: ...

    def delete_user(self, user_id: str) -> None: ...

    def set_status(self, memory_ids: list[str], status: str) -> None: ...

    def search(self, vector: np.ndarray, flt: VectorFilter, limit: int) -> list[VectorHit]: ...

    def vectors(self, memory_ids: list[str]) -> dict[str, np.ndarray]: ...

    def scores(self, vector: np.ndarray, user_id: str, memory_ids: list[str]) -> dict[str, float]:
        """Cosine of `vector` to each of these memories of the user, computed in the index
        (ids it does not hold for that user are left out)."""
        ...

    def count(self, user_id: str | None = None) -> int: ...

    def ids(self, user_id: str | None = None) -> set[str]: ...

    def optimize(self) -> None: ...

    def close(self) -> None: ...

    def health(self) -> dict[str, object]: ...
