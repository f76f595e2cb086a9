"""The image channel of a search: the query embedded by the image-text model's text tower and
compared with the image memories' vectors (graphmem.images.channel), beside the vector and
keyword channels and the graph walk.

It is fused as the graph is (graphmem.domain.associative.combine_graph): a hit's score becomes
1 - (1 - hybrid)(1 - w * image), with `image` the cosine calibrated on a fixed scale
(ImageChannel.calibrated: 0 up to the model's noise floor, 1 from where a match is clear),
never over the query's best hit. So it equals the hybrid score for every memory that is not an
image or whose image does not match, never lowers a hit and stays in [0, 1]; a query no image
matches leaves every score as it was. With no model configured (the default) the channel is
an empty `ImageHits`, whose every method leaves the search exactly as it was.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from graphmem.domain.model import Kind, Memory
from graphmem.domain.requests import ValidSearch
from graphmem.images.channel import ImageChannel
from graphmem.infra import metrics, workers
from graphmem.infra.tracing import carry, span
from graphmem.stores.vectors import VectorFilter
from graphmem.usecases.ports import SearchPorts

log = logging.getLogger("graphmem.retrieval")


@dataclass
class ImageHits:
    """What the image channel found for one search: each image memory's cosine to the query."""

    channel: ImageChannel | None = None
    vector: np.ndarray | None = None
    weight: float = 0.0
    cosines: dict[str, float] = field(default_factory=dict)
    user_id: str = ""
    failed: bool = False

    def complete(self, rows: Mapping[str, Memory]) -> None:
        """Score the image memories another channel (or the walk) found and this one did not,
        as the vector channel scores keyword-only hits."""
        if self.channel is None or self.vector is None:
            return
        missing = [i for i, m in rows.items() if m.kind == Kind.IMAGE and i not in self.cosines]
        if not missing:
            return
        try:
            self.cosines.update(self.channel.scores(self.vector, self.user_id, missing))
        except Exception as e:  # noqa: BLE001 - those hits keep their other channels
            log.warning("could not score image hits by their image: %s", e)
            metrics.store_error("image_vectors", "fetch")

    def fused(
        self, memory_id: str, score: float, channels: dict[str, float], why: dict[str, Any] | None
    ) -> float:
        """A hit's score with its image match fused in; unchanged without one."""
        cosine = self.cosines.get(memory_id)
        if cosine is None or self.channel is None:
            return score
        image = self.channel.calibrated(cosine)
        if image <= 0.0:
            return score
        channels["image"] = image
        fused = 1.0 - (1.0 - score) * (1.0 - self.weight * image)
        if why is not None:
            why["image"] = {
                "raw": cosine,
                "calibrated": image,
                "weight": self.weight,
                "added": fused - score,
            }
        return fused


def start(
    ctx: SearchPorts,
    user_id: str,
    req: ValidSearch,
    statuses: tuple[str, ...],
    since: datetime | None,
    pool: int,
) -> Future[ImageHits] | None:
    """Start the image channel on the channel pool; None when it has nothing to do (no model,
    a weight of 0, or a search limited to kinds without images)."""
    channel = ctx.image_channel
    if channel is None:
        return None
    weight = ctx.settings.images.image_weight if req.image_weight is None else req.image_weight
    kinds = req.filter.kinds
    if weight <= 0 or (kinds is not None and Kind.IMAGE.value not in kinds):
        return None
    flt = VectorFilter(
        user_id, req.memory_type, statuses, since.timestamp() if since else None
    ).narrowed(req.filter)

    def run() -> ImageHits:
        with metrics.channel("image"), span("graphmem.search.image", pool=pool) as step:
            vector = channel.query(req.query)
            found = {} if vector is None else channel.search(vector, flt, pool)
            step.set(hits=len(found))
            return ImageHits(channel, vector, weight, found, user_id)

    return workers.pool("channel").submit(carry(run))


def finish(started: Future[ImageHits] | None, degraded: list[str]) -> ImageHits:
    """The channel's hits; none when it did not run, and none (the search marked degraded)
    when it failed: the other channels answer alone."""
    if started is None:
        return ImageHits()
    try:
        return started.result()
    except Exception as e:  # noqa: BLE001 - degrade to the other channels, say so
        log.warning("image channel unavailable: %s", e)
        metrics.store_error("image_vectors", "search")
        degraded.append("images")
        return ImageHits(failed=True)


__all__ = ["ImageHits", "finish", "start"]
