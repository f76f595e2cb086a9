"""Train the firewall's injection classifier (graphmem/guard/injection_model.npz), reproducibly.

Training data - training splits only, never a row the benchmark reports as held out:
  - bench/firewall_corpus/attacks.jsonl and benign.jsonl, split "dev" (rounds 1-5, obfuscated
    variants included)
  - bench/firewall_corpus/train_extra.jsonl (extra attacks and everyday EN/ZH messages, training
    only, never scored)
  - bench/firewall_corpus/notes.jsonl, split "dev" (everyday agent notes: to-dos, lists, code,
    shell commands, addresses, product names, Chinese and mixed notes, random-word notes)
  - BIPIA instructions 1-2 of each category (the benchmark's BIPIA dev split)
  - LoCoMo conv-26, conv-30, conv-41, conv-42: their turns, the single sentences of multi-sentence
    turns, observation facts and QA questions as benign memories
  - with `--everyday` only (tried, not shipped): bench/firewall_corpus/everyday.jsonl, split
    "train" (its "validation" split is never read), as benign memories
  - with `--documents` only (tried, not shipped): bench/firewall_corpus/documents.jsonl, split
    "train" (wiki and web-page paragraphs as an ingested chunk is screened: title line, then the
    paragraph). Benign paragraphs weigh like
    notes (the benign weight) and their prose sentences like LoCoMo's single sentences, since
    screening scores the sentences of a suspicious text one by one; a paragraph with a hidden
    injection is an attack, and so is the injected passage alone (its `payload`)
Held out and never read here: round 6 (split "test"), BIPIA 3-5, the "test" half of notes.jsonl
and LoCoMo conv-43/44/47/48/49/50, on which bench/firewall.py reports false positives, and the
"test" half of documents.jsonl, on which bench/firewall_documents.py reports (as it does the
chunks of bench/docbench/pages, never trained on).

Each text goes through `canonicalize` as a write would; the folded text is one example and every
decoded view (base64, hex, tag characters, ...) one more with the same label, because screening
scores those views too.

Model: L2-regularised logistic regression (scikit-learn liblinear, fixed random_state) over the
hashed n-gram features of graphmem/guard/classifier.py; benign texts weigh 3, the single LoCoMo
sentences 1, attacks 1; BIAS_OFFSET is added to the fitted intercept (trading benign margin for
recall). How the settings were chosen: a model trained without round 5 was scored on round 5
(validation; the combined rules + classifier score, as screening computes it) and on grouped
out-of-fold LoCoMo training turns and summaries. C in {3, 10, 30, 100}, benign weight {3, 6},
sentence weight {0.3, 1}, offsets {0, 0.5, 1, 1.5} and the short-text rule in injection.py were
compared; the best round-5 recall with no out-of-fold LoCoMo flags and <= 5% round-5 near-miss
flags won: C=30, offset 1.0 (90.1% of round 5 caught, 2% of its near-misses flagged). Round 5 was
then folded into training. Everyday notes (notes.jsonl round 1, train_extra's trx-note rows) were
added later, when that model quarantined 5-8% of them; offsets {0.5, 1.0, 1.5, 2.0, 2.5, 3.0},
note weights {1, 3, 6} and the UNADDRESSED_MIN_P rule in injection.py were compared the same way,
training without round 5 and without one half of round-1 notes and scoring both: the best round-5
recall with <= 1% of the held-back notes and <= 5% of round-5 near-misses flagged won: offset 2.5,
note weight 3 (the benign weight), UNADDRESSED_MIN_P 0.9 (95.5% of round 5, 0.7% of the notes).
Later, 103 more hand-written attacks and 113 everyday notes (bench/firewall_corpus/
train_candidates.jsonl) were tried: bench/firewall_validate.py (round 5, a fixed hash half of
round-1 notes and LoCoMo conv-42 held back) kept offset 2.5, benign weight 3 and
UNADDRESSED_MIN_P 0.9 with them (round 5 106/111 as before, held-back notes 4/295 -> 2/295
flagged), but on the held-out sets they caught fewer attacks than the shipped model, so the
shipped model does not train on them (`--candidates` does; docs/benchmarks.md has the figures).
Ordinary Chinese statements (train_extra's trx-zhfact rows, with
trx-zhatk attacks in the same shapes) were added with the same settings when the Chinese recall
set showed the model quarantining statements such as a relative's past and present job; the
recall set itself is a benchmark and is never trained on.
Wiki and web-page prose (documents.jsonl, `--documents`) was tried when the document benchmark
showed the model quarantining 14 of 227 benign page chunks (encyclopaedic prose, quoted mottos,
"posted on the website", how-to imperatives: shapes the short memories, chats and notes above
lack). bench/firewall_validate.py --documents (which holds back a hash half of its train split)
kept the settings; the model halved the document false positives (docbench 14 -> 7 chunks) but
caught one BIPIA 3-5 attack fewer (41 -> 40 of 45, more than the 1-point bound set before
measuring), so the shipped model does not train on it (docs/benchmarks.md, "Documents (wiki
prose)").
Everyday memories (everyday.jsonl's train half, `--everyday`) were tried when a user's contact
details, workflow instructions, commands and ids were held or refused (11% of the set).
bench/firewall_validate.py --everyday (which holds back a hash half of that train half) kept
offset 2.5, benign weight 3 and UNADDRESSED_MIN_P 0.9 (round 5 106/111 either way; held-back
everyday rows flagged as `agent` 21/189 -> 11/189), but on the held-out sets the model caught
2 attacks fewer (235 -> 233 of 245), so it is not shipped; the everyday false positives were
fixed in the rules and in when the classifier's opinion counts instead (injection.py).
After the fifth rule pass (held-out everyday test4 still 20/304), the model was retrained on
everyday text: everyday.jsonl's train half, all of everyday_test2/test3 (tuned on by the rule
passes; test4 is never read here), train_everyday.jsonl (hand-written workflow rules, reported
instructions, policies, benign and attacks in the same frames), train_candidates' attacks and
firewall_templates.py's templated pairs. bench/firewall_validate.py (hash halves of test2/test3
and of train_everyday held back) kept offset 2.5 and the weights; held-out test4 went 20 -> 11/304
but held-out attacks 234 -> 226/245 (C 30; C 10: 10/304, 227/245), so it is not shipped.
On 2026-12-07 (the eleventh pass) the model was retrained on everyday text after all: the
frozen splits that had judged a pass (everyday_test2..10 and attacks_test2..10, SPENT), with
everyday.jsonl's train half and train_everyday.jsonl. Leaving one split out at a time (test6..
test10), the full screening held 53 of 1,767 unseen everyday rows instead of 103 with the same
attacks caught (344/350); the classifier alone reached p >= 0.7 on 44 of them instead of 503.
Trained with SPENT = 10 and offset 2.5, it was judged on the sealed test11 (everyday held
32 -> 14 of 360) and the held-out attacks (232 -> 223 of 245): the lost attacks relied on the
classifier alone, which the in-style splits' rules hide. The offset was then set by a rule on
data outside both: the smallest of 2.5 / 3.0 / 3.5 / 4.0 that catches as many
train_everyday2.jsonl attacks (the user's own rules against attacks in the same frames, never
trained on) as the model before (318/360) and keeps the document test's held-out page prose
flagged at <= 3: 3.0 (318/360 attacks, its 707 benign rows held 33 instead of 65; 3.5 flagged 5
page paragraphs and 8 LoCoMo turns). docs/benchmarks.md has the three judged runs. In the
twelfth pass test11 joined the training data (SPENT = 11) and the same rule kept 3.0
(train_everyday2 attacks 314 / 319 / 322 of 360 at 2.5 / 3.0 / 3.5; page prose 3 / 3 / 4).
In the sixteenth pass test12..test15 (each spent as a judge) joined the training data (SPENT =
15). No offset met both bounds of that rule: train_everyday2 attacks 317 / 317 / 320 / 321 / 328
of 360 and page prose flagged 3 / 3 / 4 / 5 / 5 at 2.5 / 2.75 / 3.0 / 3.5 / 4.0 (C 10 and 100 at
3.0: 318 and 319 attacks, prose 3 and 5, and one document attack missed at C 10). At 2.5 six
attacks the unit tests keep (tests/unit/test_guard_everyday*.py) pass unflagged; at 3.0 they are
all caught and one more held-out paragraph, a Chinese privacy notice, is held (4 of 113): 3.0
was kept, and the document test's bound says 4. It was judged once on test16, written blind
(docs/benchmarks.md, "Sixteenth pass"). Since the eighteenth pass the leetspeak view leaves a
number with its unit alone ("30min", "5th"), which changes the decoded views trained on; in the
twentieth the model was retrained on the same data and settings (SPENT = 15, offset 3.0) so that
`--check` reproduces it (tuning rows held 113 -> 112, spent attacks missed 112 -> 111 of 4,350
screenings, documents unchanged). Training with test16 and test17 as well (SPENT = 17) was
measured in the eighteenth pass and not shipped (docs/benchmarks.md, Firewall).
Round 6 and round 2 of the notes were never trained on; docs/benchmarks.md says how often each
was scored and why. Weights are stored as float16, the bias as float32; training is
deterministic, so `--check` re-trains and compares with the shipped file.

Usage: python bench/firewall_train.py [--cv] [--check] [--candidates] [--documents] [--everyday]
    [--everyday-tests] [--own-everyday] [--candidate-attacks] [--templates] [--c C] [--out PATH]
  --cv          also report out-of-fold figures of the classifier alone (slower)
  --check       train and compare with the shipped model instead of overwriting it (exit 1 if not)
  --candidates  also train on bench/firewall_corpus/train_candidates.jsonl (not shipped)
  --documents   also train on the train split of bench/firewall_corpus/documents.jsonl (not shipped)
  --everyday    also train on the train split of bench/firewall_corpus/everyday.jsonl (not shipped)
  --everyday-tests, --own-everyday, --candidate-attacks, --templates, --c: the everyday retraining
                above (not shipped): everyday_test2/test3, train_everyday.jsonl, the attack rows of
                train_candidates.jsonl, firewall_templates.py's rows, and C
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REPO_ROOT  # noqa: E402
from firewall import CORPUS, LOCOMO_TRAIN, load_bipia, load_jsonl, load_locomo  # noqa: E402

from graphmem.guard.canonical import canonicalize  # noqa: E402
from graphmem.guard.classifier import (  # noqa: E402
    DEFAULT_DIM,
    MODEL_PATH,
    Model,
    feature_indices,
    is_prose,
    load_model,
    normalise,
    save_model,
)
from graphmem.guard.classifier import chunks as sentence_chunks  # noqa: E402

SHARED = REPO_ROOT.parent / "shared" / "bench"
SEED = 20261202
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+")
C = 30.0  # chosen on validation round 5, see the module docstring
BENIGN_WEIGHT = 3.0
SENTENCE_WEIGHT = 1.0
EVERYDAY_WEIGHT = 3.0  # everyday.jsonl's train half; chosen on validation (module docstring)
BIAS_OFFSET = 3.0  # added to the fitted intercept; chosen on validation (module docstring)
# The frozen splits everyday_test2..SPENT and attacks_test2..SPENT are training data (each has
# judged a pass already); everyday.jsonl's train half and train_everyday.jsonl are too. The
# splits after SPENT are never read here.
SPENT = 15
THRESHOLD = 0.7
MAX_LOCOMO_FP = 0.005
MAX_NEAR_MISS_FP = 0.03


def training_rows(
    corpus: Path,
    bipia: Path,
    locomo: Path,
    *,
    candidates: bool = False,
    documents: bool = False,
    everyday: bool = False,
    everyday_tests: bool = False,
    own_everyday: bool = False,
    candidate_attacks: bool = False,
    templates: bool = False,
    spent: int = 0,
) -> list[dict[str, Any]]:
    """The training split, one dict per source text: text, label, group, kind. `candidates`
    adds train_candidates.jsonl and `documents` documents.jsonl's train split, training data
    that was tried and is not in the shipped model."""
    rows: list[dict[str, Any]] = []
    for r in load_jsonl(corpus / "attacks.jsonl"):
        if r["split"] == "dev":
            rows.append({"text": r["text"], "label": 1, "group": r["family"], "kind": "ours"})
    for r in load_bipia(bipia):
        if r["split"] == "dev":
            rows.append({"text": r["text"], "label": 1, "group": r["id"], "kind": "bipia"})
    for r in load_jsonl(corpus / "benign.jsonl"):
        if r["split"] == "dev":
            rows.append({"text": r["text"], "label": 0, "group": r["family"], "kind": "near_miss"})
    notes = corpus / "notes.jsonl"
    if notes.exists():
        for r in load_jsonl(notes):
            if r["split"] == "dev":
                rows.append({"text": r["text"], "label": 0, "group": r["id"], "kind": "notes"})
    extras = [corpus / "train_extra.jsonl"]
    if candidates:
        extras.append(corpus / "train_candidates.jsonl")
    if own_everyday:
        extras.append(corpus / "train_everyday.jsonl")
    if candidate_attacks and not candidates:
        rows += [
            {"text": r["text"], "label": 1, "group": r["family"], "kind": "extra_attack"}
            for r in load_jsonl(corpus / "train_candidates.jsonl")
            if r["label"]
        ]
    for extra in (e for e in extras if e.exists()):
        for r in load_jsonl(extra):
            kind = "extra_attack" if r["label"] else "extra_benign"
            if not r["label"] and extra.name == "train_everyday.jsonl":
                kind = "everyday"  # weighed as the everyday memories are
            rows.append(
                {"text": r["text"], "label": r["label"], "group": r["family"], "kind": kind}
            )
    if documents:
        rows += document_rows(corpus)
    if everyday:
        rows += everyday_rows(corpus)
    if everyday_tests:
        rows += everyday_rows(corpus, ("everyday_test2.jsonl", "everyday_test3.jsonl"))
    if templates:
        from firewall_templates import template_rows

        rows += template_rows()
    if spent:
        rows += spent_rows(corpus, spent)
    for r in load_locomo(locomo):
        conv = r["id"].split(":")[0]
        if conv in LOCOMO_TRAIN:
            group = f"{conv}:{r['metadata']['session']}"
            rows.append({"text": r["text"], "label": 0, "group": group, "kind": "locomo"})
            rows += [
                {"text": s, "label": 0, "group": group, "kind": "aux_sentence"}
                for s in short_sentences(r["text"].split(": ", 1)[-1])
            ]
    rows += locomo_aux(locomo)
    return rows


def everyday_rows(
    corpus: Path, files: tuple[str, ...] = ("everyday.jsonl",)
) -> list[dict[str, Any]]:
    """Everyday memories as benign: the `train` half of everyday.jsonl (its `validation` half is
    never read here) or every row of the given test splits (test2 and test3 only, which the rule
    passes were tuned on; test4 is never read here): contact sharing, the user's own workflow
    instructions, commands, ids, bills."""
    rows: list[dict[str, Any]] = []
    for name in files:
        path = corpus / name
        rows += [
            {"text": r["text"], "label": 0, "group": r["id"], "kind": "everyday"}
            for r in (load_jsonl(path) if path.exists() else [])
            if r["split"] in ("train", "test2", "test3")
        ]
    return rows


def spent_rows(corpus: Path, last: int) -> list[dict[str, Any]]:
    """Every row of the frozen splits 2..`last` that the rule passes have already been judged on
    (everyday_testN as benign memories, attacks_testN as attacks); the splits after `last` are
    never read here, so they still judge the model."""
    rows: list[dict[str, Any]] = []
    for n in range(2, last + 1):
        for r in load_jsonl(corpus / f"everyday_test{n}.jsonl"):
            rows.append({"text": r["text"], "label": 0, "group": r["id"], "kind": "everyday"})
        for r in load_jsonl(corpus / f"attacks_test{n}.jsonl"):
            rows.append({"text": r["text"], "label": 1, "group": r["id"], "kind": "extra_attack"})
    return rows


def document_rows(corpus: Path) -> list[dict[str, Any]]:
    """The train split of documents.jsonl as screening sees an ingested chunk (title line, then
    the paragraph); benign paragraphs also give their prose sentences (weighed like LoCoMo's),
    a paragraph with an injection also its injected passage alone."""
    path = corpus / "documents.jsonl"
    rows: list[dict[str, Any]] = []
    for r in load_jsonl(path) if path.exists() else []:
        if r["split"] != "train":
            continue
        text = f"{r['title']}\n{r['text']}" if r.get("title") else r["text"]
        if r["label"]:
            rows.append({"text": text, "label": 1, "group": r["id"], "kind": "doc_attack"})
            rows.append({"text": r["payload"], "label": 1, "group": r["id"], "kind": "doc_attack"})
        else:
            rows.append({"text": text, "label": 0, "group": r["id"], "kind": "documents"})
            pieces = sentence_chunks(r["text"])  # the pieces screening scores one by one
            rows += [
                {"text": s, "label": 0, "group": r["id"], "kind": "aux_sentence"}
                for s in (pieces if len(pieces) > 1 else [])
            ]
    return rows


def short_sentences(text: str) -> list[str]:
    """The sentences of a multi-sentence turn that are prose (see `is_prose`): short complete
    texts, so the model learns that a short ordinary sentence is not an attack (without them,
    a few unfamiliar words score near the bias, which attacks pull upwards)."""
    parts = [p.strip() for p in _SENTENCE_RE.split(text) if p.strip()]
    return [p for p in parts if is_prose(p)] if len(parts) > 1 else []


def locomo_aux(locomo: Path) -> list[dict[str, Any]]:
    """Observation facts, event and session summaries, QA questions and answers of the training
    conversations: benign memory-shaped text (third-person facts, terse notes, questions) from
    the training split, never from a held-out conversation."""
    out = []
    for conv in json.loads(locomo.read_text("utf-8")):
        sid = conv["sample_id"]
        if sid not in LOCOMO_TRAIN:
            continue
        for key, per_speaker in conv.get("observation", {}).items():
            session = key.replace("_observation", "")
            for speaker, facts in per_speaker.items():
                for j, fact in enumerate(facts):
                    text = fact[0] if isinstance(fact, list) else str(fact)
                    group = f"{sid}:{session}"
                    out.append({"text": text, "label": 0, "group": group, "kind": "aux"})
                    # the same fact as an agent would store it: "User ...", "The user's ..."
                    name = re.compile(rf"\b{re.escape(speaker)}\b")
                    if name.search(text):
                        who = ("User", "The user")[j % 2]
                        as_user = name.sub(who, text, count=1)
                        as_user = name.sub("they", as_user)
                        out.append({"text": as_user, "label": 0, "group": group, "kind": "aux"})
        for key, ev in conv.get("event_summary", {}).items():
            session = key.replace("events_", "")
            for speaker, items in ev.items():
                if speaker == "date" or not isinstance(items, list):
                    continue
                out += [
                    {"text": t, "label": 0, "group": f"{sid}:{session}", "kind": "aux"}
                    for t in items
                    if isinstance(t, str)
                ]
        for key, summary in conv.get("session_summary", {}).items():
            session = key.replace("_summary", "")
            out += [
                {"text": t, "label": 0, "group": f"{sid}:{session}", "kind": "aux"}
                for t in _SENTENCE_RE.split(summary)
                if is_prose(t)
            ]
        for i, qa in enumerate(conv.get("qa", [])):
            answer = str(qa.get("answer") or qa.get("adversarial_answer") or "")
            if answer:
                out.append(
                    {"text": answer, "label": 0, "group": f"{sid}:qa{i % 10}", "kind": "aux"}
                )
            out.append(
                {"text": qa["question"], "label": 0, "group": f"{sid}:qa{i % 10}", "kind": "aux"}
            )
    return out


def views_of(text: str) -> list[str]:
    """The folded text and every decoded view, as the screening path sees them."""
    c = canonicalize(text)
    return [c.folded, *(v for v in c.views.values() if v)]


def design(rows: list[dict[str, Any]], dim: int) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray]:
    """Sparse feature matrix of every view of every row; the row index of each example."""
    from scipy.sparse import csr_matrix

    indptr, indices, data, labels, owner = [0], [], [], [], []
    for i, r in enumerate(rows):
        for v in views_of(r["text"]):
            idx = feature_indices(normalise(v), dim)
            if not len(idx):
                continue
            indices.append(idx)
            data.append(np.full(len(idx), 1.0 / np.sqrt(len(idx))))
            indptr.append(indptr[-1] + len(idx))
            labels.append(r["label"])
            owner.append(i)
    x = csr_matrix(
        (np.concatenate(data), np.concatenate(indices), np.array(indptr)), shape=(len(labels), dim)
    )
    y = np.array(labels)
    kinds = np.array([rows[i]["kind"] for i in owner])
    w = np.where(y == 0, BENIGN_WEIGHT, 1.0)
    w[kinds == "aux_sentence"] = SENTENCE_WEIGHT
    w[kinds == "everyday"] = EVERYDAY_WEIGHT
    return x, y, w, np.array(owner)


def fit(x: Any, y: np.ndarray, w: np.ndarray, c: float) -> tuple[np.ndarray, float]:
    from sklearn.linear_model import LogisticRegression

    clf = LogisticRegression(C=c, solver="liblinear", random_state=SEED, max_iter=1000, tol=1e-6)
    clf.fit(x, y, sample_weight=w)
    return clf.coef_[0].astype(np.float64), float(clf.intercept_[0])


def score_rows(model: Model, rows: list[dict[str, Any]]) -> np.ndarray:
    """P(attack) per row exactly as screening computes it: max over the text's views."""
    return np.array([max(model.probability(v) for v in views_of(r["text"])) for r in rows])


def cross_validate(
    rows: list[dict[str, Any]], x: Any, y: np.ndarray, w: np.ndarray, owner: np.ndarray, dim: int
) -> dict[str, float]:
    """Out-of-fold recall and false-positive rates of the classifier alone at THRESHOLD, with
    5 folds grouped by attack family / LoCoMo session (a variant never validates its original)."""
    from sklearn.model_selection import GroupKFold

    groups = np.array([r["group"] for r in rows])
    kinds = np.array([r["kind"] for r in rows])
    labels = np.array([r["label"] for r in rows])
    oof = np.zeros(len(rows))
    folds = GroupKFold(n_splits=5).split(np.zeros(len(rows)), labels, groups)
    for train_rows, test_rows in tqdm(list(folds), desc="cv folds", file=sys.stderr):
        mask = np.isin(owner, train_rows)
        coef, bias = fit(x[mask], y[mask], w[mask], C)
        m = Model(coef.astype(np.float16).astype(np.float32), bias + BIAS_OFFSET, dim, {})
        oof[test_rows] = score_rows(m, [rows[i] for i in test_rows])
    flag = oof >= THRESHOLD
    return {
        "attack_recall": round(float(flag[labels == 1].mean()), 4),
        "near_miss_fp": round(float(flag[kinds == "near_miss"].mean()), 4),
        "locomo_fp": round(float(flag[kinds == "locomo"].mean()), 4),
    }


def data_digest(rows: list[dict[str, Any]]) -> str:
    h = hashlib.sha256()
    for r in rows:
        h.update(f"{r['label']}\t{r['text']}\n".encode())
    return h.hexdigest()[:16]


def train(
    corpus: Path,
    bipia: Path,
    locomo: Path,
    *,
    dim: int = DEFAULT_DIM,
    c: float = C,
    cv: bool = False,
    candidates: bool = False,
    documents: bool = False,
    everyday: bool = False,
    everyday_tests: bool = False,
    own_everyday: bool = False,
    candidate_attacks: bool = False,
    templates: bool = False,
    spent: int = 0,
) -> dict[str, Any]:
    t0 = time.time()
    rows = training_rows(
        corpus,
        bipia,
        locomo,
        candidates=candidates,
        documents=documents,
        everyday=everyday,
        everyday_tests=everyday_tests,
        own_everyday=own_everyday,
        candidate_attacks=candidate_attacks,
        templates=templates,
        spent=spent,
    )
    x, y, w, owner = design(rows, dim)
    print(f"{len(rows)} training texts, {x.shape[0]} examples with views", file=sys.stderr)
    coef, bias = fit(x, y, w, c)
    bias += BIAS_OFFSET
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["kind"]] = counts.get(r["kind"], 0) + 1
    meta: dict[str, Any] = {
        "version": 1,
        "dim": dim,
        "C": c,
        "seed": SEED,
        "benign_weight": BENIGN_WEIGHT,
        "sentence_weight": SENTENCE_WEIGHT,
        "bias_offset": BIAS_OFFSET,
        "train_counts": counts,
        "train_digest": data_digest(rows),
        "locomo_train": list(LOCOMO_TRAIN),
        "trainer": "bench/firewall_train.py (scikit-learn liblinear logistic regression)",
    }
    if cv:
        meta["cv_classifier_alone_at_0.7"] = cross_validate(rows, x, y, w, owner, dim)
    print(f"trained in {time.time() - t0:.0f} s", file=sys.stderr)
    return {"weights": coef, "bias": bias, "meta": meta}


def data_arguments(doc: str | None, out: Path) -> argparse.ArgumentParser:
    """The arguments every firewall trainer takes: its data, where the model goes, --check."""
    p = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    p.add_argument("--corpus", type=Path, default=CORPUS)
    p.add_argument("--bipia", type=Path, default=SHARED / "bipia_text_attack_train.json")
    p.add_argument("--locomo", type=Path, default=SHARED / "locomo10.json")
    p.add_argument("--out", type=Path, default=out)
    p.add_argument("--check", action="store_true", help="compare with the shipped model")
    return p


def missing_data(args: argparse.Namespace) -> bool:
    gone = [p for p in (args.bipia, args.locomo) if not p.exists()]
    for path in gone:
        print(f"{path} not found (see bench data instructions)", file=sys.stderr)
    return bool(gone)


def main(argv: list[str] | None = None) -> int:
    p = data_arguments(__doc__, MODEL_PATH)
    p.add_argument("--cv", action="store_true", help="also report 5-fold out-of-fold figures")
    p.add_argument("--candidates", action="store_true", help="also train on train_candidates.jsonl")
    p.add_argument("--documents", action="store_true", help="also train on documents.jsonl")
    for flag in ("everyday-tests", "candidate-attacks", "templates"):
        p.add_argument(f"--{flag}", action="store_true", help="also train on it (see docstring)")
    p.add_argument("--spent", type=int, default=SPENT, metavar="N",
                   help=f"train on every row of everyday_test2..N and attacks_test2..N "
                        f"(default {SPENT}; 0 for none)")
    p.add_argument("--old-data", action="store_true",
                   help="the data of the model shipped before 2026-12-07: no everyday rows, "
                        "no frozen splits")
    p.add_argument("--c", type=float, default=C, help="inverse regularisation (tried arms)")
    args = p.parse_args(argv)
    if missing_data(args):
        return 2
    res = train(
        args.corpus,
        args.bipia,
        args.locomo,
        c=args.c,
        cv=args.cv,
        candidates=args.candidates,
        documents=args.documents,
        everyday=not args.old_data,
        everyday_tests=args.everyday_tests,
        own_everyday=not args.old_data,
        candidate_attacks=args.candidate_attacks,
        templates=args.templates,
        spent=0 if args.old_data else args.spent,
    )
    if args.check:
        shipped = load_model(args.out)
        fresh = res["weights"].astype(np.float16).astype(np.float32)
        diff = float(np.abs(shipped.weights - fresh).max())
        same = diff <= 1e-3 and abs(shipped.bias - res["bias"]) <= 1e-4
        print(json.dumps({"max_weight_diff": diff, "same": same}))
        return 0 if same else 1
    save_model(args.out, res["weights"], res["bias"], res["meta"])
    print(json.dumps(res["meta"], indent=1))
    print(f"wrote {args.out} ({args.out.stat().st_size / 1024:.0f} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
