"""The image channel: image memories' vectors from an image-text model (graphmem.images.clip),
kept in a vector index of their own and searched with the query's text-tower vector.

Only image memories get such a vector, and only when `images.image_model` is set. It is a
projection of the records like the text vectors (graphmem.service.projection): a memory's point
carries the same payload (user, status, kind, filters), so a search filters it in the index exactly
as the text channel is filtered, the user's id hashed there as well; archiving, holding or
restoring a memory moves its point with it, and forgetting it deletes the point.

The vector is computed where OCR is, before the write takes the user's lock: `prepare` embeds
the decoded picture and keeps the vector until the write's projection takes it (`project`).
A memory projected without one (a retried projection, a rebuild, an image written before the
model was configured) has its vector computed from the stored bytes.

The index is its own (a second Qdrant Edge shard beside the first, or a second collection on
the Qdrant server): the model's vectors have their own size, and a store opened without the
model never reads or writes it.
"""

from __future__ import annotations

import json
import logging
import shutil
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np
from PIL import Image

from graphmem.domain.model import Kind, Memory
from graphmem.errors import ImageError
from graphmem.images.clip import ClipModel
from graphmem.images.decode import SHA_KEY, DecodedImage, decode
from graphmem.images.port import ImageStore
from graphmem.images.settings import ImageSettings
from graphmem.stores import RecordsStore, image_vectors_path, open_image_vectors
from graphmem.stores.vectors import VectorFilter, VectorStore, vector_point

if TYPE_CHECKING:
    from graphmem.settings import Settings

log = logging.getLogger("graphmem.images")

IDENTITY_META = "image_embedding_model"
"""The records' meta key naming the model the image vectors were made with."""


class ImageChannel:
    """The image-text model, the image vectors' index, and the bytes they are made from."""

    def __init__(
        self,
        model: ClipModel,
        vectors: VectorStore,
        images: ImageStore,
        settings: ImageSettings,
    ) -> None:
        self.model = model
        self.vectors = vectors
        self.images = images
        self.settings = settings
        self._pending: dict[tuple[str, str], tuple[np.ndarray, int]] = {}
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ write time
    def prepare(self, user_id: str, img: DecodedImage) -> bool:
        """Embed a picture about to be written, outside any lock; its memory's projection
        takes the vector. True when there is one (a picture the model maps to nothing has
        none). Pair each call with `release`."""
        vec = self._embed(img.picture)
        if vec is None:
            return False
        with self._lock:
            _, uses = self._pending.get((user_id, img.sha256), (vec, 0))
            self._pending[(user_id, img.sha256)] = (vec, uses + 1)
        return True

    def release(self, user_id: str, sha: str) -> None:
        """The write that prepared this picture is over (written or refused)."""
        with self._lock:
            vec, uses = self._pending.pop((user_id, sha), (None, 0))
            if vec is not None and uses > 1:
                self._pending[(user_id, sha)] = (vec, uses - 1)

    # ------------------------------------------------------------------ projection
    def project(self, rows: Iterable[Memory], *, fresh: bool = False) -> int:
        """Bring the points of these memories' images up to date with their records (status,
        filters): the stored vector is kept unless `fresh`, a missing one is made. Rows that
        are not images are left alone. Returns the points written."""
        images = [m for m in rows if m.kind == Kind.IMAGE and isinstance(sha_of(m), str)]
        if not images:
            return 0
        have = {} if fresh else self.vectors.vectors([m.id for m in images])
        points = []
        for m in images:
            vec = have.get(m.id)
            if vec is None:
                vec = self._vector_for(m.user_id, str(sha_of(m)))
            if vec is not None:
                points.append(vector_point(m, vec))
        self.vectors.upsert(points)
        return len(points)

    def delete(self, memory_ids: list[str]) -> None:
        if memory_ids:
            self.vectors.delete(memory_ids)

    def _vector_for(self, user_id: str, sha: str) -> np.ndarray | None:
        """The prepared vector, else one made from the stored bytes. An image whose bytes are
        gone or no longer decode has none (its memory is still found by its text); a store
        that cannot be read raises, and the projection is retried."""
        with self._lock:
            held = self._pending.get((user_id, sha))
        if held is not None:
            return held[0]
        s = self.settings
        try:
            data, _ = self.images.read(user_id, sha)
            img = decode(data, max_bytes=s.max_bytes, max_pixels=s.max_pixels)
        except (FileNotFoundError, ValueError, ImageError) as e:
            log.warning("an image memory gets no image vector: its bytes %s", _why(e))
            return None
        return self._embed(img.picture)

    def _embed(self, picture: Image.Image) -> np.ndarray | None:
        """The picture's vector; None when the model maps it to nothing or fails on it: its
        memory is still found by its text, and a projection never retries it for ever."""
        try:
            return self.model.image(picture)
        except Exception as e:  # noqa: BLE001 - ONNX Runtime's errors have no common type
            log.warning("an image memory gets no image vector: the model failed (%s)", e)
            return None

    # ------------------------------------------------------------------ search
    def query(self, text: str) -> np.ndarray | None:
        """The query's vector from the text tower (None: nothing to compare)."""
        return self.model.text(text)

    def search(self, vector: np.ndarray, flt: VectorFilter, limit: int) -> dict[str, float]:
        """Cosine of the query to the best image memories the filter admits."""
        return {h.memory_id: h.score for h in self.vectors.search(vector, flt, limit)}

    def scores(self, vector: np.ndarray, user_id: str, memory_ids: list[str]) -> dict[str, float]:
        """Cosine of the query to these memories' images (those that have a vector)."""
        return self.vectors.scores(vector, user_id, memory_ids) if memory_ids else {}

    def calibrated(self, cosine: float) -> float:
        """A cosine as the channel's score in [0, 1]: 0 at or below `image_score_floor` (what
        unrelated texts and images score), 1 from `image_score_full` up. A fixed scale, never
        the query's best hit: a query no image matches leaves the channel empty."""
        low, full = self.settings.image_score_floor, self.settings.image_score_full
        return float(min(1.0, max(0.0, (cosine - low) / (full - low))))

    # ------------------------------------------------------------------ erase
    def purge_user(self, user_id: str) -> int:
        """Delete every image vector of a user (erasure); the number there was."""
        n = self.vectors.count(user_id)
        self.vectors.delete_user(user_id)
        return n

    def count_user(self, user_id: str) -> int:
        return self.vectors.count(user_id)

    def close(self) -> None:
        self.vectors.close()


def load_model(settings: Settings) -> ClipModel | None:
    """The image-text model `images.image_model` names, opened and checked (one line naming
    the setting for a bad file), or None: the default, no image channel. Opened before any
    store, so a bad file stops a start before anything is held open."""
    if not settings.images.clip:
        return None
    return ClipModel(settings.images, settings.embedding.torch_threads)


def open_image_channel(
    settings: Settings,
    model: ClipModel | None,
    records: RecordsStore,
    vectors: VectorStore,
    images: ImageStore,
) -> ImageChannel | None:
    """The image channel on an opened model (None without one). The store remembers which
    model made its image vectors (IDENTITY_META): vectors of another size are dropped (a
    derived index; `graphmem backfill rebuild` refills it from the bytes), another model of the
    same size is reported until a rebuild re-embeds them."""
    if model is None:
        return None
    held = _held(records.meta(IDENTITY_META))
    resized = bool(held) and held.get("dim") != model.dim
    if resized and settings.vectors.backend != "qdrant":
        shutil.rmtree(image_vectors_path(settings), ignore_errors=True)
    index = open_image_vectors(settings, model.dim, vectors)
    if resized:
        recreate = getattr(index, "recreate", None)
        if recreate is not None:
            recreate()
        log.warning(
            "image vectors of %s dimensions dropped for a model of %d: `graphmem backfill"
            " rebuild` embeds the stored images again",
            held.get("dim"),
            model.dim,
        )
    elif held and held.get("model") != model.identity:
        log.warning(
            "the image vectors were made by another image model (%s), the configured one is"
            " %s: searches compare unrelated vectors until `graphmem backfill rebuild`"
            " re-embeds them",
            held.get("model"),
            model.identity,
        )
    if not held or resized:
        stamp(records, model)
    return ImageChannel(model, index, images, settings.images)


def stamp(records: RecordsStore, model: ClipModel) -> None:
    """Record the model the image vectors are made with."""
    records.set_meta(IDENTITY_META, json.dumps({"model": model.identity, "dim": model.dim}))


def _held(raw: str | None) -> dict[str, Any]:
    try:
        found = json.loads(raw) if raw else {}
    except ValueError:
        return {"model": raw, "dim": None}
    return found if isinstance(found, dict) else {}


def _why(error: Exception) -> str:
    return "are gone" if isinstance(error, FileNotFoundError) else "do not decode"


def sha_of(m: Memory) -> object:
    """The image an image memory points at (its metadata's sha256)."""
    return m.metadata.get(SHA_KEY)


__all__ = [
    "IDENTITY_META",
    "ImageChannel",
    "load_model",
    "open_image_channel",
    "sha_of",
    "stamp",
]
