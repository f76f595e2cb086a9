"""Train the firewall's second reading: a logistic regression over multilingual-e5-small vectors.

graphmem/guard/second_reading.py explains why it exists: when the n-gram classifier alone would
hold a write, this reading by meaning is asked, and below MEANING_MIN_P (injection.py) the write
is stored. This script fits it and writes graphmem/guard/meaning_model.npz.

Data: the n-gram classifier's training rows (bench/firewall_train.py: attack and benign rounds
1-5, BIPIA 1-2, train_extra, LoCoMo conv-26/30/41/42 turns and sentences) plus the everyday
memories the rule passes were tuned on (everyday.jsonl's train half, everyday_test2/test3),
train_everyday.jsonl and the 103 attacks of train_candidates.jsonl. `--spent` adds the spent
frozen splits (everyday_test4, everyday_test5, attacks_test5), `--contrastive` adds
train_everyday2.jsonl (707 of the user's own rules and mentions against 360 attacks in the same
frames); neither is in the shipped model. Never read: everyday.jsonl's validation half,
everyday_test6/test7 and attacks_test6/test7, round 6, BIPIA 3-5, the six held-out LoCoMo
conversations, notes round 2.

The seventh pass chose among four data sets declared before any run (shipped, + spent, +
contrastive, + both) by one rule: held-out attacks not below the shipped model's in the same
run, then fewest everyday rows held. With the embedder's int8 weights in 7 bits (the same vectors
on every CPU) only the shipped data keeps 232/245; + contrastive 231 (test4 16 -> 15, test5 31
-> 29, neither trained on), + both 231, + spent 229 (docs/benchmarks.md, "Seventh pass"). The
shipped weights were refitted on the 7-bit vectors.

The threshold (MEANING_MIN_P = 0.5) was chosen with test4 held out: of the held-out attacks only
the n-gram classifier caught, 74 of 75 read >= 0.5; of test4's rows it held alone, 5 of 15 read
below (at 0.7: 11 of 15, but 10 attacks lost). The data was chosen the same way, among three
sets, on test4 and the held-out attacks (docs/benchmarks.md): with train_candidates' attacks,
test4 17/304 and 234/245 attacks; without them 18/304 and 233/245; with firewall_templates.py's
rows 13/304 but 231/245. Asking it also when only weak rules fire beside the classifier gave
16/304 and 232/245, so it is asked only when the classifier is alone. Adding test4 itself to
the data (`--with-test4`) lost a held-out attack (233/245), so the shipped model does not train
on it. Embedding ~15k texts takes a few minutes on two cores; vectors are cached under
~/.cache/graphmem/bench.

Usage: python bench/firewall_meaning.py [--check] [--spent] [--contrastive] [--out PATH]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent))
from firewall import load_jsonl  # noqa: E402
from firewall_train import data_arguments, data_digest, missing_data, training_rows  # noqa: E402

from graphmem.guard.second_reading import (  # noqa: E402
    EMBEDDING_MODEL,
    MODEL_PATH,
    load_model,
    save_model,
    vector,
)

C = 10.0
KIND_WEIGHT = {"everyday": 3.0, "aux_sentence": 0.5}
CACHE = Path.home() / ".cache" / "graphmem" / "bench" / "meaning_vectors.npz"


def rows_for(
    corpus: Path,
    bipia: Path,
    locomo: Path,
    with_test4: bool,
    spent: bool = False,
    contrastive: bool = False,
) -> list[dict[str, Any]]:
    rows = training_rows(
        corpus, bipia, locomo, everyday=True, everyday_tests=True, own_everyday=True
    )
    rows += [
        {"text": r["text"], "label": 1, "group": r["family"], "kind": "extra_attack"}
        for r in load_jsonl(corpus / "train_candidates.jsonl")
        if r["label"]
    ]
    if with_test4 or spent:
        rows += everyday_rows(corpus / "everyday_test4.jsonl")
    if spent:
        # the sixth frozen split, spent: scored five times, then tuned on by the seventh pass
        rows += everyday_rows(corpus / "everyday_test5.jsonl")
        rows += [
            {"text": r["text"], "label": 1, "group": r["family"], "kind": "extra_attack"}
            for r in load_jsonl(corpus / "attacks_test5.jsonl")
        ]
    if contrastive:
        rows += [
            {
                "text": r["text"],
                "label": r["label"],
                "group": r["family"],
                "kind": "extra_attack" if r["label"] else "everyday",
            }
            for r in load_jsonl(corpus / "train_everyday2.jsonl")
        ]
    return rows


def everyday_rows(path: Path) -> list[dict[str, Any]]:
    """An everyday split's memories as benign training rows."""
    return [
        {"text": r["text"], "label": 0, "group": r["id"], "kind": "everyday"}
        for r in load_jsonl(path)
    ]


# The embedder's fingerprint: the vector of a fixed text. A change in how vectors are computed
# (the int8 weights in 7 bits, a new graph) changes it, and with it every cache key, so a model
# is never fitted on vectors of an embedder the firewall no longer runs.
_PROBE = "graphmem second reading: the embedder's fingerprint / 指纹"


def _fingerprint() -> str:
    probe = vector(_PROBE)
    if probe is None:
        raise SystemExit("the multilingual-e5-small embedder is not available")
    return hashlib.sha256(np.asarray(probe, dtype=np.float32).tobytes()).hexdigest()[:16]


def vectors(texts: list[str]) -> np.ndarray:
    """One vector per text, cached by the text's hash and the embedder's fingerprint."""
    cache: dict[str, np.ndarray] = {}
    if CACHE.exists():
        with np.load(CACHE) as f:
            cache = dict(zip(f["keys"].tolist(), f["vectors"], strict=True))
    fp = _fingerprint()
    keys = [fp + hashlib.sha256(t.encode()).hexdigest() for t in texts]
    todo = [(k, t) for k, t in dict(zip(keys, texts, strict=True)).items() if k not in cache]
    for k, t in tqdm(todo, desc="embedding", unit="text", disable=not todo):
        vec = vector(t)
        if vec is None:
            raise SystemExit("the multilingual-e5-small embedder is not available")
        cache[k] = vec
    if todo:
        cache = {k: v for k, v in cache.items() if k.startswith(fp)}  # an old embedder's: gone
        CACHE.parent.mkdir(parents=True, exist_ok=True)
        np.savez(CACHE, keys=np.array(list(cache)), vectors=np.stack(list(cache.values())))
    return np.stack([cache[k] for k in keys])


def fit(rows: list[dict[str, Any]]) -> tuple[np.ndarray, float, dict[str, Any]]:
    from sklearn.linear_model import LogisticRegression

    x = vectors([r["text"] for r in rows])
    y = np.array([r["label"] for r in rows])
    w = np.array([KIND_WEIGHT.get(r["kind"], 1.0) for r in rows])
    model = LogisticRegression(C=C, max_iter=5000, class_weight="balanced")
    model.fit(x, y, sample_weight=w)
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["kind"]] = counts.get(r["kind"], 0) + 1
    meta = {
        "version": 1,
        "embedding_model": EMBEDDING_MODEL,
        "C": C,
        "kind_weight": KIND_WEIGHT,
        "train_counts": counts,
        "train_digest": data_digest(rows),
        "trainer": "bench/firewall_meaning.py (scikit-learn lbfgs logistic regression)",
    }
    return model.coef_[0].astype(np.float32), float(model.intercept_[0]), meta


def main(argv: list[str] | None = None) -> int:
    p = data_arguments(__doc__, MODEL_PATH)
    p.add_argument(
        "--with-test4", action="store_true", help="also train on everyday_test4 (not shipped)"
    )
    p.add_argument(
        "--spent",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="also train on the spent frozen splits: everyday_test4, everyday_test5,"
        " attacks_test5 (tried, not shipped)",
    )
    p.add_argument(
        "--contrastive",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="also train on train_everyday2.jsonl, the user's own rules against attacks in the"
        " same frames (tried, not shipped)",
    )
    args = p.parse_args(argv)
    if missing_data(args):
        return 2
    rows = rows_for(
        args.corpus, args.bipia, args.locomo, args.with_test4, args.spent, args.contrastive
    )
    print(f"{len(rows)} training texts", file=sys.stderr)
    weights, bias, meta = fit(rows)
    if args.check:
        shipped = load_model(args.out)
        diff = float(np.abs(shipped.weights - weights).max())
        same = diff <= 1e-3 and abs(shipped.bias - bias) <= 1e-3
        print(json.dumps({"max_weight_diff": diff, "same": same}))
        return 0 if same else 1
    save_model(args.out, weights, bias, meta)
    print(json.dumps(meta, indent=1))
    print(f"wrote {args.out} ({args.out.stat().st_size / 1024:.1f} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
