"""Causal and temporal cue words, English and Chinese, and which side of each is the cause.

Each cue splits its sentence: for "X because Y" the cause is the clause after the cue, for
"X so Y" / "X led to Y" / "因为X，所以Y" it is the clause before "所以". Clauses end at the sentence
end or at the next cue. Entities mentioned in each clause become the cue's `earlier` (cause or
earlier event) and `later` (effect or later event) keys; `graphmem.domain.linking` then connects
this memory to earlier memories that mention those entities.
"""

from __future__ import annotations

import re

from graphmem.extractors.base import Cue, Mention

# (regex, kind, where the cause / earlier event is relative to the cue)
_EN: list[tuple[str, str, str]] = [
    (r"because(?:\s+of)?|due\s+to|owing\s+to|thanks\s+to|as\s+a\s+result\s+of", "causal", "after"),
    (r"therefore|thus|hence|as\s+a\s+result|consequently|that'?s\s+why|which\s+is\s+why",
     "causal", "before"),
    (r"led\s+to|leads?\s+to|leading\s+to|caused|causes|resulted\s+in|results\s+in", "causal",
     "before"),
    (r"(?:(?<=,)\s*|^\s*)so(?=[\s,])", "causal", "before"),
    (r"after|since\s+then", "temporal", "after"),
    (r"before|then|afterwards", "temporal", "before"),
]
_ZH: list[tuple[str, str, str]] = [
    (r"因为|由于", "causal", "after"),
    (r"所以|因此|于是|导致|造成|以致|结果", "causal", "before"),
    (r"之后|以后|后来|然后|接着", "temporal", "before"),
    (r"之前|以前", "temporal", "after"),
]
_PATTERNS = [
    (re.compile(rf"(?<![\w'])(?:{p})(?![\w'])", re.IGNORECASE), kind, side) for p, kind, side in _EN
] + [(re.compile(p), kind, side) for p, kind, side in _ZH]
_SENTENCE = re.compile(r"[^.!?。！？;；\n]+[.!?。！？;；\n]*")
_WORD = re.compile(r"\w", re.UNICODE)
_COMMA = re.compile(r"[,，、]")


def _keys(mentions: list[Mention], start: int, end: int) -> frozenset[str]:
    return frozenset(m.entity.key for m in mentions if m.start >= start and m.end <= end)


def find_cues(text: str, mentions: list[Mention]) -> list[Cue]:
    cues: list[Cue] = []
    prev_span = (0, 0)
    for n, sent in enumerate(_SENTENCE.finditer(text)):
        s0, s1 = sent.span()
        found = []
        for rx, kind, side in _PATTERNS:
            for m in rx.finditer(sent.group(0)):
                found.append((s0 + m.start(), s0 + m.end(), kind, side, m.group(0).strip()))
        found.sort()
        for i, (c0, c1, kind, side, word) in enumerate(found):
            before_start = found[i - 1][1] if i else s0
            after_end = found[i + 1][0] if i + 1 < len(found) else s1
            at_start = not _WORD.search(text[s0:c0])
            if side == "after" and at_start and i + 1 == len(found):
                # "Because X, Y." / "After X, Y." / "因为X，Y": the comma closes the cause clause.
                comma = _COMMA.search(text, c1, after_end)
                cut = comma.start() if comma else after_end
                earlier, later = _keys(mentions, c1, cut), _keys(mentions, cut, after_end)
            elif side == "after":  # the clause after the cue is the cause / the earlier event
                earlier, later = _keys(mentions, c1, after_end), _keys(mentions, before_start, c0)
            else:
                earlier, later = _keys(mentions, before_start, c0), _keys(mentions, c1, after_end)
            to_previous = False
            if at_start and not earlier and side != "after":
                if n == 0:
                    to_previous = True  # "So ..." opening a memory: the cause was said before
                else:
                    earlier = _keys(mentions, *prev_span)
            if not (earlier or later or to_previous):
                continue
            strength = 0.9 if earlier and later else 0.8 if earlier or later else 0.7
            if kind == "temporal":
                strength -= 0.1
            cues.append(Cue(kind, word.lower(), earlier, later, to_previous, round(strength, 2)))
        prev_span = (s0, s1)
    return cues
