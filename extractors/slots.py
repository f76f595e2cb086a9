"""Attribute slots: which (subject, attribute) a memory gives a value for, by rules, EN and ZH.

"I live in Austin" and, months later, "I moved to Denver" answer the same question - the user's
home city - with two values. That question is the memory's *slot*: `self|home_city`. Two current
memories of one user in the same slot with different values mean the newer one is an update
(graphmem.temporal decides what happens then). No LLM: a slot comes from the rule table below,
matched on the memory's text, with the subject resolved by the extractors' entity normaliser so
"Zhang San's manager" and "zhang san's manager" meet in one slot.

The rule table is data. A rule is (attribute, regex); the regex names a `value` group and may
name a `subject` (a person or thing; without it the subject is the speaker, "self") and a
`qual` (appended to the attribute: "favorite:color"). Deployments add rules in settings
(GRAPHMEM_TEMPORAL_SLOT_RULES, a JSON list of {"attribute": ..., "pattern": ...}).

The table, with examples in both languages, is in docs/temporal.md.

A text that opens with a speaker label ("Caroline: I moved to ...") speaks for that speaker: the
subject of "I" is the speaker, as in chat transcripts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from extractors.normalize import Normalizer

SELF = "self"

_END_EN = (
    r"(?=\s*(?:[,.;!?\n)]|$)|\s+(?:since|now|because|but|and|so|last|this|next|as|from|for|"
    r"until|starting|anymore|any\s+more|instead|too|though)\b)"
)
_VAL = r"(?P<value>[^,.;!?\n]{1,60}?)" + _END_EN
_TOKEN = r"(?P<value>\S{3,80}?)(?=[,;!?\s]|\.?$|\.\s)"
_CAP = r"(?-i:[A-Z])"
# "The user lives in ..." - how agents write about the user - speaks about "self".
_NAME = rf"(?P<subject>(?:the\s+)?user|{_CAP}[\w'-]+(?:\s+{_CAP}[\w'-]+)?)"
_PERSON_VALUE = rf"(?P<value>{_CAP}[\w'-]+(?:\s+{_CAP}[\w'-]+){{0,2}})"
_THING = (
    rf"(?P<subject>(?:the|my|our|his|her|their)\s+[\w'-]+(?:\s+[\w'-]+){{0,3}}?"
    rf"|{_CAP}[\w'-]+(?:\s+[\w'-]+){{0,2}}?)"
)
_WHEN = (
    r"(?P<value>[^,;!?\n]{2,40}?)(?=\s*(?:[,;!?\n]|\.(?:\s|$)|$)|\s+(?:because|but|and|instead)\b)"
)
_ADV = r"(?:(?:now|currently|still|just|recently|finally|actually)\s+)?"

EN_RULES: list[tuple[str, str]] = [
    ("home_city", rf"\bI(?:'ve|\s+have)?\s+{_ADV}(?:moved|relocated)\s+(?:back\s+)?to\s+{_VAL}"),
    ("home_city", rf"\bI\s+{_ADV}(?:live|reside)\s+in\s+{_VAL}"),
    ("home_city", rf"\bI(?:'m|\s+am)\s+{_ADV}(?:living|based)\s+in\s+{_VAL}"),
    ("home_city", rf"\bmy\s+(?:home|house|apartment|flat)\s+is\s+(?:now\s+)?in\s+{_VAL}"),
    ("home_city", rf"{_NAME}\s+{_ADV}(?:lives|resides|is\s+living|is\s+based)\s+in\s+{_VAL}"),
    ("home_city", rf"{_NAME}\s+(?:has\s+)?{_ADV}(?:moved|relocated)\s+to\s+{_VAL}"),
    ("employer", rf"\bI\s+{_ADV}work\s+(?:at|for)\s+{_VAL}"),
    ("employer", rf"\bI(?:'m|\s+am)\s+{_ADV}(?:employed|working)\s+(?:at|by|for)\s+{_VAL}"),
    (
        "employer",
        rf"\bI(?:'ve|\s+have)?\s+{_ADV}(?:joined|started\s+(?:a\s+(?:new\s+)?job|"
        rf"working)\s+at|got\s+a\s+job\s+at)\s+(?P<value>{_CAP}[^,.;!?\n]{{0,40}}?){_END_EN}",
    ),
    ("employer", rf"\bmy\s+(?:new\s+)?employer\s+is\s+(?:now\s+)?{_VAL}"),
    ("employer", rf"{_NAME}\s+{_ADV}works\s+(?:at|for)\s+{_VAL}"),
    (
        "manager",
        rf"\bmy\s+(?:new\s+)?(?:line\s+)?(?:manager|boss|supervisor)\s+is\s+(?:now\s+)?"
        rf"{_VAL}",
    ),
    ("manager", rf"\bI\s+{_ADV}report\s+to\s+{_VAL}"),
    ("manager", rf"{_NAME}'s\s+(?:new\s+)?(?:manager|boss|supervisor)\s+is\s+(?:now\s+)?{_VAL}"),
    ("manager", rf"{_NAME}\s+{_ADV}reports\s+to\s+{_VAL}"),
    ("phone", rf"\bmy\s+(?:new\s+)?(?:phone|mobile|cell)(?:\s+number)?\s+is\s+(?:now\s+)?{_TOKEN}"),
    ("email", rf"\bmy\s+(?:new\s+)?e-?mail(?:\s+address)?\s+is\s+(?:now\s+)?{_TOKEN}"),
    (
        "partner",
        rf"\bmy\s+(?:wife|husband|partner|girlfriend|boyfriend|spouse|fianc[eé]e?)\s+is\s+"
        rf"{_PERSON_VALUE}",
    ),
    ("partner", rf"\bI(?:'m|\s+am)\s+{_ADV}(?:married|engaged)\s+to\s+{_PERSON_VALUE}"),
    ("job_title", rf"\bI\s+{_ADV}work\s+as\s+(?:an?\s+)?{_VAL}"),
    ("job_title", rf"\bmy\s+(?:job\s+title|job|role|position)\s+is\s+(?:now\s+)?{_VAL}"),
    ("age", r"\bI(?:'m|\s+am)\s+(?:now\s+)?(?P<value>\d{1,3})\s+(?:years?|yrs?)\s+old\b"),
    (
        "favorite",
        rf"\bmy\s+(?:new\s+)?favou?rite\s+(?P<qual>[a-z]+(?:\s+[a-z]+)?)\s+is\s+"
        rf"(?:now\s+)?{_VAL}",
    ),
    (
        "preference",
        r"\bI\s+(?:now\s+|really\s+|still\s+)?prefer\s+(?:an?\s+|the\s+)?"
        r"(?P<value>[a-z]+)\s+(?P<qual>[a-z]+)(?=\s*(?:[,.;!?]|$)|\s+(?:on|for|when|"
        r"in|at|to|over)\b)",
    ),
    ("date", rf"{_THING}\s+(?:is|was)\s+(?:now\s+)?due\s+(?:on\s+|by\s+|at\s+)?{_WHEN}"),
    (
        "date",
        rf"\b(?:the\s+)?deadline\s+(?:for|of)\s+(?P<subject>[\w' -]{{2,40}}?)\s+is\s+"
        rf"(?:now\s+)?(?:on\s+)?{_WHEN}",
    ),
    ("date", rf"{_THING}(?:'s)?\s+deadline\s+is\s+(?:now\s+)?(?:on\s+)?{_WHEN}"),
    ("date", rf"{_THING}\s+(?:is|has\s+been|was)\s+(?:re)?scheduled\s+(?:for|on|at)\s+{_WHEN}"),
    (
        "date",
        rf"{_THING}\s+(?:is|has\s+been|was)\s+(?:moved|postponed|pushed(?:\s+back)?|"
        rf"rescheduled|brought\s+forward)\s+(?:back\s+)?to\s+{_WHEN}",
    ),
]

_END_ZH = r"(?=$|[，。；！？,.;!?\s）)]|了|啦|呢|吧|啊|的时候)"
_VZ = r"(?P<value>[^，。；！？,.;!?\s]{1,20}?)" + _END_ZH
_WHEN_ZH = r"(?:现在|目前|如今|已经|刚|刚刚|最近|上个?月|去年|今年|前年|上周|上星期|年初|月初)?"
ZH_RULES: list[tuple[str, str]] = [
    ("home_city", rf"我{_WHEN_ZH}(?:一直|还)?(?:住在|居住在|定居在|生活在){_VZ}"),
    (
        "home_city",
        rf"我(?:们|们家|家)?[^，。！？,.!?]{{0,6}}?(?:搬家?|迁居|移居)(?:到|去|至)了?{_VZ}",
    ),
    ("home_city", rf"我的?家(?:现在|目前)?在{_VZ}"),
    ("employer", r"我(?:现在|目前|已经|还)?在(?P<value>[^，。；！？\s]{2,20}?)(?:工作|上班|任职)"),
    ("employer", rf"我[^，。！？,.!?]{{0,6}}?(?:入职|加入|跳槽到|跳槽去|跳槽进)了?{_VZ}"),
    (
        "manager",
        rf"我的?(?:新)?(?:经理|老板|上司|领导|主管|直属领导)(?:现在|已经)?(?:换成了?|变成了?|"
        rf"是){_VZ}",
    ),
    ("manager", r"我(?:现在)?(?:直接)?向(?P<value>[^，。；！？\s]{1,10}?)汇报"),
    (
        "manager",
        rf"(?P<subject>(?![我你他她])[\u4e00-\u9fff]{{2,4}}?)的(?:新)?(?:经理|老板|上司|领导)"
        rf"(?:现在)?是{_VZ}",
    ),
    (
        "phone",
        r"我的?(?:新)?(?:手机号码?|电话号码?|手机|电话)(?:现在|已经)?(?:是|改成了?|换成了?)"
        r"(?P<value>\S{3,40}?)(?=$|[，。；！？\s])",
    ),
    ("partner", rf"我的?(?:妻子|丈夫|老婆|老公|爱人|太太|先生|女朋友|男朋友)是{_VZ}"),
    ("job_title", rf"我的?(?:职位|岗位|职务)(?:现在)?是{_VZ}"),
    ("age", r"我(?:今年|现在)?(?P<value>\d{1,3}|[一二三四五六七八九十]{1,3})岁"),
    ("favorite", rf"我最喜欢的(?P<qual>[\u4e00-\u9fff]{{1,4}}?)是{_VZ}"),
    (
        "date",
        rf"(?P<subject>[^，。；！？,.;!?\s]{{2,12}}?)的?(?:截止日期|截止时间|期限|交付日期|日期|"
        rf"时间)(?:现在)?(?:改为|改成|推迟到|提前到|是|定在|为){_VZ}",
    ),
    (
        "date",
        rf"(?P<subject>[^，。；！？,.;!?\s]{{2,12}}?)(?:改到|改在|推迟到|提前到|延期到|挪到)了?{_VZ}",
    ),
]

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
_DETERMINER = re.compile(r"^(?:the|my|our|his|her|their|a|an)\s+", re.IGNORECASE)
_VALUE_TRIM = re.compile(r"^(?:the|a|an)\s+|\s+(?:now|too|already)$", re.IGNORECASE)


@dataclass(frozen=True)
class Slot:
    """One (subject, attribute) a memory gives a value for. `key` is what supersession compares."""

    subject: str  # "self" or a normalised entity key
    attribute: str  # home_city, employer, manager, favorite:color, date, ...
    value: str  # normalised (case-folded, trimmed) value
    start: int = 0

    @property
    def key(self) -> str:
        return f"{self.subject}|{self.attribute}"


@dataclass(frozen=True)
class SlotRule:
    attribute: str
    pattern: re.Pattern[str]


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
        if "value" not in rx.groupindex:
            raise ValueError(f"slot rule {i} ({attr}): the pattern needs a (?P<value>...) group")
        rules.insert(0, SlotRule(str(attr), rx))  # deployment rules win over built-in ones
    return rules


def is_correction(text: str) -> bool:
    return bool(CORRECTION.search(text))


def find_slots(text: str, rules: Sequence[SlotRule], norm: Normalizer) -> list[Slot]:
    """Every slot the text states, in text order; one per attribute and subject."""
    speaker = _SPEAKER.match(text)
    me = SELF
    if speaker:
        me = norm.key(speaker.group("speaker")) or SELF
        text = text[speaker.end() :]
    found: dict[str, Slot] = {}
    for rule in rules:
        for m in rule.pattern.finditer(text):
            value = _VALUE_TRIM.sub("", m.group("value").strip()).casefold().strip(" '\"")
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
                attr = f"{attr}:{groups['qual'].strip().casefold()}"
            slot = Slot(subject, attr, value, m.start())
            found.setdefault(slot.key, slot)
    return sorted(found.values(), key=lambda s: s.start)


__all__ = ["CORRECTION", "SELF", "Slot", "SlotRule", "compile_rules", "find_slots", "is_correction"]
