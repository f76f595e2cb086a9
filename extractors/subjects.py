"""Whose statement a memory is: the speaker of a dialogue turn.

"What activities does Melanie partake in?" is answered by what Melanie said or did, not by
what her friend said about a trip. In a conversation stored one turn per memory, nine in ten of
the evidence turns of a question that names a participant are that participant's own turns
(LoCoMo's multi-hop questions on the tune split: 95 of 106), while similarity alone ranks the
other speaker's turns, which share the topic, just as high. So a turn whose speaker the query
names ranks higher (graphmem.usecases.search, `subject_boost`).

Only a speaker counts ("Melanie: ...", "晓芸：..."), not a name a note opens with: in notes
about people, "Bea works as a marine biologist" is no more Bea's than "Ann's sister Bea lives
in Lisbon", and boosting the first buried the answer to "where does Bea live?". Reading the
speaker is one regular expression per candidate: no extraction on the query, which would cost
more than the whole search. When every memory has the same speaker the boost changes no order.
"""

from __future__ import annotations

import re

_SPEAKER = re.compile(
    r"^\s*(?P<s>[A-Z][\w'-]+(?:\s[A-Z][\w'-]+)?|[\u4e00-\u9fff]{1,4})\s*[:：]\s*\S"
)
# Capitalised sentence openers that are nobody's name.
_NOT_NAMES = frozenset(
    "The This That These Those There Then When What Which Who Where Why How My Our Your His Her "
    "Their Its We You They He She It Yes No Not Just Also And But So Or If After Before Today "
    "Yesterday Tomorrow Last Next Every Some Any All Most Many Much Please Thanks Thank Remember "
    "Note Hey Hi Hello Oh Wow Well Sure Maybe Actually Anyway".split()
)


def subject_of(content: str) -> str | None:
    """The speaker of a turn ("Melanie: ..."); None for anything else (notes, "I ...", "我...",
    labels such as "Note: ...")."""
    m = _SPEAKER.match(content)
    if m and m.group("s").split()[0] not in _NOT_NAMES:
        return m.group("s")
    return None


def named_in(query: str, subject: str) -> bool:
    """Does the query name this subject, or its first name ("Melanie" for "Melanie Smith"),
    as a whole word for Latin names?"""
    if not subject.isascii():
        return subject in query
    return any(
        re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", query) is not None
        for name in dict.fromkeys((subject, subject.split()[0]))
    )


__all__ = ["named_in", "subject_of"]
