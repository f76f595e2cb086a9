"""Learned injection scorer: logistic regression over hashed n-grams of the canonical text.

The phrase rules and concept combinations (rules.py, concepts.py) catch the wordings someone
listed; held-out attacks written in fresh words got past them about half the time. A linear model
over character n-grams generalises across wordings ("the limits you started with are lifted",
"之前的约束全部取消") because it scores thousands of small fragments rather than a few phrases,
and it stays cheap, offline and inspectable:

- features: the canonical (folded) text with digits mapped to 0, hashed into `dim` buckets -
  character 1-5-grams (which also cover Chinese, where words are not space-separated) and
  Latin word uni- and bigrams. Presence only, L2-normalised, so a long text is not riskier for
  being long. Hashing is a fixed polynomial hash in numpy, identical in every process.
- model: one weight per bucket and a bias, trained by `bench/firewall_train.py` (fixed seed, data
  and splits documented there) and shipped as `injection_model.npz` (float16 weights, a few
  hundred KiB). Inference is numpy only: no model download, no torch, well under a millisecond.
- a text whose whole already scores p >= 0.05 is also scored sentence by sentence and the
  highest probability counts, so one instruction buried in an otherwise ordinary note is not
  averaged away (below that, sentences are skipped to keep a benign write at one dot product).

The probability enters the risk as one more piece of evidence (injection.py); `explain` names the
n-grams that pushed a text up, so a quarantined memory still says why.
"""

from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

MODEL_PATH = Path(__file__).with_name("injection_model.npz")
DEFAULT_DIM = 1 << 18
CHAR_NS = (1, 2, 3, 4, 5)
CHUNK_MIN_LOGIT = -2.944  # p >= 0.05
MAX_CHARS = 2000  # longer texts are scored on their sentences; the whole is cut here
_MASK64 = (1 << 64) - 1
_P = np.uint64(0x100000001B3)
_MIX = np.uint64(0x9E3779B97F4A7C15)
_SALT_WORD = np.uint64(0xA5A5A5A5)
_SALT_BIGRAM = np.uint64(0x5A5A5A5A5A)
_SHIFT = np.uint64(29)

_DIGIT_RE = re.compile(r"\d")
_SPACE_RE = re.compile(r"\s+")
_WORD_RE = re.compile(r"[a-z0_]+(?:'[a-z]+)?")
# Sentence-ish pieces: line breaks, sentence punctuation (Latin and CJK), brackets that often
# wrap an embedded instruction.
_SPLIT_RE = re.compile(r"(?<=[.!?;。！？；])\s+|[\n\r]+|(?<=[。！？；])|[\[\]【】()（）]+")
_CJK_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


_LATIN_WORD_RE = re.compile(r"[a-z]{2,}")
MIN_WORDS = 3
MIN_CJK = 6


def is_prose(text: str) -> bool:
    """Enough language for the classifier to judge (>= 3 Latin words or >= 6 CJK characters).

    Shorter strings - ids, dates, tags, "ok" - carry too few n-grams: the score would be mostly
    the bias, which is positive because attacks outnumber benign texts in training. They are
    left to the rules, which is also why metadata identifiers are never scored by the model.
    """
    return len(_LATIN_WORD_RE.findall(text)) >= MIN_WORDS or len(_CJK_RE.findall(text)) >= MIN_CJK


def is_short(text: str, words: int = 10) -> bool:
    """Fewer than `words` Latin words and fewer than twice as many CJK characters."""
    return len(_LATIN_WORD_RE.findall(text)) < words and len(_CJK_RE.findall(text)) < 2 * words


def normalise(text: str) -> str:
    """The string the features are read from: folded text, digits as 0, single spaces."""
    return _SPACE_RE.sub(" ", _DIGIT_RE.sub("0", text)).strip()[:MAX_CHARS]


def _mix(h: np.ndarray, dim: int) -> np.ndarray:
    h = h * _MIX
    h ^= h >> _SHIFT
    if dim & (dim - 1) == 0:  # a power of two: the same buckets as % dim, without a division
        return (h & np.uint64(dim - 1)).astype(np.int64)
    return (h % np.uint64(dim)).astype(np.int64)


def feature_indices(text: str, dim: int = DEFAULT_DIM) -> np.ndarray:
    """Sorted unique bucket indices of one normalised text (see `normalise`).

    The n-gram hashes are built incrementally - h_n(i) = h_(n-1)(i) * P + c(i+n-1) - so all five
    orders cost five vector operations, and everything is mixed into buckets in one pass.
    """
    s = f" {text} "
    cp = np.frombuffer(s.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    parts = []
    h = cp
    for n in CHAR_NS:
        if n > 1:
            if len(h) < 2:
                break
            h = h[:-1] * _P + cp[n - 1 :]
        parts.append(h + np.uint64(n * 0x1F3D5B79))
    words = _WORD_RE.findall(text)
    if words:
        w = np.fromiter((zlib.crc32(x.encode()) for x in words), dtype=np.uint64, count=len(words))
        parts.append(w + _SALT_WORD)
        if len(w) > 1:
            parts.append(w[:-1] * _P + w[1:] + _SALT_BIGRAM)
    if not parts:
        return np.zeros(0, dtype=np.int64)
    return np.unique(_mix(np.concatenate(parts), dim))


def chunks(text: str) -> list[str]:
    """Sentence-sized pieces worth scoring on their own (>= 4 words or >= 8 CJK characters)."""
    out = []
    for piece in _SPLIT_RE.split(text):
        p = piece.strip() if piece else ""
        if p and (len(p.split()) >= 4 or len(_CJK_RE.findall(p)) >= 8):
            out.append(p)
    return out


@dataclass(frozen=True)
class Model:
    """Weights of the linear scorer plus what produced them (for `graphmem doctor`-style checks)."""

    weights: np.ndarray  # float32, shape (dim,)
    bias: float
    dim: int
    meta: dict[str, Any]

    def logit(self, normalised: str) -> float:
        idx = feature_indices(normalised, self.dim)
        if not len(idx):
            return self.bias
        return float(self.weights[idx].sum()) / float(np.sqrt(len(idx))) + self.bias

    def probability(self, text: str) -> float:
        """P(attack) of one folded text: the max over the whole and its sentences."""
        whole = normalise(text)
        if not whole:
            return 0.0
        best = self.logit(whole)
        # Sentences are scored only when the whole already looks slightly suspicious: almost
        # every benign write stops here, which keeps the cost of one write at one logit.
        pieces = chunks(text) if len(whole) > 40 and best >= CHUNK_MIN_LOGIT else []
        if len(pieces) > 1:
            for p in pieces[:32]:
                best = max(best, self.logit(normalise(p)))
        return float(1.0 / (1.0 + np.exp(-best)))

    def explain(self, text: str, k: int = 4) -> list[str]:
        """The character n-grams of `text` with the largest positive weights (for reasons)."""
        s = f" {normalise(text)} "
        seen: dict[str, float] = {}
        for n in (4, 5):
            for i in range(len(s) - n + 1):
                g = s[i : i + n]
                if g in seen or len(g.strip()) < 3:
                    continue
                idx = feature_indices_single(g, self.dim)
                seen[g] = float(self.weights[idx])
        top = sorted(seen.items(), key=lambda kv: -kv[1])
        out: list[str] = []
        for g, w in top:
            if w <= 0 or len(out) >= k:
                break
            if not any(g.strip() in o for o in out):
                out.append(g.strip())
        return out


def feature_indices_single(gram: str, dim: int) -> int:
    """Bucket of one character n-gram, exactly as `feature_indices` hashes it (pure Python)."""
    p, mix = int(_P), int(_MIX)
    h = ord(gram[0])
    for c in gram[1:]:
        h = (h * p + ord(c)) & _MASK64
    h = (h + len(gram) * 0x1F3D5B79) & _MASK64
    h = (h * mix) & _MASK64
    h ^= h >> 29
    return h % dim


def save_model(path: Path, weights: np.ndarray, bias: float, meta: dict[str, Any]) -> None:
    """Write weights as float16 (the shipped precision) with the training summary as JSON."""
    np.savez_compressed(
        path,
        weights=weights.astype(np.float16),
        bias=np.array([bias], dtype=np.float32),
        meta=np.frombuffer(json.dumps(meta, sort_keys=True).encode(), dtype=np.uint8),
    )


def load_model(path: Path | str = MODEL_PATH) -> Model:
    with np.load(path) as z:
        w = z["weights"].astype(np.float32)
        bias = float(z["bias"][0])
        meta = json.loads(bytes(z["meta"]).decode())
    return Model(w, bias, int(w.shape[0]), meta)


@lru_cache(maxsize=1)
def default_model() -> Model | None:
    """The shipped model, loaded once; None when the file is missing (rules still run)."""
    return load_model(MODEL_PATH) if MODEL_PATH.exists() else None


__all__ = [
    "MODEL_PATH",
    "Model",
    "chunks",
    "default_model",
    "feature_indices",
    "is_prose",
    "is_short",
    "load_model",
    "normalise",
    "save_model",
]
