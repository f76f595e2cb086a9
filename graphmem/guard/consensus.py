"""Consensus check without an LLM: does a new memory contradict what several others agree on?

After A-MemGuard (Wei et al., 2025), whose insight is that a poisoned memory is usually *locally*
plausible but disagrees with the consensus of related memories. A-MemGuard asks an LLM to compare
reasoning paths; graphmem must work without one, so this module compares *claims* lexically:

- a claim is a frame (the content words that say what the sentence is about: entity and
  attribute), a polarity (negated or not) and the values it states (numbers, dates, times,
  weekdays), in English and Chinese;
- two memories are about the same thing when their frames overlap enough (Jaccard);
- they contradict when the polarity flips ("I like coffee" / "I don't like coffee") or a value
  of the same kind changes ("the meeting is on May 3" / "... on May 5").

The decision is a pure function of the new text and the candidate memories the caller passes in
(typically the nearest neighbours of the new memory in the same user's namespace), so it needs
no store, is trivially testable and cannot leak across users: candidates of another user are
ignored even if a caller passes them by mistake.

One rule decides between an update and an attack (shared with graphmem.domain.temporal,
documented in docs/temporal.md):

- **supersede**: the user (source `user`) changes a value of their own world - a slot the
  temporal rules recognise ("I moved to Denver" after "I live in Austin"), an explicit update
  ("I don't drink coffee any more") or a correction ("actually, it's Monday"). The contradicted
  memories get a `valid_to` and a `superseded_by` link; nothing is quarantined.
- **quarantine** (or `low_confidence` when configured so): a conflicting claim from an agent, a
  document or the system - a third party - about a slot whose current value the user stated,
  or against `min_corroboration` memories that agree with each other and outnumber the write's
  supporters. The caller adds `contradicts` relations; a review approval turns the claim into a
  supersession.
- **allow** otherwise - with the contradicted ids, so a lone disagreement is still linked by
  `contradicts` and recall can prefer the corroborated side.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from graphmem.domain.meaning import values_in
from graphmem.domain.text import STOPWORDS, derived_cache, stem

Action = Literal["allow", "low_confidence", "quarantine", "supersede"]
AUTHORITY = "user"  # the source that may change the user's own world without review


@dataclass(frozen=True)
class Candidate:
    """A memory the caller already holds: the minimum the check needs."""

    id: str
    content: str
    user_id: str | None = None
    status: str = "active"
    source: str = "user"


@dataclass(frozen=True)
class Claim:
    frame: frozenset[str]
    negated: bool
    values: frozenset[str]
    update: bool

    def kinds(self) -> dict[str, frozenset[str]]:
        out: dict[str, set[str]] = {}
        for v in self.values:
            out.setdefault(v.split(":", 1)[0], set()).add(v)
        return {k: frozenset(v) for k, v in out.items()}


@dataclass(frozen=True)
class ConsensusDecision:
    action: Action
    contradicted_ids: tuple[str, ...] = ()
    supporting_ids: tuple[str, ...] = ()
    confidence: float | None = None
    reasons: tuple[str, ...] = ()
    superseded_ids: tuple[str, ...] = ()


# ------------------------------------------------------------------ claim extraction

_NEG_EN = re.compile(
    r"\b(?:not|no|never|none|nobody|nothing|neither|nor|without|cannot|no longer|"
    r"\w+n't|dont|doesnt|didnt|isnt|arent|wasnt|werent|wont|cant)\b"
)
_UPDATE_EN = re.compile(
    r"\b(?:now|anymore|any more|no longer|changed|switched|moved|instead|as of|since|currently|"
    r"these days|updated|new)\b"
)
# Chinese negators, minus words in which 不/没/无/非/未/别 do not negate.
_ZH_NOT_NEGATION = re.compile(
    r"不错|不过|不少|不久|不同|不断|不仅|无论|非常|未来|别人|别的|没事儿?|差不多"
)
_NEG_ZH = re.compile(r"不|没|無|无|非|未|别|甭")
_UPDATE_ZH = re.compile(
    r"现在|已经|改成|换成|换了|搬到|不再|如今|目前|改为|更新|改到|改在|推迟到|提前到"
)

_WORD_RE = re.compile(r"[a-z][a-z']*")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")
_ZH_STOP = frozenset("的了是在我你他她它们这那就都也和与及或而吗呢吧啊呀么很还又")
_EXTRA_STOP = frozenset(
    "now anymore any more changed switched moved instead currently since new updated these days "
    "actually still already".split()
)


@derived_cache
@lru_cache(maxsize=16_384)
def extract_claim(text: str) -> Claim:
    """Frame, polarity, values and update marker of one memory (English and Chinese).

    Cached: every write compares itself with the same few neighbours, and a Claim is frozen."""
    found, rest = values_in(text.replace("’", "'"))
    values = {v for _, v in found}
    rest = rest.lower()
    update = bool(_UPDATE_EN.search(rest) or _UPDATE_ZH.search(rest))
    zh = _ZH_NOT_NEGATION.sub(" ", rest)
    negations = len(_NEG_EN.findall(rest)) + len(_NEG_ZH.findall(" ".join(_CJK_RUN.findall(zh))))
    frame: set[str] = set()
    no_neg = _NEG_EN.sub(" ", rest)
    for w in _WORD_RE.findall(no_neg):
        w = w.strip("'")
        if w and w not in STOPWORDS and w not in _EXTRA_STOP and len(w) > 1:
            frame.add(stem(w.replace("'", "")))
    for run in _CJK_RUN.findall(_NEG_ZH.sub("", _UPDATE_ZH.sub(" ", zh))):
        chars = [c for c in run if c not in _ZH_STOP]
        if len(chars) == 1:
            frame.add(chars[0])
        frame.update(a + b for a, b in zip(chars, chars[1:], strict=False))
    return Claim(frozenset(frame), negations % 2 == 1, frozenset(values), update)


def _same_subject(a: Claim, b: Claim, similarity: float) -> bool:
    if not a.frame or not b.frame:
        return False
    if a.kinds().get("label") != b.kinds().get("label"):
        return False  # step 3 and step 4 (graphmem.domain.meaning's labels) are two things, not one
    inter = len(a.frame & b.frame)
    return inter > 0 and inter / len(a.frame | b.frame) >= similarity


def _value_conflict(a: Claim, b: Claim) -> str | None:
    ka, kb = a.kinds(), b.kinds()
    for kind in ka.keys() & kb.keys():
        if ka[kind] != kb[kind]:
            return kind
    return None


def relation(a: Claim, b: Claim, similarity: float = 0.6) -> str | None:
    """'contradicts', 'supports' or None (not about the same thing)."""
    if not _same_subject(a, b, similarity):
        return None
    if a.negated != b.negated or _value_conflict(a, b):
        return "contradicts"
    return "supports"


def check_consensus(
    content: str,
    candidates: Iterable[Candidate],
    *,
    user_id: str | None = None,
    source: str = "user",
    min_corroboration: int = 2,
    on_conflict: Literal["quarantine", "low_confidence"] = "quarantine",
    low_confidence: float = 0.3,
    similarity: float = 0.6,
    updates: Iterable[Candidate] = (),
    correction: bool = False,
) -> ConsensusDecision:
    """Decide what to do with `content` given memories the same user already has.

    `updates` are memories the write replaces by rule (same slot, other value; or the memory a
    correction corrects - graphmem.domain.temporal finds them). Only active candidates of `user_id`
    (when given) count: a quarantined memory is not evidence, and another user's memory must
    never influence, or be revealed through, this decision.
    """

    def mine(c: Candidate) -> bool:
        return c.status == "active" and (user_id is None or c.user_id in (None, user_id))

    replaced = [c for c in updates if mine(c)]
    if replaced:
        ids = tuple(c.id for c in replaced)
        if source == AUTHORITY or all(c.source != AUTHORITY for c in replaced):
            why = (
                "the user changes their own slot"
                if source == AUTHORITY
                else (f"a {source} claim replaces one that no user stated")
            )
            return ConsensusDecision("supersede", (), (), None, (why,), ids)
        conf = low_confidence if on_conflict == "low_confidence" else None
        return ConsensusDecision(
            on_conflict,
            ids,
            (),
            conf,
            (f"a {source} claim conflicts with {len(ids)} user-stated value(s) of the same slot",),
        )
    new = extract_claim(content)
    pool: Sequence[Candidate] = [c for c in candidates if mine(c)]
    contradicted: list[tuple[Candidate, Claim]] = []
    supporting: list[str] = []
    for c in pool:
        claim = extract_claim(c.content)
        rel = relation(new, claim, similarity)
        if rel == "contradicts":
            contradicted.append((c, claim))
        elif rel == "supports":
            supporting.append(c.id)
    if not contradicted:
        return ConsensusDecision("allow", (), tuple(supporting))

    # The contradicted memories must agree with each other - on the polarity and on the values
    # the write changes - to count as corroborated; other details they add do not matter.
    def key(cl: Claim) -> tuple[bool, frozenset[str]]:
        kinds = {v.split(":", 1)[0] for v in new.values}
        return cl.negated, frozenset(v for v in cl.values if v.split(":", 1)[0] in kinds)

    groups = Counter(key(cl) for _, cl in contradicted)
    (neg, vals), size = groups.most_common(1)[0]
    ids = tuple(c.id for c, _ in contradicted)
    reasons = [
        f"contradicts {len(ids)} memories; the largest agreeing group has {size}"
        f" (negated={neg}, values={sorted(vals)}); {len(supporting)} support the write"
    ]
    if source == AUTHORITY and (new.update or correction):
        reasons.append("the user states an explicit update, so it supersedes what it contradicts")
        return ConsensusDecision("supersede", (), tuple(supporting), None, tuple(reasons), ids)
    if size < min_corroboration or len(supporting) >= size:
        return ConsensusDecision("allow", ids, tuple(supporting), None, tuple(reasons))
    action: Action = on_conflict
    conf = low_confidence if action == "low_confidence" else None
    return ConsensusDecision(action, ids, tuple(supporting), conf, tuple(reasons))


__all__ = [
    "Candidate",
    "Claim",
    "ConsensusDecision",
    "check_consensus",
    "extract_claim",
    "relation",
]
