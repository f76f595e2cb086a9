"""A filtered search and the same search without its filter, as the inspector compares them.

The inspector's search page shows what a type or `as_of` filter changes by running the query
twice, with and without the filter. Most of what the second search reads the first one has
read already: the rows of the candidates both channels find (a candidate is re-read from the
records by id) and their cosines to the query (the vector scores of the candidates a channel
did not rank). So both run on one view of the stores that keeps what was read for the length
of the comparison: a row or a score is read once, and the second search reads only what the
first did not reach. Nothing else changes: both are the service's own `search`, on the same
stores, and within one comparison no row can change between the two reads of it.
"""

from __future__ import annotations

import copy
import threading
from dataclasses import replace
from typing import Any, cast

import numpy as np

from graphmem.domain.model import Memory
from graphmem.domain.requests import SearchRequest, SearchResult
from graphmem.stores.records import RecordsStore
from graphmem.stores.vectors import VectorStore
from graphmem.usecases import search as searching
from graphmem.usecases.ports import SearchPorts


class _ReadOnce:
    """A store seen through a memo of one of its reads by id; every other call goes to it."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._lock = threading.Lock()  # the keyword channel reads from a worker thread
        self._seen: dict[tuple[Any, ...], Any] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def _once(self, prefix: tuple[Any, ...], ids: list[str], read: Any) -> dict[str, Any]:
        """`read(missing ids)` for the ids not read before under `prefix`; the answer for all
        of `ids`, leaving out those the store did not return (as the store itself does)."""
        with self._lock:
            missing = [i for i in dict.fromkeys(ids) if (*prefix, i) not in self._seen]
        got = read(missing) if missing else {}
        with self._lock:
            for i in missing:
                self._seen[(*prefix, i)] = got.get(i)
            found = {i: self._seen[(*prefix, i)] for i in ids}
        return {i: v for i, v in found.items() if v is not None}


class _Rows(_ReadOnce):
    def get(self, user_id: str, memory_ids: list[str]) -> dict[str, Memory]:
        return self._once((user_id,), memory_ids, lambda ids: self._inner.get(user_id, ids))


class _Scores(_ReadOnce):
    def scores(self, vector: np.ndarray, user_id: str, memory_ids: list[str]) -> dict[str, float]:
        key = (user_id, vector.tobytes())
        return self._once(key, memory_ids, lambda ids: self._inner.scores(vector, user_id, ids))


def with_and_without_filter(
    ctx: SearchPorts, user_id: str, request: SearchRequest
) -> tuple[SearchResult, SearchResult]:
    """The search as asked, and the same query without its type and `as_of` filters. The
    second is asked without `explain`, since only its hits are shown: explaining never changes
    a score, and a search without it goes through the result cache, so another filter on the
    same query does not run the unfiltered search again."""
    shared = copy.copy(ctx)  # not dataclasses.replace: __post_init__ would rewire the projector
    shared.records = cast(RecordsStore, _Rows(ctx.records))
    shared.vectors = cast(VectorStore, _Scores(ctx.vectors))
    filtered = searching.search(shared, user_id, request)
    plain = searching.search(
        shared, user_id, replace(request, memory_type=None, as_of=None, explain=False)
    )
    return filtered, plain
