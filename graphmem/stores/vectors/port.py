"""The vector index port: a projection of the records, rebuildable from them at any time.

Every query carries the user's id as a filter; adapters must apply it inside the index (a payload
filter), never by post-filtering a global top-k, or a busy tenant could starve a quiet one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np


@dataclass(frozen=True)
class VectorFilter:
    user_id: str
    memory_type: str | None = None
    statuses: tuple[str, ...] = ("active",)
    created_after: float | None = None  # epoch seconds
    session_id: str | None = None


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
