"""Attribute slots: which (subject, attribute) a memory gives a value for, by rules, EN and ZH.

"I live in Austin" and, months later, "I moved to Denver" answer the same question - the user's
home city - with two values. That question is the memory's *slot*: `self|home_city`. Two current
memories of one user in the same slot with different values mean the newer one is an update
(graphmem.domain.temporal decides what happens then). No LLM: a slot comes from the rule table
below, matched on the memory's text, with the subject resolved by the extractors' entity normaliser
so "Zhang San's manager" and "zhang san's manager" meet in one slot.

The rule table is data (extractors.slot_rules). A rule is (attribute, regex); the regex names a
`value` group and may name a `subject` (a person or thing; without it the subject is the
speaker, "self"), a `qual` (appended to the attribute: "favorite:color") and a `neg` (the text
denies the value: "I'm no longer vegan" -> "not:vegan"). A rule with a `qual` and no `value` is
a yes/no slot: "I love sushi" -> likes:sushi = yes, "I don't like sushi anymore" -> no; so
changing one's mind is a change of value like any other. Deployments add rules in settings
(GRAPHMEM_TEMPORAL_SLOT_RULES, a JSON list of {"attribute": ..., "pattern": ...}).

The table, with examples in both languages, is in docs/temporal.md.

A text that opens with a speaker label ("Caroline: I moved to ...") speaks for that speaker: the
subject of "I" is the speaker, as in chat transcripts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from graphmem.extractors.normalize import Normalizer
from graphmem.extractors.slot_rules import EN_RULES, VALUE_ALIASES, ZH_RULES

SELF = "self"
YES, NO = "yes", "no"
NOT = "not:"  # a denied value: "I'm no longer vegan" -> diet = not:vegan

# "Actually, it's ...", "No, it's ...", "不对，是 ...": the text corrects something said before.
CORRECTION = re.compile(
    r"^\s*(?:actually|correction|oops|sorry|wait|no|nope|my\s+mistake|scratch\s+that)\b\s*[,:!—-]"
    r"|^\s*(?:actually|correction)\b"
    r"|\b(?:I\s+meant|let\s+me\s+correct|to\s+correct\s+(?:that|myself)|I\s+was\s+wrong)\b"
    r"|^\s*(?:不对|不是的|错了|更正|纠正|说错了|我说错了|搞错了|刚才说错了)"
    r"|(?:更正一下|纠正一下|应该是)",
    re.IGNORECASE,
)
_SPEAKER = re.compile(r"^\s*(?P<speaker>[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?)\s*[:：]\s+")
_PRONOUNS = frozenset("i it this that he she they we you".split())
# "Saturday works for me": a pronoun is nobody's employer, home or partner.
_PRONOUN_VALUES = frozenset("me you him her us them it this that i we they here there".split())
_DETERMINER = re.compile(r"^(?:the|my|our|his|her|their|a|an)\s+", re.IGNORECASE)
_VALUE_TRIM = re.compile(
    r"^(?:the|a|an)\s+|\s+(?:now|too|already)$|^(?:一家|一个|一所|一间|一辆)", re.IGNORECASE
)
# What a like or a habit is about, however it is said: "I love eating sushi", "I stopped eating
# sushi", "I no longer like sushi" are all about sushi; "我喜欢吃辣" and "我不再吃辣了" about 辣.
_QUAL_TRIM = re.compile(
    r"^(?:(?:the|a|an|my|our|some|any)\s+)+|^(?:(?:drink|eat|play|watch|listen)(?:ing|s)?"
    r"(?:\s+to)?\s+|(?:going|doing)\s+)(?=\S)",
    re.IGNORECASE,
)
_ZH_VERB = re.compile(r"^[喝吃抽吸打玩看听练弹踢养](?=[\u4e00-\u9fff])")
_DOUBLED = re.compile(r"([bdgmnprt])\1$")
# A value the firewall masked ("My email is [EMAIL]"): it cannot be compared, so the statement
# stands in for it - another statement of the slot is another value, a repeated one is not.
_MASKED = re.compile(r"^\[[a-z_]+\]$")


@dataclass(frozen=True)
class Slot:
    """One (subject, attribute) a memory gives a value for. `key` is what supersession compares."""

    subject: str  # "self" or a normalised entity key
    attribute: str  # home_city, employer, manager, favorite:color, likes:sushi, date, ...
    value: str  # normalised (case-folded, trimmed) value; "yes"/"no" for a yes/no slot
    start: int = 0
    weak: bool = False  # a yes/no slot (a like, a habit): a fact slot of the same text wins

    @property
    def key(self) -> str:
        return f"{self.subject}|{self.attribute}"


@dataclass(frozen=True)
class SlotRule:
    attribute: str
    pattern: re.Pattern[str]

    @property
    def yes_no(self) -> bool:
        """No value group: the slot is whether the `qual` holds (`neg` says it does not)."""
        return "value" not in self.pattern.groupindex


def compile_rules(extra: Iterable[Mapping[str, str]] = ()) -> list[SlotRule]:
    """The built-in table plus `extra` rules ({"attribute", "pattern"}), checked here so a bad
    setting fails at start-up naming the rule, not on some later write."""
    rules = [SlotRule(a, re.compile(p, re.IGNORECASE)) for a, p in EN_RULES]
    rules += [SlotRule(a, re.compile(p)) for a, p in ZH_RULES]
    for i, r in enumerate(extra):
        attr, pat = r.get("attribute"), r.get("pattern")
        if not attr or not pat:
            raise ValueError(f"slot rule {i}: needs 'attribute' and 'pattern'")
        try:
            rx = re.compile(pat, re.IGNORECASE)
        except re.error as e:
            raise ValueError(f"slot rule {i} ({attr}): bad pattern: {e}") from None
        if "value" not in rx.groupindex and "qual" not in rx.groupindex:
            raise ValueError(
                f"slot rule {i} ({attr}): the pattern needs a (?P<value>...) group"
                " (or a (?P<qual>...) group for a yes/no slot)"
            )
        rules.insert(0, SlotRule(str(attr), rx))  # deployment rules win over built-in ones
    return rules


def is_correction(text: str) -> bool:
    return bool(CORRECTION.search(text))


def _stem(word: str) -> str:
    """Crude English stemming, enough for "smoke"/"smoking", "run"/"running", "dogs"/"dog"."""
    if len(word) > 5 and word.endswith("ing"):
        word = _DOUBLED.sub(r"\1", word[:-3])
    elif len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


def _qual(raw: str, yes_no: bool) -> str:
    q = raw.strip().casefold()
    if not yes_no:
        return q
    q = _ZH_VERB.sub("", _QUAL_TRIM.sub("", q))
    return " ".join(_stem(w) for w in q.split())


def _value(m: re.Match[str], yes_no: bool, text: str) -> str:
    negated = bool(m.groupdict().get("neg"))
    if yes_no:
        return NO if negated else YES
    value = _VALUE_TRIM.sub("", m.group("value").strip()).casefold().strip(" '\".")
    value = " ".join(value.split())
    value = VALUE_ALIASES.get(value, value)
    if value in _PRONOUN_VALUES:
        return ""
    if _MASKED.match(value):
        value = f"{value} {' '.join(text.casefold().split())}"
    return f"{NOT}{value}" if value and negated else value


def ends(new: str, old: str | None) -> bool:
    """Whether a statement of value `new` ends a current memory of value `old` in one slot.

    Another value ends it ("I moved to Denver" ends "I live in Austin"). A denial ends only the
    value it denies: "I don't live in Dallas anymore" ends "I live in Dallas", not "I live in
    Austin". And a denial is no value of the slot: "I live in Austin" after "I don't live in
    Dallas anymore" leaves the denial true, only "I live in Dallas" again ends it."""
    if old is None or old == new:
        return False
    if new.startswith(NOT):
        return old == new[len(NOT) :]
    if old.startswith(NOT):
        return old[len(NOT) :] == new
    return True


def find_slots(text: str, rules: Sequence[SlotRule], norm: Normalizer) -> list[Slot]:
    """Every slot the text states, fact slots first then yes/no ones, each in text order; one
    per attribute and subject (the first rule of the table that finds it gives its value)."""
    speaker = _SPEAKER.match(text)
    me = SELF
    if speaker:
        me = norm.key(speaker.group("speaker")) or SELF
        text = text[speaker.end() :]
    found: dict[str, Slot] = {}
    for rule in rules:
        yes_no = rule.yes_no
        for m in rule.pattern.finditer(text):
            value = _value(m, yes_no, text)
            if not value:
                continue
            groups = m.groupdict()
            subject = me
            if groups.get("subject"):
                raw = _DETERMINER.sub("", groups["subject"].strip())
                low = raw.casefold()
                if low in _PRONOUNS or low.startswith("i'"):
                    continue
                subject = norm.key(raw) or low
                if subject == "user":
                    subject = me
            attr = rule.attribute
            if groups.get("qual"):
                qual = _qual(groups["qual"], yes_no)
                if not qual:
                    continue
                attr = f"{attr}:{qual}"
            elif yes_no:
                continue
            slot = Slot(subject, attr, value, m.start(), yes_no)
            found.setdefault(slot.key, slot)
    return sorted(found.values(), key=lambda s: (s.weak, s.start))


__all__ = [
    "CORRECTION",
    "NO",
    "NOT",
    "SELF",
    "YES",
    "Slot",
    "SlotRule",
    "compile_rules",
    "ends",
    "find_slots",
    "is_correction",
]
