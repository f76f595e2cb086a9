"""Carry a cosine threshold from one embedding model to another by share.

A threshold such as `merge_similarity` (0.95) was chosen for all-MiniLM-L6-v2, whose unrelated
texts score near 0.1; multilingual-e5-small puts the same texts near 0.8, so the number itself
means nothing there. What should carry over is how often the threshold fires. On LoCoMo
conversations this measures, under each model:

- merge: each turn's nearest other turn in its conversation (a near-duplicate pair is such a
  pair); the share of turns whose neighbour reaches the threshold under the reference model
  gives the other model's threshold at the same share;
- merge, on bench/lifecycle.py's duplicate set: the share of reworded copies of a fact each
  candidate threshold catches, and the share of pairs of different facts (same person, or
  the same fact of another person) it would merge. The extreme tail of LoCoMo's neighbours
  maps punctuation-only copies badly (e5 puts "Berlin." and "Berlin!" at 0.975), so this
  is what the merge threshold is chosen on;
- forget: every (question, turn) pair of a conversation, for forget-by-query, which must
  almost never reach an unrelated turn; the same share mapping, plus the share of each
  question's evidence turns that reach it (what a forget would catch).

    python bench/thresholds.py --data ../shared/bench/locomo10.json [--conversations 4]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

REFERENCE = "all-MiniLM-L6-v2"


def _pairs(model: str, data: list[dict], conversations: int) -> dict[str, np.ndarray]:
    from graphmem.embedding import embedder_for
    from graphmem.settings import Settings

    emb = embedder_for(Settings(embedding={"model": model}))
    nn, qa, evidence = [], [], []
    for conv in data[:conversations]:
        turns, ids = [], []
        for key, session in conv["conversation"].items():
            if key.startswith("session_") and isinstance(session, list):
                turns += [f"{t['speaker']}: {t['text']}" for t in session]
                ids += [t["dia_id"] for t in session]
        vecs = emb.encode(turns)
        sims = vecs @ vecs.T
        np.fill_diagonal(sims, -1.0)
        nn += list(sims.max(axis=1))
        qs = [q for q in conv["qa"] if q.get("evidence")][:60]
        qvecs = np.stack([emb.encode_query(q["question"]) for q in qs])
        qsims = qvecs @ vecs.T
        qa += list(qsims.ravel())
        where = {d: i for i, d in enumerate(ids)}
        evidence += [
            qsims[i, where[e]] for i, q in enumerate(qs) for e in q["evidence"] if e in where
        ]
    return {"merge": np.array(nn), "forget": np.array(qa), "evidence": np.array(evidence)}


def duplicates(model: str, thresholds: list[float]) -> list[tuple[float, float, float]]:
    """(threshold, copies caught, other pairs over it) on the lifecycle duplicate set."""
    import itertools

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from lifecycle import duplicate_set

    from graphmem.embedding import shared_embedder

    items, _ = duplicate_set(20, 4, 1)
    key = [(i["metadata"]["person"], i["metadata"]["fact"]) for i in items]
    vecs = shared_embedder(model).encode([i["content"] for i in items])
    sims = vecs @ vecs.T
    same, other = [], []
    for a, b in itertools.combinations(range(len(items)), 2):
        if key[a] == key[b]:
            same.append(sims[a, b])
        elif key[a][0] == key[b][0] or key[a][1] == key[b][1]:
            other.append(sims[a, b])
    s, o = np.array(same), np.array(other)
    return [(t, float((s >= t).mean()), float((o >= t).mean())) for t in thresholds]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, required=True, help="locomo10.json")
    p.add_argument("--models", default="multilingual-e5-small")
    p.add_argument("--conversations", type=int, default=4)
    p.add_argument("--merge", type=float, default=0.95, help="the reference model's merge")
    p.add_argument("--forget", type=float, default=0.75, help="... and forget threshold")
    a = p.parse_args()
    data = json.loads(a.data.read_text("utf-8"))
    ref = _pairs(REFERENCE, data, a.conversations)
    share = {k: float((ref[k] >= getattr(a, k)).mean()) for k in ("merge", "forget")}
    print(
        f"{REFERENCE}: merge {a.merge} fires on {share['merge']:.4%} of turns,"
        f" forget {a.forget} on {share['forget']:.4%} of (question, turn) pairs,"
        f" {(ref['evidence'] >= a.forget).mean():.1%} of evidence turns"
    )
    for model in [REFERENCE, *a.models.split(",")]:
        grid = [a.merge] if model == REFERENCE else [0.95, 0.955, 0.96, 0.965, 0.97, 0.975, 0.985]
        for t, caught, wrong in duplicates(model, grid):
            print(f"{model}: merge at {t}: {caught:.1%} of copies, {wrong:.3%} of other pairs")
    for model in a.models.split(","):
        got = _pairs(model, data, a.conversations)
        merge = float(np.quantile(got["merge"], 1 - share["merge"]))
        forget = float(np.quantile(got["forget"], 1 - share["forget"]))
        print(
            f"{model}: merge {merge:.3f}, forget {forget:.3f}"
            f" ({(got['evidence'] >= forget).mean():.1%} of evidence turns)"
        )


if __name__ == "__main__":
    main()
