"""A second reading by meaning, asked only when the n-gram classifier alone would hold a write.

The n-gram classifier (classifier.py) reads surface fragments, so a user's own rule or a report
of their team's policy ("Always attach the PDF when you send an invoice",
"部门新规：所有合同必须经过法务审核", "楼下新开的面馆味道不错，下次带同事去") shares enough of them
with an attack to reach
p 0.8-0.98 with no rule behind it. Each rule pass fixed the split it read and carried little to
the next. This module reads the same text by meaning instead: a logistic regression over the
sentence vector of the packaged multilingual-e5-small model (the default embedder, English and
Chinese), trained by `bench/firewall_meaning.py` on the classifier's training data plus the
everyday memories that rule passes were tuned on. When the n-gram model is the only evidence
and this reading says the text is more likely an ordinary memory than an instruction to an
agent, the classifier's weight is capped (injection.py), so the write is stored.

It is asked rarely (a few writes in a hundred: the classifier alone above EVIDENCE_FLOOR), so the
embedding it costs (about 5-10 ms) is not paid by ordinary writes. The vector is computed
without the embedder's query cache: nothing of the text stays in memory after the call, so an
erase has nothing to find here. Without the model file or the embedding package it answers
None and the classifier decides alone, as before.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

MODEL_PATH = Path(__file__).with_name("meaning_model.npz")
EMBEDDING_MODEL = "multilingual-e5-small"

_LOCK = threading.Lock()


class MeaningModel:
    """Weights over the e5 passage vector, a bias, and what they were trained with."""

    def __init__(self, weights: np.ndarray, bias: float, meta: dict[str, Any]) -> None:
        self.weights = weights.astype(np.float32)
        self.bias = float(bias)
        self.meta = meta

    def probability_of(self, vector: np.ndarray) -> float:
        z = float(vector @ self.weights) + self.bias
        return float(1.0 / (1.0 + np.exp(-z)))


def load_model(path: Path = MODEL_PATH) -> MeaningModel:
    import json

    with np.load(path, allow_pickle=False) as f:
        return MeaningModel(f["weights"], float(f["bias"]), json.loads(str(f["meta"])))


def save_model(path: Path, weights: np.ndarray, bias: float, meta: dict[str, Any]) -> None:
    import json

    np.savez_compressed(
        path,
        weights=weights.astype(np.float32),
        bias=np.float32(bias),
        meta=np.array(json.dumps(meta, sort_keys=True)),
    )


@lru_cache(maxsize=1)
def _model() -> MeaningModel | None:
    try:
        return load_model()
    except (OSError, KeyError, ValueError):
        return None


@lru_cache(maxsize=1)
def _embedder() -> Any:
    """The process's e5 embedder, shared with a service on default settings (same key)."""
    try:
        from graphmem.embedding.embedder import shared_embedder
        from graphmem.settings.search import EmbeddingSettings

        fields = EmbeddingSettings.model_fields
        return shared_embedder(
            EMBEDDING_MODEL,
            fields["batch_size"].default,
            fields["query_cache_size"].default,
            fields["torch_threads"].default,
            "onnx",
            "int8",
        )
    except Exception:  # noqa: BLE001 - no embedding package: the classifier decides alone
        return None


def vector(text: str) -> np.ndarray | None:
    """The passage vector the model was trained on (uncached: see the module docstring)."""
    emb = _embedder()
    if emb is None:
        return None
    with _LOCK:  # one short text; keeps two screening threads from racing the model's load
        return np.asarray(emb.encode([text])[0], dtype=np.float32)


def probability(text: str) -> float | None:
    """How likely the text is an instruction aimed at an agent, read by meaning; None when the
    model or the embedder is unavailable."""
    model = _model()
    if model is None or not text.strip():
        return None
    vec = vector(text)
    return None if vec is None else model.probability_of(vec)


__all__ = ["MODEL_PATH", "MeaningModel", "load_model", "probability", "save_model", "vector"]
