"""What the service needs from an embedder, whichever model is behind it.

Two kinds of text are embedded: memories (`encode`, in batches, on write and on rebuild) and
queries (`encode_query`, one at a time, cached). They are kept apart because some models embed
them differently (e5 is trained with "query: " and "passage: " prefixes), and because a query
is the user's data: the cache is keyed by user so erasing a user drops exactly their entries.

This module imports no model runtime: a backend that needs neither torch nor
sentence-transformers (graphmem.embedding.e5) must not load them by being imported.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

ENGLISH: frozenset[str] = frozenset({"en"})
# Models trained on English text only. Others are taken to be multilingual (or unknown): their
# vector channel keeps its weight in every language.
ENGLISH_ONLY_MODELS = frozenset({"all-minilm-l6-v2"})


def model_languages(model_name: str) -> frozenset[str] | None:
    """The languages a model by this name was trained on; None when it is not known to be
    limited to some ('sentence-transformers/all-MiniLM-L6-v2' and 'all-MiniLM-L6-v2' alike)."""
    return ENGLISH if model_name.rsplit("/", 1)[-1].lower() in ENGLISH_ONLY_MODELS else None


class Embedder:
    """Text -> unit vectors: batched for memories, an LRU cache per user for queries.

    Subclasses set `model_name`, `dim` and `batch_size` and implement `encode` (memories) and
    `_encode_one` (one query).
    """

    model_name: str
    dim: int
    batch_size: int
    # What unrelated texts score under this model; search rescales the vector channel so this
    # is 0 (graphmem.domain.ranking.above_floor). 0 for models whose cosines already start near 0.
    score_floor: float = 0.0
    # The languages (graphmem.domain.fusion.language codes) the model was trained on; None: any. On
    # a query in another language the vector channel weighs little (graphmem.domain.ranking.
    # language_weights): an English-only model's cosines on Chinese are noise.
    languages: frozenset[str] | None = None
    # Cosines that mean "the same memory" (merge, and the near-duplicate an update replaces) and
    # "what a forget-by-query reaches". Each model puts its cosines elsewhere (unrelated
    # LoCoMo turns: MiniLM ~0.1, e5 ~0.8), so each carries its own; the settings
    # `merge_similarity` / `forget_similarity` override them (graphmem.embedding.base.own).
    merge_similarity: float = 0.95
    forget_similarity: float = 0.75

    def __init__(self, cache_size: int = 4096) -> None:
        self._cache: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()
        self.cache_hits = 0
        self.cache_misses = 0

    def encode(self, texts: list[str]) -> np.ndarray:
        """Unit vectors of memories, one row per text, in order."""
        raise NotImplementedError

    def _encode_one(self, text: str) -> np.ndarray:
        """The unit vector of one query (uncached)."""
        raise NotImplementedError

    @property
    def identity(self) -> str:
        """What made a vector: the model and anything else that changes its vectors (precision).
        Recorded with a store, so a store opened with another model is detected."""
        return self.model_name

    @property
    def query_backend(self) -> str:
        """Which runtime embeds queries (for status output)."""
        return "native"

    def query_key(self, text: str) -> str:
        """What the query cache files `text` under: two texts under one key must be texts the
        model gives one vector. The text itself, unless the model is known to ignore a
        difference: multilingual-e5-small is cased ("Paris" and "paris": cosine 0.975), and a
        vector cached for one spelling must not answer the other."""
        return text

    def encode_query(self, text: str, user_id: str = "") -> np.ndarray:
        """Embed a query, cached per user: a query is the user's data, and erasing a user must
        be able to drop exactly their entries (`forget_user`)."""
        key = (user_id, self.query_key(text))
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                self.cache_hits += 1
                return hit
            self.cache_misses += 1
        vec = self._encode_one(text)
        with self._lock:
            self._cache[key] = vec
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return vec

    def forget_user(self, user_id: str) -> int:
        """Drop a user's cached queries; returns how many there were."""
        with self._lock:
            keys = [k for k in self._cache if k[0] == user_id]
            for k in keys:
                del self._cache[k]
        return len(keys)

    def forget_all(self) -> int:
        """Drop every cached query (another replica erased a user we cannot name); returns how
        many there were."""
        with self._lock:
            n = len(self._cache)
            self._cache.clear()
        return n

    def cached_queries(self, user_id: str) -> int:
        with self._lock:
            return sum(1 for k in self._cache if k[0] == user_id)

    @property
    def cache_hit_rate(self) -> float:
        total = self.cache_hits + self.cache_misses
        return self.cache_hits / total if total else 0.0


def own(configured: float | None, model_value: float) -> float:
    """A cosine threshold: the setting when one is given, else the embedding model's own."""
    return model_value if configured is None else configured
