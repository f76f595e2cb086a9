"""Qdrant server adapter (qdrant-client), for production deployments.

`url=":memory:"` or a filesystem path selects qdrant-client's local mode, which speaks the same
client API (the tests of every other part use it); the adapter's own contract tests also run
against a real server or cluster when GRAPHMEM_TEST_QDRANT_URL names one. Local mode is far too
slow to be the embedded default (see docs/benchmarks.md); that is what Qdrant Edge is for.

On a cluster, the collection is created with the layout the settings give (QdrantLayout): a
replication factor and write consistency, and optionally custom sharding by shard group. With
shard groups every user hashes to one group (one shard key), so all of a user's points live
on that group's shards and a search asks only them; without, Qdrant spreads points by id and
every search fans out to every shard.
"""

from __future__ import annotations

import hashlib
import threading
import warnings
from dataclasses import dataclass
from typing import Any

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
    "kind": models.PayloadSchemaType.KEYWORD,
}


@dataclass(frozen=True)
class QdrantLayout:
    """How a new collection is laid out on a Qdrant server or cluster."""

    shard_groups: int = 0  # 0: Qdrant shards by point id; N: users hashed into N shard keys
    shards: int = 1  # per shard group, or in all without groups
    replication_factor: int = 1
    write_consistency: int = 1

    def group(self, user_id: str) -> str | None:
        """The user's shard key (None without shard groups). A stable hash, so every replica
        and every restart sends a user to the same group."""
        if not self.shard_groups:
            return None
        h = int.from_bytes(hashlib.sha256(user_id.encode("utf-8")).digest()[:8], "big")
        return f"g{h % self.shard_groups}"


class QdrantServerVectors:
    backend = "qdrant"

    def __init__(
        self,
        url: str,
        api_key: str | None,
        collection: str,
        dim: int,
        layout: QdrantLayout | None = None,
        client: QdrantClient | None = None,
    ) -> None:
        """`client`: another adapter's client, for a second collection on the same server
        (the image vectors): local mode allows one client per path, and one connection pool
        is enough. That adapter closes it."""
        self.url = url
        self.collection = collection
        self.dim = dim
        self.layout = layout or QdrantLayout()
        self._lock = threading.Lock()
        self.local = "://" not in url
        self._owns_client = client is None
        if self.local and self.layout.shard_groups:
            raise ValueError("qdrant_shard_groups needs a Qdrant server (qdrant_url http://...)")
        if client is not None:
            self.client = client
        elif url == ":memory:":
            self.client = QdrantClient(location=":memory:")
        elif not self.local:
            self.client = QdrantClient(url=url, api_key=api_key or None, timeout=10)
        else:
            self.client = QdrantClient(path=url)
        self._ensure_collection()

    def _ensure_collection(self) -> None:
        try:
            if not self.client.collection_exists(self.collection):
                self._create()
            elif not self.local:
                self._check_layout()
        except ValueError:
            raise
        except Exception as e:  # noqa: BLE001 - any transport error means unreachable
            raise StoreUnavailableError(f"vector store (Qdrant) unreachable: {e}") from e

    def _create(self) -> None:
        lay = self.layout
        cluster: dict[str, Any] = {}
        if not self.local:
            cluster = {
                "shard_number": lay.shards,
                "replication_factor": lay.replication_factor,
                "write_consistency_factor": min(lay.write_consistency, lay.replication_factor),
            }
            if lay.shard_groups:
                cluster["sharding_method"] = models.ShardingMethod.CUSTOM
        try:
            self.client.create_collection(
                self.collection,
                vectors_config=models.VectorParams(size=self.dim, distance=models.Distance.COSINE),
                **cluster,
            )
            for g in range(lay.shard_groups):
                self.client.create_shard_key(
                    self.collection,
                    f"g{g}",
                    shards_number=lay.shards,
                    replication_factor=lay.replication_factor,
                )
        except Exception as e:  # noqa: BLE001 - one cause is the user's to fix, named below
            if "distributed mode disabled" in str(e).lower():
                self.client.delete_collection(self.collection)  # not half-made
                raise ValueError(
                    "qdrant_shard_groups needs Qdrant in distributed mode (start it with"
                    " QDRANT__CLUSTER__ENABLED=true, even as a single node), or set it to 0"
                ) from None
            raise
        with warnings.catch_warnings():
            # Local mode accepts payload indexes but warns that it ignores them.
            warnings.simplefilter("ignore")
            for name, schema in _INDEXES.items():
                field: Any = schema
                if name == "user_id" and not self.local:
                    # Qdrant keeps each tenant's points together on disk and in its index.
                    field = models.KeywordIndexParams(
                        type=models.KeywordIndexType.KEYWORD, is_tenant=True
                    )
                self.client.create_payload_index(self.collection, name, field)

    def _check_layout(self) -> None:
        """An existing collection must be sharded the way the settings say: hashing users into
        a different number of groups would look for their points in the wrong shards."""
        params = self.client.get_collection(self.collection).config.params
        custom = params.sharding_method == models.ShardingMethod.CUSTOM
        keys = self.client.list_shard_keys(self.collection).shard_keys if custom else None
        groups = len(keys or [])
        if groups != self.layout.shard_groups:
            raise ValueError(
                f"Qdrant collection {self.collection!r} has {groups} shard groups but"
                f" qdrant_shard_groups is {self.layout.shard_groups}: set it to {groups}, or"
                " use a new collection and `graphmem backfill vectors`"
            )

    def _key(self, user_id: str) -> str | None:
        return self.layout.group(user_id)

    def _every_key(self) -> list[int | str] | None:
        """Every shard group, for a write that names points but not their user (Qdrant needs
        a shard key for writes to a custom-sharded collection)."""
        n = self.layout.shard_groups
        return [f"g{g}" for g in range(n)] if n else None

    def upsert(self, points: list[VectorPoint]) -> None:
        by_key: dict[str | None, list[VectorPoint]] = {}
        for p in points:
            by_key.setdefault(self._key(p.user_id), []).append(p)
        for key, group in by_key.items():
            self._upsert(group, key)

    def _upsert(self, points: list[VectorPoint], key: str | None) -> None:
        self.client.upsert(
            self.collection,
            shard_key_selector=key,
            points=[
                models.PointStruct(
                    id=p.memory_id,
                    vector=np.asarray(p.vector, dtype=np.float32).tolist(),
                    payload=p.payload(),
                )
                for p in points
            ],
            wait=True,
        )

    def delete(self, memory_ids: list[str]) -> None:
        if memory_ids:
            self.client.delete(
                self.collection,
                points_selector=models.PointIdsList(points=list(memory_ids)),
                shard_key_selector=self._every_key(),
            )

    def delete_user(self, user_id: str) -> None:
        self.client.delete(
            self.collection,
            points_selector=models.FilterSelector(filter=_user_filter(user_id)),
            shard_key_selector=self._key(user_id),
        )

    def set_status(self, memory_ids: list[str], status: str) -> None:
        if memory_ids:
            self.client.set_payload(
                self.collection,
                {"status": status},
                # By filter: a point list fails on every shard group that lacks the points.
                points=models.Filter(must=[models.HasIdCondition(has_id=list(memory_ids))]),
                shard_key_selector=self._every_key(),
            )

    def search(self, vector: np.ndarray, flt: VectorFilter, limit: int) -> list[VectorHit]:
        res = self.client.query_points(
            self.collection,
            query=np.asarray(vector, dtype=np.float32).tolist(),
            query_filter=_filter(flt),
            limit=limit,
            with_payload=False,
            shard_key_selector=self._key(flt.user_id),
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
            shard_key_selector=self._key(user_id),
        )
        return {str(p.id): float(p.score) for p in res.points}

    def count(self, user_id: str | None = None) -> int:
        flt = _user_filter(user_id) if user_id else None
        key = self._key(user_id) if user_id else None
        return self.client.count(
            self.collection, count_filter=flt, exact=True, shard_key_selector=key
        ).count

    def ids(self, user_id: str | None = None) -> set[str]:
        out: set[str] = set()
        offset = None
        flt = _user_filter(user_id) if user_id else None
        while True:
            recs, offset = self.client.scroll(
                self.collection,
                scroll_filter=flt,
                limit=1000,
                offset=offset,
                with_payload=False,
                shard_key_selector=self._key(user_id) if user_id else None,
            )
            out.update(str(r.id) for r in recs)
            if offset is None:
                return out

    def optimize(self) -> None:
        """The server optimises in the background."""

    def close(self) -> None:
        if self._owns_client:
            self.client.close()

    def recreate(self) -> None:
        """Drop the collection and make it anew, empty (a derived index whose vectors no
        longer fit: another model's, of another size)."""
        self.client.delete_collection(self.collection)
        self._ensure_collection()

    def health(self) -> dict[str, object]:
        try:
            info = self.client.get_collection(self.collection)
            return {
                "backend": self.backend,
                "ok": True,
                "url": self.url,
                "points": info.points_count,
                "shards": info.config.params.shard_number,
                "shard_groups": self.layout.shard_groups,
                "replication_factor": info.config.params.replication_factor,
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
    document = models.FieldCondition(key="kind", match=models.MatchValue(value="document"))
    if flt.kind == "document":
        must.append(document)
    elif flt.kind is not None:
        return models.Filter(must=must, must_not=[document])
    return models.Filter(must=must)
