"""Qdrant server adapter (qdrant-client), for production deployments.

`url=":memory:"` or a filesystem path selects qdrant-client's local mode, which speaks the same
client API; tests use it because no Qdrant server runs in CI. Local mode is far too slow to be
the embedded default (see docs/benchmarks.md); that is what Qdrant Edge is for.
"""

from __future__ import annotations

import threading
import warnings

import numpy as np
from qdrant_client import QdrantClient, models

from graphmem.errors import StoreUnavailableError
from graphmem.stores.vectors.port import VectorFilter, VectorHit, VectorPoint

_INDEXES = {
    "user_id": models.PayloadSchemaType.KEYWORD,
    "memory_type": models.PayloadSchemaType.KEYWORD,
    "status": models.PayloadSchemaType.KEYWORD,
    "created_at": models.PayloadSchemaType.FLOAT,
    "session_id": models.PayloadSchemaType.KEYWORD,
    "agent_id": models.PayloadSchemaType.KEYWORD,
    "run_id": models.PayloadSchemaType.KEYWORD,
    "source": models.PayloadSchemaType.KEYWORD,
    "meta": models.PayloadSchemaType.KEYWORD,
}


class QdrantServerVectors:
    backend = "qdrant"

    def __init__(self, url: str, api_key: str | None, collection: str, dim: int) -> None:
        self.url = url
        self.collection = collection
        self.dim = dim
        self._lock = threading.Lock()
        if url == ":memory:":
            self.client = QdrantClient(location=":memory:")
        elif "://" in url:
            self.client = QdrantClient(url=url, api_key=api_key or None, timeout=10)
        else:
            self.client = QdrantClient(path=url)
        self._ensure_collection()

    def _ensure_collection(self) -> None:
        try:
            if not self.client.collection_exists(self.collection):
                self.client.create_collection(
                    self.collection,
                    vectors_config=models.VectorParams(
                        size=self.dim, distance=models.Distance.COSINE
                    ),
                )
                with warnings.catch_warnings():
                    # Local mode accepts payload indexes but warns that it ignores them.
                    warnings.simplefilter("ignore")
                    for name, schema in _INDEXES.items():
                        self.client.create_payload_index(self.collection, name, schema)
        except Exception as e:  # noqa: BLE001 - any transport error means unreachable
            raise StoreUnavailableError(f"vector store (Qdrant) unreachable: {e}") from e

    def upsert(self, points: list[VectorPoint]) -> None:
        if not points:
            return
        self.client.upsert(
            self.collection,
            points=[
                models.PointStruct(
                    id=p.memory_id,
                    vector=np.asarray(p.vector, dtype=np.float32).tolist(),
                    payload={
                        "user_id": p.user_id,
                        "memory_type": p.memory_type,
                        "status": p.status,
                        "created_at": p.created_at,
                        "session_id": p.session_id or "",
                        "agent_id": p.agent_id or "",
                        "run_id": p.run_id or "",
                        "source": p.source or "",
                        "meta": list(p.meta),
                    },
                )
                for p in points
            ],
            wait=True,
        )

    def delete(self, memory_ids: list[str]) -> None:
        if memory_ids:
            self.client.delete(
                self.collection, points_selector=models.PointIdsList(points=list(memory_ids))
            )

    def delete_user(self, user_id: str) -> None:
        self.client.delete(
            self.collection, points_selector=models.FilterSelector(filter=_user_filter(user_id))
        )

    def set_status(self, memory_ids: list[str], status: str) -> None:
        if memory_ids:
            self.client.set_payload(self.collection, {"status": status}, points=list(memory_ids))

    def search(self, vector: np.ndarray, flt: VectorFilter, limit: int) -> list[VectorHit]:
        res = self.client.query_points(
            self.collection,
            query=np.asarray(vector, dtype=np.float32).tolist(),
            query_filter=_filter(flt),
            limit=limit,
            with_payload=False,
        )
        return [VectorHit(str(p.id), float(p.score)) for p in res.points]

    def vectors(self, memory_ids: list[str]) -> dict[str, np.ndarray]:
        if not memory_ids:
            return {}
        recs = self.client.retrieve(self.collection, ids=list(memory_ids), with_vectors=True)
        return {str(r.id): np.asarray(r.vector, dtype=np.float32) for r in recs}

    def scores(self, vector: np.ndarray, user_id: str, memory_ids: list[str]) -> dict[str, float]:
        if not memory_ids:
            return {}
        res = self.client.query_points(
            self.collection,
            query=np.asarray(vector, dtype=np.float32).tolist(),
            query_filter=_user_filter(user_id, models.HasIdCondition(has_id=list(memory_ids))),
            limit=len(memory_ids),
            with_payload=False,
        )
        return {str(p.id): float(p.score) for p in res.points}

    def count(self, user_id: str | None = None) -> int:
        flt = _user_filter(user_id) if user_id else None
        return self.client.count(self.collection, count_filter=flt, exact=True).count

    def ids(self, user_id: str | None = None) -> set[str]:
        out: set[str] = set()
        offset = None
        flt = _user_filter(user_id) if user_id else None
        while True:
            recs, offset = self.client.scroll(
                self.collection, scroll_filter=flt, limit=1000, offset=offset, with_payload=False
            )
            out.update(str(r.id) for r in recs)
            if offset is None:
                return out

    def optimize(self) -> None:
        """The server optimises in the background."""

    def close(self) -> None:
        self.client.close()

    def health(self) -> dict[str, object]:
        try:
            info = self.client.get_collection(self.collection)
            return {
                "backend": self.backend,
                "ok": True,
                "url": self.url,
                "points": info.points_count,
            }
        except Exception as e:  # noqa: BLE001 - health reports, never raises
            return {"backend": self.backend, "ok": False, "error": str(e)}


def _user_filter(user_id: str, *more: models.Condition) -> models.Filter:
    """The user's points (and whatever `more` conditions ask)."""
    return models.Filter(
        must=[models.FieldCondition(key="user_id", match=models.MatchValue(value=user_id)), *more]
    )


def _filter(flt: VectorFilter) -> models.Filter:
    must: list[models.Condition] = [
        models.FieldCondition(key="user_id", match=models.MatchValue(value=flt.user_id)),
        models.FieldCondition(key="status", match=models.MatchAny(any=list(flt.statuses))),
    ]
    if flt.memory_type:
        must.append(
            models.FieldCondition(key="memory_type", match=models.MatchValue(value=flt.memory_type))
        )
    if flt.created_after is not None:
        must.append(
            models.FieldCondition(key="created_at", range=models.Range(gte=flt.created_after))
        )
    if flt.session_id:
        must.append(
            models.FieldCondition(key="session_id", match=models.MatchValue(value=flt.session_id))
        )
    for key in ("agent_id", "run_id"):
        value = getattr(flt, key)
        if value:
            must.append(models.FieldCondition(key=key, match=models.MatchValue(value=value)))
    if flt.sources is not None:
        must.append(
            models.FieldCondition(key="source", match=models.MatchAny(any=list(flt.sources)))
        )
    for tokens in flt.meta:
        must.append(models.FieldCondition(key="meta", match=models.MatchAny(any=list(tokens))))
    return models.Filter(must=must)
