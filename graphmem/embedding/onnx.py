"""Embeddings through ONNX Runtime: the same model, exported once, without torch's per-call
overhead, for queries and for write batches.

A search embeds one short query. PyTorch's eager execution spends most of that call in operator
dispatch, and on a small machine shared with databases it suffers most from contention: measured
on 2 busy cores, one query took 79 ms with torch and 26 ms with ONNX Runtime (same process,
interleaved, same vectors to 1e-6).

Write batches go through the same session. Texts are tokenised once, sorted by token count and
cut into small batches (`BATCH`), so a batch is padded only to its own longest text; measured on
500 synthetic memories (~33 tokens) on 2 busy cores, in CPU time per text: torch 16.2 ms
(sentence-transformers, batch 64), ONNX Runtime 9.2 ms (batches of 16), 10.2 ms (32), 11.6 ms
(64); minimum cosine to torch's vectors 0.9999999. ONNX Runtime's transformer fusions
(`onnxruntime.transformers.optimizer`) were not faster here and are not used. ONNX Runtime
releases the GIL while it runs, so the service embeds a batch in a worker thread while the
calling thread extracts entities (graphmem.service).

With `precision="int8"` (the service default, Settings.embedding_precision) the export's MatMul
weights are quantised to int8 per output channel, once, beside the float export; activations are
quantised at run time. Measured on 2 quiet cores: 3.3 ms CPU per text in batches of 16 (7.9 ms
float), 2.1-3.1 ms per query (5.5-5.7 ms); cosine to the float vectors median 0.993, min
0.982 over 600 synthetic memories; LoCoMo test split recall@10 in one session: hybrid 0.686 (float
0.682), vector 0.448 (0.450). Per-tensor scales were as fast but agreed less (median 0.959).
Activations are quantised with one scale per run, so a text batched with others would get a
vector that depends on its neighbours in the batch (cosine to itself alone: median 0.992, min
0.980). The int8 model therefore embeds one text per run: a memory's vector depends on its text
only, and a query equal to a memory gets that memory's vector. That costs about a quarter more
CPU than batches of 16 (4.6 against 3.7 ms per text, measured beside another busy process).

The export runs locally from the model files already on disk (nothing is downloaded) the first
time a query is embedded, into a cache directory keyed by the model files, and is reused after
that. Only the pipeline shape all-MiniLM-L6-v2 has is exported (a transformer, mean pooling, an
optional normalisation); any other model, or any failure, keeps queries on torch.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.settings import environment

log = logging.getLogger("graphmem.embedder")


def default_cache_dir() -> Path:
    return environment.cache_home() / "graphmem" / "onnx"


def _mean_pooling_pipeline(model: Any) -> tuple[Any, bool] | None:
    """(transformer module, normalise?) if the model is transformer + mean pooling [+ norm]."""
    mods = list(model)
    if len(mods) not in (2, 3) or not hasattr(mods[0], "auto_model"):
        return None
    pool = mods[1].get_config_dict() if hasattr(mods[1], "get_config_dict") else {}
    # sentence-transformers >= 6 says pooling_mode="mean"; earlier versions set one flag
    flags = [k for k, v in pool.items() if k.startswith("pooling_mode_") and v is True]
    if pool.get("pooling_mode", "mean") != "mean" or flags not in (
        [],
        ["pooling_mode_mean_tokens"],
    ):
        return None
    if "pooling_mode" not in pool and not flags:
        return None
    if len(mods) == 3 and type(mods[2]).__name__ != "Normalize":
        return None
    return mods[0], len(mods) == 3


def _fingerprint(model_path: str) -> str:
    """Names, sizes and mtimes of the model's files: a changed model gets a new export."""
    h = hashlib.sha256()
    root = Path(model_path)
    for f in sorted(p for p in root.rglob("*") if p.is_file()):
        st = f.stat()
        h.update(f"{f.relative_to(root)}:{st.st_size}:{int(st.st_mtime)}".encode())
    return h.hexdigest()[:16]


def cpu_session(model: str | bytes, threads: int, **options: Any) -> Any:
    """An ONNX Runtime session on the CPU: `threads` intra-op threads (Settings.torch_threads:
    the server already runs requests in parallel threads, more would oversubscribe the CPU),
    one inter-op thread; `options` are further SessionOptions attributes."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = max(1, threads)
    opts.inter_op_num_threads = 1
    for name, value in options.items():
        setattr(opts, name, value)
    return ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])


BATCH = 16  # texts per session run: smallest CPU time per text of 16/32/64 (module docstring)


class OnnxQueryEncoder:
    """Mean-pooled, normalised embeddings from an exported ONNX graph (queries and batches)."""

    def __init__(
        self,
        path: Path,
        tokenizer: Any,
        max_len: int,
        normalize: bool,
        threads: int,
        batch: int = BATCH,
    ):
        self._session = cpu_session(str(path), threads)
        self._inputs = [i.name for i in self._session.get_inputs()]
        self._tokenizer = tokenizer
        # A fast tokenizer is one Rust object: two threads calling it at once (a search while a
        # batch is embedded) can fail with "Already borrowed". Tokenising is cheap; serialise it.
        self._tok_lock = threading.Lock()
        self._max_len = max_len
        self._normalize = normalize
        self._pad = int(getattr(tokenizer, "pad_token_id", None) or 0)
        self.batch = max(1, batch)

    def encode(self, texts: list[str]) -> np.ndarray:
        """One unit vector per text, in order. Texts are run in batches of similar token count
        so that padding (work on tokens that are thrown away) stays small."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        with self._tok_lock:
            enc = self._tokenizer(texts, truncation=True, max_length=self._max_len)
        ids = {k: enc[k] for k in self._inputs}
        lengths = [len(x) for x in ids["input_ids"]]
        order = sorted(range(len(texts)), key=lengths.__getitem__)
        out: np.ndarray | None = None
        for start in range(0, len(order), self.batch):
            rows = order[start : start + self.batch]
            width = lengths[rows[-1]]
            feeds = {}
            for k, seqs in ids.items():
                a = np.full((len(rows), width), self._pad if k == "input_ids" else 0, np.int64)
                for r, i in enumerate(rows):
                    a[r, : lengths[i]] = seqs[i]
                feeds[k] = a
            vecs = self._pool(self._session.run(None, feeds)[0], feeds["attention_mask"])
            if out is None:
                out = np.empty((len(texts), vecs.shape[1]), dtype=np.float32)
            out[rows] = vecs
        assert out is not None
        return out

    def _pool(self, hidden: np.ndarray, attention: np.ndarray) -> np.ndarray:
        mask = attention[..., None].astype(np.float32)
        vecs = (hidden * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
        if self._normalize:
            vecs /= np.clip(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12, None)
        return vecs.astype(np.float32)

    @classmethod
    def build(
        cls, model: Any, model_path: str, cache_dir: Path, threads: int, precision: str = "fp32"
    ) -> OnnxQueryEncoder | None:
        """Export (once), quantise (once, for precision="int8") and load; None when the model
        does not fit or anything fails."""
        shape = _mean_pooling_pipeline(model)
        if shape is None or not Path(model_path).is_dir():
            return None
        transformer, normalize = shape
        try:
            tokenizer = transformer.tokenizer
            max_len = int(model.max_seq_length or 256)
            path = cache_dir / f"{Path(model_path).name}-{_fingerprint(model_path)}.onnx"
            if not path.exists():
                _export(transformer.auto_model, tokenizer, path)
            if precision == "int8":
                # one text per run: see the module docstring (a vector must not depend on the
                # texts it happened to be batched with)
                return cls(_quantized(path), tokenizer, max_len, normalize, threads, batch=1)
            return cls(path, tokenizer, max_len, normalize, threads)
        except Exception as e:  # noqa: BLE001 - torch stays the query path, say why
            log.warning("ONNX query encoder unavailable, queries use torch: %s", e)
            return None


def _quantized(path: Path) -> Path:
    """The int8 variant of an export, made once beside it (module docstring: why and what it
    costs in accuracy). Only MatMul weights are quantised, per output channel: per-tensor
    scales cost three times more agreement with the float vectors for no speed.

    Weights use 7 of their 8 bits (`reduce_range`). ONNX Runtime multiplies uint8 activations
    by int8 weights; on an x86 CPU without AVX-512 VNNI (AVX2 only) the kernel adds pairs of
    products in 16 bits, which saturates with full-range weights, so the same text got another
    vector on another machine, and a worse one: multilingual-e5-small's Chinese tune hit@1 fell
    from 0.747 to 0.709 on an AVX2 EPYC (docs/benchmarks.md, "One vector on every CPU"). With 7-bit
    weights a pair stays within 16 bits, and that machine gives the VNNI machine's figures. The
    file name says so, so an older 8-bit file in the cache is never taken for it."""
    out = path.with_name(f"{path.stem}-r7-int8.onnx")
    if out.exists():  # before the import: the quantiser pulls in onnx, 0.5-2.5 s of a start
        return out
    from onnxruntime.quantization import QuantType, quantize_dynamic

    root = logging.getLogger()
    was, root.disabled = root.disabled, True
    try:  # the quantiser logs advice about pre-processing to the root logger; not ours
        with _written_atomically(out) as tmp:
            quantize_dynamic(
                str(path),
                tmp,
                weight_type=QuantType.QInt8,
                per_channel=True,
                reduce_range=True,
                op_types_to_quantize=["MatMul"],
            )
    finally:
        root.disabled = was
    return out


def _export(auto_model: Any, tokenizer: Any, path: Path) -> None:
    import torch

    sample = tokenizer(["a sample query", "another one"], padding=True, return_tensors="pt")
    names = [k for k in ("input_ids", "attention_mask", "token_type_ids") if k in sample]

    class Hidden(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, *args: Any) -> Any:
            return self.inner(**dict(zip(names, args, strict=True))).last_hidden_state

    with torch.no_grad(), warnings.catch_warnings(), _written_atomically(path) as tmp:
        warnings.simplefilter("ignore")  # tracer notes about shapes, harmless here
        torch.onnx.export(
            Hidden(auto_model.eval()),
            tuple(sample[k] for k in names),
            tmp,
            input_names=names,
            output_names=["last_hidden_state"],
            dynamic_axes={
                **{k: {0: "batch", 1: "tokens"} for k in names},
                "last_hidden_state": {0: "batch", 1: "tokens"},
            },
            opset_version=17,
            dynamo=False,
        )


@contextmanager
def _written_atomically(path: Path) -> Iterator[str]:
    """A temporary file beside `path` to write; it replaces `path` only if the block succeeds,
    so a concurrent process never loads a half-written model."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(suffix=".onnx.tmp", dir=path.parent)
    os.close(fd)
    try:
        yield tmp
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
