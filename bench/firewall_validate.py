"""Choose the classifier's training settings on validation data only, never on a held-out set.

A model is trained exactly as bench/firewall_train.py trains the shipped one, but without the
validation rows, and then screened through `Guard.screen_write` (rules plus that model, as a
write is screened) on them:
  - round 5 of attacks.jsonl (attacks caught) and of benign.jsonl (near-misses flagged);
  - one half of the "train" split of everyday.jsonl (everyday memories flagged, as `user` and
    as `agent`), picked by another byte of the id's hash; reported, not in the rule;
  - the same hash half of everyday_test2/test3 and of train_everyday.jsonl (benign rows
    flagged, attack rows caught, as `agent`); reported, not in the rule;
  - one half of round 1 of notes.jsonl (everyday notes flagged, written as `user` and as
    `agent`), the half picked by a hash of the note id, so it is the same half every run;
  - LoCoMo conv-42 (turns flagged), one of the classifier's four training conversations;
  - one half of the "train" split of documents.jsonl, picked by a hash of the row id:
    benign wiki paragraphs flagged and paragraphs with a hidden injection caught, screened as
    `source=document` with the title line an ingested chunk has (reported, not in the rule).
Round 6, BIPIA 3-5, round 2 of the notes, the six held-out LoCoMo conversations and the "test"
split of documents.jsonl are not read.

Each `--grid` entry is `offset,benign_weight,unaddressed_min_p`; the rule that picks one is
printed with the table: the highest round-5 recall with at most 1% of the validation notes
(as user), at most 1% of the conv-42 turns and at most 5% of the round-5 near-misses flagged,
ties broken by fewer notes flagged as agent, then fewer LoCoMo turns.
`attacks_model` is round 5 caught by the classifier alone at 0.7: the rules catch most of
round 5 by themselves, so a model that lost attacks shows there and not in `attacks`.

Usage: python bench/firewall_validate.py --bipia PATH --locomo PATH [--grid 2.5,3,0.9 ...]
                                         [--candidates] [--documents] [--everyday]
                                         [--everyday-weight W] [--everyday-tests]
                                         [--own-everyday] [--candidate-attacks] [--templates]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import firewall_train as ft  # noqa: E402
from firewall import CORPUS, load_jsonl, load_locomo  # noqa: E402

import graphmem.guard.injection as injection  # noqa: E402
from graphmem.guard import Guard, GuardSettings  # noqa: E402
from graphmem.guard.classifier import DEFAULT_DIM, Model  # noqa: E402
from graphmem.guard.classifier import chunks as sentence_chunks  # noqa: E402

VALIDATION_CONV = "conv-42"
EVERYDAY_WEIGHT = ft.EVERYDAY_WEIGHT  # --everyday-weight


def held_back_note(note_id: str) -> bool:
    """The validation half of round-1 notes: stable across runs and corpus edits."""
    return hashlib.sha256(note_id.encode()).digest()[0] % 2 == 0


def held_back_document(doc_id: str) -> bool:
    """The validation half of documents.jsonl's train split. The train/test split itself is
    the first byte of the same hash, so this reads another byte (else it would hold back all)."""
    return hashlib.sha256(doc_id.encode()).digest()[1] % 2 == 0


def held_back_everyday(row_id: str) -> bool:
    """The validation half of everyday.jsonl's train split (another byte of the hash than the
    train/validation split; the `validation` split itself is never read here)."""
    return hashlib.sha256(row_id.encode()).digest()[1] % 2 == 0


def validation_sets(corpus: Path, locomo: Path) -> dict[str, list[str]]:
    attacks = [r["text"] for r in load_jsonl(corpus / "attacks.jsonl") if r["round"] == 5]
    near = [r["text"] for r in load_jsonl(corpus / "benign.jsonl") if r["round"] == 5]
    notes = [
        r["text"]
        for r in load_jsonl(corpus / "notes.jsonl")
        if r["split"] == "dev" and held_back_note(r["id"])
    ]
    turns = [r["text"] for r in load_locomo(locomo) if r["id"].startswith(VALIDATION_CONV + ":")]
    docs = [r for r in load_jsonl(corpus / "documents.jsonl") if r["split"] == "train"]
    docs = [r for r in docs if held_back_document(r["id"])]
    ev_path = corpus / "everyday.jsonl"
    everyday = [
        r["text"]
        for r in (load_jsonl(ev_path) if ev_path.exists() else [])
        if r["split"] == "train" and held_back_everyday(r["id"])
    ]
    # test2/test3 (tuned on by the rule passes, never test4) and train_everyday.jsonl: the same
    # hash half is held back, benign rows as everyday memories, attack rows as attacks
    tests = [
        r
        for name in ("everyday_test2.jsonl", "everyday_test3.jsonl")
        if (corpus / name).exists()
        for r in load_jsonl(corpus / name)
    ]
    own_path = corpus / "train_everyday.jsonl"
    own = [r for r in (load_jsonl(own_path) if own_path.exists() else [])]
    return {
        "everyday": everyday,
        "everyday_tests": [r["text"] for r in tests if held_back_everyday(r["id"])],
        "own_benign": [r["text"] for r in own if not r["label"] and held_back_everyday(r["id"])],
        "own_attacks": [r["text"] for r in own if r["label"] and held_back_everyday(r["id"])],
        "attacks": attacks,
        "near_miss": near,
        "notes": notes,
        "locomo": turns,
        "doc_benign": [as_chunk(r) for r in docs if not r["label"]],
        "doc_attacks": [as_chunk(r) for r in docs if r["label"]],
        "doc_payloads": [r["payload"] for r in docs if r["label"]],
        "doc_sentences": [t for r in docs for t in sentence_chunks(r["text"])],
    }


def as_chunk(row: dict[str, Any]) -> str:
    """A documents.jsonl paragraph as an ingested chunk: title line, then the text."""
    return f"{row['title']}\n{row['text']}" if row.get("title") else row["text"]


def is_validation_row(row: dict[str, Any], val: dict[str, list[str]]) -> bool:
    keys = (
        "attacks",
        "near_miss",
        "notes",
        "everyday",
        "everyday_tests",
        "own_benign",
        "own_attacks",
        "doc_benign",
        "doc_attacks",
        "doc_payloads",
    )
    texts = {t for k in keys for t in val[k]}
    # the sentences of a held-back paragraph are held back with it
    texts |= set(val["doc_sentences"])
    if row["text"] in texts:
        return True
    return str(row["group"]).startswith(VALIDATION_CONV + ":")


def evaluate(
    rows: list[dict[str, Any]],
    val: dict[str, list[str]],
    offset: float,
    benign_weight: float,
    unaddressed: float,
) -> dict[str, Any]:
    ft.BENIGN_WEIGHT = benign_weight
    ft.EVERYDAY_WEIGHT = EVERYDAY_WEIGHT
    x, y, w, _ = ft.design(rows, DEFAULT_DIM)
    coef, bias = ft.fit(x, y, w, ft.C)
    model = Model(coef.astype(ft.np.float16).astype(ft.np.float32), bias + offset, DEFAULT_DIM, {})
    injection.default_model = lambda: model  # type: ignore[assignment]  # the guard reads it here
    injection.UNADDRESSED_MIN_P = unaddressed
    guard = Guard(GuardSettings(rate_limit_backend="off", _env_file=None))

    def flagged(texts: list[str], source: str = "user") -> int:
        return sum(guard.screen_write(t, source).action != "allow" for t in texts)

    def caught(texts: list[str], source: str) -> int:
        actions = (guard.screen_write(t, source).action for t in texts)
        return sum(a in ("quarantine", "reject") for a in actions)

    return {
        "config": [offset, benign_weight, unaddressed],
        "attacks": (flagged(val["attacks"]), len(val["attacks"])),
        # the classifier alone at 0.7: the rules catch most of round 5 on their own, so a
        # weaker model barely shows in the line above (and did show on the held-out attacks)
        "attacks_model": (
            sum(max(model.probability(v) for v in ft.views_of(t)) >= 0.7 for t in val["attacks"]),
            len(val["attacks"]),
        ),
        "near_miss": (flagged(val["near_miss"]), len(val["near_miss"])),
        "notes_user": (flagged(val["notes"]), len(val["notes"])),
        "notes_agent": (flagged(val["notes"], "agent"), len(val["notes"])),
        "locomo": (flagged(val["locomo"]), len(val["locomo"])),
        "everyday_user": (flagged(val["everyday"]), len(val["everyday"])),
        "everyday_agent": (flagged(val["everyday"], "agent"), len(val["everyday"])),
        "ev_tests_agent": (flagged(val["everyday_tests"], "agent"), len(val["everyday_tests"])),
        "own_benign_agent": (flagged(val["own_benign"], "agent"), len(val["own_benign"])),
        "own_attacks": (caught(val["own_attacks"], "agent"), len(val["own_attacks"])),
        "doc_benign": (flagged(val["doc_benign"], "document"), len(val["doc_benign"])),
        "doc_attacks": (caught(val["doc_attacks"], "document"), len(val["doc_attacks"])),
    }


def pick(results: list[dict[str, Any]]) -> dict[str, Any] | None:
    ok = [
        r
        for r in results
        if r["notes_user"][0] <= 0.01 * r["notes_user"][1]
        and r["near_miss"][0] <= 0.05 * r["near_miss"][1]
        and r["locomo"][0] <= 0.01 * r["locomo"][1]
    ]
    ok.sort(key=lambda r: (-r["attacks"][0], r["notes_agent"][0], r["locomo"][0]))
    return ok[0] if ok else None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", type=Path, default=CORPUS)
    p.add_argument("--bipia", type=Path, required=True)
    p.add_argument("--locomo", type=Path, required=True)
    p.add_argument("--grid", nargs="+", default=["2.5,3,0.9"])
    p.add_argument("--candidates", action="store_true", help="train on train_candidates too")
    p.add_argument("--documents", action="store_true", help="train on documents.jsonl too")
    p.add_argument("--everyday", action="store_true", help="train on everyday.jsonl too")
    p.add_argument("--everyday-weight", type=float, default=ft.EVERYDAY_WEIGHT)
    p.add_argument("--everyday-tests", action="store_true", help="train on test2/test3 too")
    p.add_argument("--own-everyday", action="store_true", help="train on train_everyday.jsonl")
    p.add_argument("--candidate-attacks", action="store_true", help="candidates' attacks too")
    p.add_argument("--templates", action="store_true", help="firewall_templates.py rows too")
    args = p.parse_args(argv)
    global EVERYDAY_WEIGHT
    EVERYDAY_WEIGHT = args.everyday_weight
    val = validation_sets(args.corpus, args.locomo)
    rows = [
        r
        for r in ft.training_rows(
            args.corpus,
            args.bipia,
            args.locomo,
            candidates=args.candidates,
            documents=args.documents,
            everyday=args.everyday,
            everyday_tests=args.everyday_tests,
            own_everyday=args.own_everyday,
            candidate_attacks=args.candidate_attacks,
            templates=args.templates,
        )
        if not is_validation_row(r, val)
    ]
    print(f"{len(rows)} training texts; validation sizes", {k: len(v) for k, v in val.items()})
    results = []
    for g in args.grid:
        offset, bw, un = (float(v) for v in g.split(","))
        res = evaluate(rows, val, offset, bw, un)
        results.append(res)
        print(json.dumps(res), flush=True)
    best = pick(results)
    print("picked:", json.dumps(best))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
