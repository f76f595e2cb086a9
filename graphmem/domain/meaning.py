"""Do two memories say the same thing? The one rule merge-on-write, compaction and update
detection share.

An embedding cannot tell "the appointment is on Tuesday at 10:15" from "... on Thursday at
10:45" (cosine 0.97 with the default model), nor "I am allergic to penicillin" from "I am not
allergic to penicillin". Folding such a pair into one memory silently keeps the old value and
throws the new one away. So a merge also needs the two texts to agree on everything that carries
a value, decided here without an LLM, in English and Chinese:

- the *values*: numbers and amounts (3000, $3,000, 3000元, 三千元, "five"), dates (May 3,
  2025-05-03, 5月3日), months, times (10:15, 3pm, 十点, 下午三点半), weekdays (Tuesday, 周二,
  星期四) and names (capitalised words inside an English sentence);
- the *labels*: a number that names an item of a sequence ("step 3", "note 4", "chapter 2",
  "ticket #12", "day 5", "第3步") says which thing the memory is about, not a value of it;
- the *polarity*: an odd number of negations (not, never, n't, no longer; 不, 没, 没有, 别, 未,
  无, 非) flips it;
- the *words*: the remaining content words (English stemmed, without stop words; Chinese as
  character bigrams) and the speaker of a "Name: ..." line.

A slot value (graphmem.domain.temporal) is a span of the text or whether the text denies it (yes/no
slots: "I love sushi", "I no longer like sushi"), so two texts with equal words, values and
polarity also give every slot the same value.

`compare(older, newer)` says:

- `same`: same speaker, words, polarity and values (each kind in the same order) - a true
  duplicate, which may be merged;
- `update`: same speaker and words and the same kinds and counts of values, but a value or the
  polarity differs - the newer one changes a value of the older one (a knowledge update, never
  a merge; graphmem.domain.temporal lets it supersede);
- `different`: anything else (a word or a value added, removed or replaced by another kind, or
  another label: "rollout step 4 happened" is the next event, not a correction of step 3):
  both are kept as they are.

Pure and cached: every write compares itself with a few neighbours, again and again.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from graphmem.domain.text import CJK_STOP_CHARS, STOPWORDS, derived_cache, stem

Verdict = Literal["same", "update", "different"]


_SPEAKER = re.compile(r"^\s*(?P<speaker>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)\s*[:：]\s+")

_MONTHS = "jan feb mar apr may jun jul aug sep oct nov dec".split()
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_ZH_WEEKDAYS = {
    "一": "mon",
    "二": "tue",
    "三": "wed",
    "四": "thu",
    "五": "fri",
    "六": "sat",
    "日": "sun",
    "天": "sun",
}
_ZH_DIGIT = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"〇": 0, "两": 2}
_ZH_UNIT = {"十": 10, "百": 100, "千": 1000, "万": 10_000, "亿": 100_000_000}
_ZH_NUM = "零〇一二两三四五六七八九十百千万亿"
_NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve".split()
    )
}
# Chinese measure words after which a Chinese numeral is a quantity (not 一起, 一直, 一样).
_ZH_MEASURE = "个位名岁元块毛角次天年月人号层公斤米件张本杯瓶条只份台辆周小分秒克度"
_ZH_HALF_DAY = {"凌晨": 0, "早上": 0, "上午": 0, "中午": 12, "下午": 12, "傍晚": 12, "晚上": 12}

# Words after which a number names an item of a sequence rather than giving a value.
_LABEL_WORDS = (
    "step|item|note|part|chapter|section|page|line|version|issue|ticket|task|phase|round|"
    "episode|lesson|day|week|level|stage|entry|no|number"
)

# Value patterns, tried in this order; a later pattern never matches inside an earlier match.
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (
        "label",
        re.compile(
            rf"\b({_LABEL_WORDS})\.?\s*#?\s*(\d+)\b|(#)(\d+)\b|第(\d+|[{_ZH_NUM}]+)([步章节条项期天周轮集])",
            re.I,
        ),
    ),
    ("iso", re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")),
    (
        "zh_date",
        re.compile(
            r"(?:(\d{4})年)?(\d{1,2}|[" + _ZH_NUM + r"]{1,3})月"
            r"(\d{1,2}|[" + _ZH_NUM + r"]{1,3})[日号]"
        ),
    ),
    (
        "md",
        re.compile(rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s*(\d{{4}})\b)?", re.I),
    ),
    (
        "dm",
        re.compile(
            rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH})\b(?:,?\s*(\d{{4}})\b)?", re.I
        ),
    ),
    (
        "zh_time",
        re.compile(
            r"(凌晨|早上|上午|中午|下午|傍晚|晚上)?(\d{1,2}|[" + _ZH_NUM + r"]{1,3})[点點时]"
            r"(?:(半)|(一刻)|(三刻)|(\d{1,2}|[" + _ZH_NUM + r"]{1,3})分?)?"
        ),
    ),
    (
        "time",
        re.compile(
            r"(?<![\d:])(\d{1,2}):(\d{2})(?:\s*([ap])\.?m\.?\b)?|(?<![\d:])(\d{1,2})\s*([ap])\.?m\b",
            re.I,
        ),
    ),
    (
        "weekday",
        re.compile(r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b", re.I),
    ),
    ("zh_weekday", re.compile(r"(?:周|星期|礼拜)([一二三四五六日天])")),
    # A month on its own only capitalised: "may" is mostly a verb.
    (
        "month",
        re.compile(
            r"\b(January|February|March|April|May|June|July|August|September|October|November"
            r"|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\b"
        ),
    ),
    ("zh_month", re.compile(r"(\d{1,2}|[" + _ZH_NUM + r"]{1,3})月份?")),
    ("number", re.compile(r"[$€£¥]?(?<![\d.,])\d(?:[\d,]*\d)?(?:\.\d+)?(?![\d])%?")),
    ("zh_number", re.compile(r"[" + _ZH_NUM + r"]+(?=[" + _ZH_MEASURE + r"])")),
    ("word_number", re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b", re.I)),
]

# The only patterns that can match a text without a digit or a Chinese character.
_WORD_KINDS = frozenset({"weekday", "month", "word_number"})
_DIGIT_OR_CJK = re.compile(r"[\d\u3400-\u4dbf\u4e00-\u9fff]")

# "no longer" first, so its "no" is not counted twice; n't is spelt out as "not" before this.
_NEG_EN = re.compile(
    r"\bno\s+longer\b|\b(?:not|no|never|none|nobody|nothing|neither|nor|cannot|without)\b"
    r"|\b(?:dont|doesnt|didnt|isnt|arent|wasnt|werent|wont|cant)\b",
    re.I,
)
_NT = [
    (re.compile(r"\bcan't\b", re.I), "can not"),
    (re.compile(r"\bwon't\b", re.I), "will not"),
    (re.compile(r"n't\b", re.I), " not"),
]
# Chinese negators, and the words in which they do not negate (不过 "but", yet 不过敏 "not
# allergic"); the scanner keeps those words and drops each negator it counts.
_NEG_ZH = frozenset("不没無无非未别甭莫")
_NEG_ZH_ANY = re.compile("[" + "".join(sorted(_NEG_ZH)) + "]")
_ZH_NOT_NEGATION = re.compile(
    r"不错|不过(?!敏)|不少|不久|不同|不断|不仅|不但|差不多|无论|非常|未来|别人|别的|别处|"
    r"特别|区别|分别|告别|类别|没事儿?"
)
# Words that mark or soften an update without changing what is stated.
_FILLER = frozenset("now anymore any more still actually currently really just also".split())
_FILLER_ZH = re.compile(r"现在|目前|如今|已经|还是|仍然|其实")
_EN_WORD = re.compile(r"[a-z][a-z'-]*")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")
_NAME = re.compile(r"\b[A-Z][A-Za-z'-]*(?:\s+[A-Z][A-Za-z'-]*)*")
_SENTENCE_START = re.compile(r"(?:^|[.!?。！？:;]\s*|\n)\s*[\"'(“]?$")
_TITLE = re.compile(r"\b(?:Dr|Mr|Mrs|Ms|Prof|St)\.\s*$")
_NOT_NAMES = frozenset({"i", "i'm", "i've", "i'd", "i'll", "dr", "mr", "mrs", "ms"})


@dataclass(frozen=True)
class Gist:
    """What a text states, in the terms `compare` needs."""

    speaker: str
    words: frozenset[str]  # content words other than names
    negated: bool
    values: tuple[str, ...]  # "kind:value" other than names, in text order
    names: tuple[str, ...] = ()  # "name:alice chen", in text order
    name_words: frozenset[str] = frozenset()  # the names' words, as `words` spells words

    def by_kind(self) -> dict[str, tuple[str, ...]]:
        out: dict[str, list[str]] = {}
        for v in self.values:
            out.setdefault(v.split(":", 1)[0], []).append(v)
        return {k: tuple(v) for k, v in out.items()}

    def kinds(self) -> Counter[str]:
        return Counter(v.split(":", 1)[0] for v in (*self.values, *self.names))


def _zh_int(s: str) -> int | None:
    """A Chinese or Arabic numeral as an int (三千 -> 3000, 十一 -> 11, 两万五千 -> 25000)."""
    if s.isdigit():
        return int(s)
    total, section, digit = 0, 0, None
    for ch in s:
        if ch in _ZH_DIGIT:
            digit = _ZH_DIGIT[ch]
        elif ch in _ZH_UNIT:
            unit = _ZH_UNIT[ch]
            if unit >= 10_000:
                total += (section + (digit or 0)) * unit
                section = 0
            else:
                section += (1 if digit is None else digit) * unit
            digit = None
        else:
            return None
    return total + section + (digit or 0)


def _month(name: str) -> int:
    return _MONTHS.index(name[:3].lower()) + 1


def _value(kind: str, m: re.Match[str]) -> str | None:
    g = m.groups()
    if kind == "label":
        if g[4] is not None:
            return f"label:{g[5]}{_zh_int(g[4])}"
        word, number = (g[0], g[1]) if g[0] is not None else (g[2], g[3])
        return f"label:{word.lower()}{int(number)}"
    if kind == "iso":
        return f"date:{int(g[1])}-{int(g[2])}"
    if kind == "zh_date":
        month, day = _zh_int(g[1]), _zh_int(g[2])
        return None if month is None or day is None else f"date:{month}-{day}"
    if kind == "md":
        return f"date:{_month(g[0])}-{int(g[1])}"
    if kind == "dm":
        return f"date:{_month(g[1])}-{int(g[0])}"
    if kind == "zh_time":
        hour = _zh_int(g[1])
        if hour is None:
            return None
        if g[0] and _ZH_HALF_DAY[g[0]] and hour < 12:
            hour += 12
        minute = 30 if g[2] else 15 if g[3] else 45 if g[4] else _zh_int(g[5] or "0")
        return f"time:{hour:02d}:{minute or 0:02d}"
    if kind == "time":
        if g[0] is not None:
            hour, minute, half = int(g[0]), int(g[1]), g[2]
        else:
            hour, minute, half = int(g[3]), 0, g[4]
        if half:
            hour = hour % 12 + (12 if half.lower() == "p" else 0)
        return f"time:{hour:02d}:{minute:02d}"
    if kind == "weekday":
        return f"day:{g[0][:3].lower()}"
    if kind == "zh_weekday":
        return f"day:{_ZH_WEEKDAYS[g[0]]}"
    if kind == "month":
        return f"month:{_month(g[0])}"
    if kind == "zh_month":
        n = _zh_int(g[0])
        return None if n is None else f"month:{n}"
    if kind == "number":
        raw = m.group().strip("$€£¥%").replace(",", "")
        return f"num:{float(raw):g}"
    if kind == "zh_number":
        n = _zh_int(m.group())
        return None if n is None else f"num:{n}"
    return f"num:{_NUMBER_WORDS[g[0].lower()]}"


def values_in(text: str) -> tuple[list[tuple[int, str]], str]:
    """Every value with its position ("num:3000", "date:5-4", "time:10:15", "day:tue",
    "month:5"), and the text with each value blanked out. The firewall's consensus check reads
    values through this too, so both agree on what a value is."""
    found: list[tuple[int, str]] = []
    spans: list[tuple[int, int]] = []
    # Most memories hold no digit and no Chinese: only the word patterns can match those, and
    # trying the other patterns on every write was most of this function's cost.
    rich = _DIGIT_OR_CJK.search(text) is not None
    for kind, rx in _PATTERNS:
        if not rich and kind not in _WORD_KINDS:
            continue
        for m in rx.finditer(text):
            if any(m.start() < e and s < m.end() for s, e in spans):
                continue
            v = _value(kind, m)
            if v is not None:
                found.append((m.start(), v))
                spans.append((m.start(), m.end()))
    chars = list(text)
    for s, e in spans:
        chars[s:e] = " " * (e - s)
    return found, "".join(chars)


def _names(text: str) -> tuple[list[tuple[int, str]], str]:
    """Capitalised words inside an English sentence (a sentence's first word is not a name:
    "Thanks" and "The" start sentences as often as "Alice" does)."""
    found: list[tuple[int, str]] = []
    chars = list(text)
    for m in _NAME.finditer(text):
        words = m.group().split()
        start = m.start()
        before = text[: m.start()]
        if _SENTENCE_START.search(before) and not _TITLE.search(before):
            start += len(words[0])
            words = words[1:]
        words = [w for w in words if w.lower() not in _NOT_NAMES]
        if not words:
            continue
        found.append((start, "name:" + " ".join(w.lower() for w in words)))
        chars[start : m.end()] = " " * (m.end() - start)
    return found, "".join(chars)


def _drop_zh_negators(text: str) -> tuple[str, int]:
    """The text without its Chinese negators (deleted, not blanked, so 过敏 and 不过敏 give the
    same bigrams), and how many there were."""
    if not _NEG_ZH_ANY.search(text):  # most memories: no negator, no character walk
        return text, 0
    out: list[str] = []
    count, i = 0, 0
    while i < len(text):
        keep = _ZH_NOT_NEGATION.match(text, i)
        if keep:
            out.append(keep.group())
            i = keep.end()
            continue
        if text[i] in _NEG_ZH:
            count += 1
        else:
            out.append(text[i])
        i += 1
    return "".join(out), count


@derived_cache
@lru_cache(maxsize=16_384)
def gist(text: str) -> Gist:
    """The speaker, content words, polarity and values of one memory."""
    t = text.replace("’", "'").replace("‘", "'")
    speaker = ""
    label = _SPEAKER.match(t)
    if label:
        speaker = label.group("speaker").lower()
        t = t[label.end() :]
    values, rest = values_in(t)
    names, rest = _names(rest)
    rest = rest.lower()
    for rx, spelt in _NT:
        rest = rx.sub(spelt, rest)
    negations = len(_NEG_EN.findall(rest))
    rest, zh_negations = _drop_zh_negators(_FILLER_ZH.sub("", _NEG_EN.sub(" ", rest)))
    words = _words(rest)
    name_words = _words(" ".join(n.split(":", 1)[1] for _, n in names))
    return Gist(
        speaker,
        frozenset(words),
        (negations + zh_negations) % 2 == 1,
        tuple(v for _, v in sorted(values)),
        tuple(n for _, n in sorted(names)),
        frozenset(name_words),
    )


def _words(text: str) -> set[str]:
    """English content words, stemmed, and Chinese character bigrams (a lone character as it
    is), without stop words."""
    words: set[str] = set()
    for w in _EN_WORD.findall(text):
        w = w.strip("'-")
        if w and w not in STOPWORDS and w not in _FILLER:
            words.add(stem(w.replace("'", "")))
    for run in _CJK_RUN.findall(text):
        chars = [c for c in run if c not in CJK_STOP_CHARS]
        if len(chars) == 1:
            words.add(chars[0])
        words.update(a + b for a, b in zip(chars, chars[1:], strict=False))
    return words


def compare(older: str, newer: str) -> Verdict:
    """`same`, `update` or `different`: see the module docstring.

    Names are found by their capitals, so a text written without any ("my sister anna lives in
    berlin") is compared on its words: it names nobody, and contradicts no name."""
    a, b = gist(older), gist(newer)
    if a.speaker != b.speaker:
        return "different"
    if (
        a.words | a.name_words == b.words | b.name_words
        and a.negated == b.negated
        and a.by_kind() == b.by_kind()
        and (a.names == b.names or not a.names or not b.names)
    ):
        return "same"
    if a.by_kind().get("label") != b.by_kind().get("label"):
        return "different"  # another item of a sequence: the next event, not a new value
    if a.words == b.words and a.kinds() == b.kinds():
        return "update"
    return "different"


def same_meaning(a: str, b: str) -> bool:
    """True when the two texts say the same thing, so one may stand for both."""
    return compare(a, b) == "same"


__all__ = ["Gist", "Verdict", "compare", "gist", "same_meaning", "values_in"]
