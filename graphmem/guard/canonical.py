"""Canonicalisation: one readable form of a text, however it was disguised, plus what was undone.

Screening rules are written against plain lower-case text. An attacker who writes
"ign\u200bore previous instructions" with a zero-width space, "ignоre" with a Cyrillic "о",
full-width letters, invisible Unicode tag characters or a base64 blob would walk past them. So
before any rule runs, the text is

1. *sanitised*: invisible format characters (zero-width spaces and joiners, BOM, bidi controls,
   variation selectors, soft hyphens) are removed, and Unicode tag characters - which smuggle
   ASCII that no human sees - are removed from the text and decoded into a separate view.
   The sanitised text is what should be stored: nothing invisible reaches a later prompt.
2. *folded*: NFKC per character (full-width and mathematical letters become ASCII), Cyrillic and
   Greek look-alikes become Latin, everything is lower-cased, and spaces between CJK characters
   are dropped. An index map from folded to sanitised positions lets the PII recognisers, which
   run on the folded text, mask the right characters of the stored text.
3. *decoded*: embedded base64, hex, percent, HTML-entity and backslash escapes, leetspeak,
   s p a c e d - o u t or s-p-l-i-t letters and reversed sentences ("snoitcurtsni suoiverp
   erongi") each become an extra view that the rules and the classifier also read.

Every transformation that fired is reported as a signal: obfuscation is itself evidence.
"""

from __future__ import annotations

import base64
import binascii
import html
import re
import unicodedata
from dataclasses import dataclass, field
from urllib.parse import unquote

# fmt: off
# Invisible code points that carry no visible text. U+200D (ZWJ) and U+FE0F (emoji presentation)
# are kept after an emoji so emoji sequences survive sanitising.
_INVISIBLE_RANGES = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F),
    (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0x1D173, 0x1D17A),
    (0xE0000, 0xE007F), (0xE0100, 0xE01EF), (0x0600, 0x0605), (0x06DD, 0x06DD), (0x070F, 0x070F),
    (0x08E2, 0x08E2), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3),
)
_INVISIBLE_RE = re.compile(
    "[" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in _INVISIBLE_RANGES) + "]"
)
_TAG_LO, _TAG_HI = 0xE0020, 0xE007E

# Confusable letters (Cyrillic, Greek, Armenian, Latin variants) -> Latin. Upper-case entries are
# listed too because folding happens before lower-casing.
_HOMOGLYPHS = {
    "а": "a", "в": "b", "е": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c",
    "т": "t", "у": "y", "х": "x", "і": "i", "ј": "j", "ѕ": "s", "ԁ": "d", "ԛ": "q", "ԝ": "w",
    "ү": "y", "һ": "h", "ӏ": "l", "ё": "e", "ї": "i", "А": "a", "В": "b", "Е": "e", "К": "k",
    "М": "m", "Н": "h", "О": "o", "Р": "p", "С": "c", "Т": "t", "Х": "x", "У": "y", "І": "i",
    "Ј": "j", "Ѕ": "s", "α": "a", "β": "b", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o",
    "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "γ": "y", "Α": "a", "Β": "b", "Ε": "e", "Ζ": "z",
    "Η": "h", "Ι": "i", "Κ": "k", "Μ": "m", "Ν": "n", "Ο": "o", "Ρ": "p", "Τ": "t", "Υ": "y",
    "Χ": "x", "օ": "o", "ս": "u", "ց": "g", "ı": "i", "ɑ": "a", "ɡ": "g", "ʏ": "y", "ɩ": "i",
}
# fmt: on
_LATIN_RE = re.compile(r"[A-Za-z]")
_CONFUSABLE_RE = re.compile("[" + "".join(_HOMOGLYPHS) + "]")
_WORD_RE = re.compile(r"\S+")
_FULLWIDTH_ALNUM = re.compile(r"[\uff10-\uff19\uff21-\uff3a\uff41-\uff5a]")
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_CJK_PUNCT = "，。：；！？、“”‘’（）【】《》,.:;!?()\"'"
_CJK_SPACE_RE = re.compile(
    rf"(?<=[{_CJK}])[ \t\u3000]+(?=[{_CJK}{_CJK_PUNCT}])"
    rf"|(?<=[{_CJK_PUNCT}])[ \t\u3000]+(?=[{_CJK}])"
)

_B64_RE = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{16,}={0,2}")
_HEX_RE = re.compile(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}){8,}(?![0-9A-Fa-f])")
_ESCAPE_HINT = re.compile(
    r"%[0-9a-f]{2}|&#x?[0-9a-f]+;|&[a-z]+;|\\x[0-9a-f]{2}|\\u[0-9a-f]{4}", re.I
)
_BACKSLASH_X = re.compile(r"\\x([0-9a-fA-F]{2})")
_BACKSLASH_U = re.compile(r"\\u([0-9a-fA-F]{4})")
_LEET_TOKEN = re.compile(r"(?<![a-z0-9@$])[a-z0-9@$]{2,15}(?![a-z0-9@$])")
_LEET_MIX = re.compile(r"[a-z][0-9@$]|[0-9@$][a-z]")
# A number and its unit or ordinal ("30min", "4pm", "2nd", "128gb") is how people write
# quantities, not letters swapped for digits ("1gn0re"); undoing it only invents words.
_NUMBER_UNIT = re.compile(
    r"\d+(?:st|nd|rd|th|am|pm|mins?|hrs?|h|s|ms|secs?|k|m|bn|mb|gb|tb|kb|x|d|w|wk|mo|yrs?|kg|g|"
    r"lbs?|km|cm|mm|ml|l|p|fps|hz|ghz|v|w|kw|kwh)"
)
# fmt: off
_LEET_MAP = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t",
                           "@": "a", "$": "s", "8": "b", "9": "g"})
# fmt: on
# One letter or digit (leet's @ and $ too), then the same separator between every pair:
# "i g n o r e", "i-g-n-o-r-e", "i.g.n.o.r.e", "i_g_n_o_r_e", "i - g - n". Three letters at
# least ("e.g." and "U.S." stay as they are; digits alone, "1.2.3", are versions, not words).
# One separator throughout keeps the words of "i-g-n-o-r-e p-r-e-v-i-o-u-s" apart, so the
# joined view reads "ignore previous".
_SPLIT_CHAR = r"(?:[^\W_]|[@$])"
_SPLIT_RUN = re.compile(
    rf"(?<![^\W_]){_SPLIT_CHAR}(\s*[-._*\u00b7\u2022|/\\~+]{{1,3}}\s*|[ \t]{{1,3}})"
    rf"(?:{_SPLIT_CHAR}\1)+{_SPLIT_CHAR}(?![^\W_])"
)
_SPLIT_VIEW_MIN = 3  # letters in a run for the joined view
_SPLIT_SIGNAL_MIN = 6  # letters in a run for the "spaced" signal and the compact view


@dataclass(frozen=True)
class Canonical:
    """A text prepared for screening.

    `sanitized` is the text to store (invisible characters gone). `folded` is what rules and
    recognisers read; `index_map[i]` is the position in `sanitized` of `folded[i]` (None when the
    two are aligned one to one). `views` are extra readings - decoded payloads, hidden tag text,
    leetspeak and spaced-out letters undone - and `signals` counts each obfuscation found.
    """

    sanitized: str
    folded: str
    index_map: list[int] | None = None
    views: dict[str, str] = field(default_factory=dict)
    signals: dict[str, int] = field(default_factory=dict)
    compact: str | None = None

    def span_in_sanitized(self, start: int, end: int) -> tuple[int, int]:
        """Map a [start, end) span of `folded` back onto `sanitized`."""
        if self.index_map is None:
            return start, end
        if start >= len(self.index_map):
            return len(self.sanitized), len(self.sanitized)
        last = self.index_map[max(start, end - 1)]
        return self.index_map[start], last + 1


def _is_emoji(ch: str) -> bool:
    return ord(ch) >= 0x1F000 or unicodedata.category(ch) == "So"


def sanitize(text: str) -> tuple[str, str, int]:
    """Remove invisible characters; return (clean text, decoded tag-character text, count).

    The count only includes invisible characters that sit next to a letter or digit: a ZWJ inside
    an emoji sequence is normal, one inside "ign\u200bore" is an attack.
    """
    if text.isascii() or not _INVISIBLE_RE.search(text):
        return text, "", 0
    out: list[str] = []
    hidden: list[str] = []
    suspicious = 0
    prev = ""
    for i, ch in enumerate(text):
        cp = ord(ch)
        if _INVISIBLE_RE.match(ch):
            if _TAG_LO <= cp <= _TAG_HI:
                hidden.append(chr(cp - 0xE0000))
                continue
            if cp in (0x200D, 0xFE0F) and prev and _is_emoji(prev):
                out.append(ch)
                continue
            nxt = text[i + 1] if i + 1 < len(text) else ""
            if (prev and prev.isalnum()) or (nxt and nxt.isalnum()):
                suspicious += 1
            continue
        out.append(ch)
        prev = ch
    return "".join(out), "".join(hidden), suspicious


def _mixed_script_words(text: str) -> int:
    """Words mixing Latin letters with look-alikes from another script (a homoglyph attack)."""
    count = 0
    for m in _WORD_RE.finditer(text):
        w = m.group()
        if _CONFUSABLE_RE.search(w) and _LATIN_RE.search(w):
            count += 1
    return count


def fold(text: str) -> tuple[str, list[int] | None, int]:
    """NFKC + homoglyph folding + lower-casing, with a map back to positions in `text`.

    Also returns how many spaces were dropped between CJK characters ("忽 略 指 令").
    """
    if text.isascii():
        folded = text.lower()
        index: list[int] | None = None
    else:
        parts: list[str] = []
        index = []
        for i, ch in enumerate(text):
            if ch.isascii():
                parts.append(ch.lower())
                index.append(i)
                continue
            n = unicodedata.normalize("NFKC", ch)
            for c in n:
                c = _HOMOGLYPHS.get(c, c).lower()
                parts.append(c)
                index.extend([i] * len(c))
        folded = "".join(parts)
    dropped = 0
    if not folded.isascii() and _CJK_SPACE_RE.search(folded):
        keep = [True] * len(folded)
        for m in _CJK_SPACE_RE.finditer(folded):
            dropped += 1
            for j in range(m.start(), m.end()):
                keep[j] = False
        base = index if index is not None else list(range(len(folded)))
        folded = "".join(c for c, k in zip(folded, keep, strict=True) if k)
        index = [p for p, k in zip(base, keep, strict=True) if k]
    return folded, index, dropped


def _printable_text(raw: bytes) -> str | None:
    """Decoded bytes that read as natural language (not binary noise), else None."""
    try:
        s = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if len(s) < 6:
        return None
    ok = sum(1 for c in s if c.isprintable() or c in "\n\t")
    letters = sum(1 for c in s if c.isalpha())
    if ok / len(s) < 0.9 or letters / len(s) < 0.4:
        return None
    if " " not in s and not re.search(f"[{_CJK}]", s):
        return None
    return s


def _decode_b64(token: str) -> str | None:
    if not (
        re.search(r"[0-9+/_-]", token) or (re.search("[a-z]", token) and re.search("[A-Z]", token))
    ):
        return None
    padded = token + "=" * (-len(token) % 4)
    for decoder in (base64.b64decode, base64.urlsafe_b64decode):
        try:
            got = _printable_text(decoder(padded))
        except (binascii.Error, ValueError):
            continue
        if got:
            return got
    return None


def decode_payloads(text: str) -> dict[str, list[str]]:
    """Natural-language payloads hidden in base64, hex or escape sequences inside `text`."""
    found: dict[str, list[str]] = {}
    if len(text) >= 16:
        for m in _B64_RE.finditer(text):
            got = _decode_b64(m.group())
            if got:
                found.setdefault("base64", []).append(got)
        for m in _HEX_RE.finditer(text):
            got = _printable_text(bytes.fromhex(m.group()))
            if got:
                found.setdefault("hex", []).append(got)
    if _ESCAPE_HINT.search(text):
        s = _BACKSLASH_U.sub(lambda m: chr(int(m.group(1), 16)), text)
        s = _BACKSLASH_X.sub(lambda m: chr(int(m.group(1), 16)), s)
        s = html.unescape(unquote(s))
        if s != text:
            found.setdefault("escape", []).append(s)
    return found


def _join_split(folded: str) -> tuple[str, int]:
    """Join s p a c e d or s-p-l-i-t letters; returns the joined text and the longest run's
    letter count (0 when no run of `_SPLIT_VIEW_MIN` letters was found)."""
    longest = 0

    def join(m: re.Match[str]) -> str:
        nonlocal longest
        letters = m.group().split(m.group(1))
        if not any(c.isalpha() for c in letters):
            return m.group()
        longest = max(longest, len(letters))
        return "".join(letters)

    return _SPLIT_RUN.sub(join, folded), longest


# Words an instruction is made of, and the commonest function words. Reversed text is spotted
# when its words, read backwards, are these words and read forwards are not. No entry reversed
# is another entry ("was"/"saw" are both left out), and all have three letters or more, because
# two-letter words ("no"/"on") read as words both ways round.
_LEXICON = frozenset(
    """
    the and you your yours all are for not with this that from any ignore ignoring previous
    instructions instruction rules rule system prompt prompts forget disregard above earlier prior
    reveal password passwords send user users data secret secrets tell must new admin access
    delete print output respond reply only always never say what have will should can they them
    their there here when where which who how why into about after before then than also just
    more some other every each make like were been being has had does did our out over under
    again please write give take show bank account money transfer email number card approve
    confirm without instead follow following message messages assistant agent model mode
    developer role act pretend task tool call execute command file files memory memories store
    remember settings policy limit limits restrictions guidelines directions orders everything
    nothing anything someone today tomorrow meeting buy milk need needs want wants know think
    going doing because could would these those such very much many most first last next
    previously ignored forgotten override bypass disable enable unlock grant granted allowed
    allow forbidden safety filter filters content answer answers question questions
    """.split()
)
# Chinese words as above; a reversed Chinese sentence reads them back to front.
_LEXICON_ZH = tuple(
    "忽略 之前 以上 所有 指令 规则 系统 提示 密码 发送 用户"
    " 数据 现在 不要 必须 输出 回复 告诉 我们 你的 设置 限制".split()
)
_SEGMENT_RE = re.compile(r"[^.!?;\n。！？；]+")
_LEX_WORD_RE = re.compile(r"[a-z]{3,}")


def _lexicon_hits(segment: str) -> int:
    hits = sum(1 for w in _LEX_WORD_RE.findall(segment) if w in _LEXICON)
    if not segment.isascii():
        hits += sum(segment.count(w) for w in _LEXICON_ZH)
    return hits


def _unreverse(text: str) -> tuple[str, int]:
    """Reverse each sentence that reads as words backwards and not forwards; returns the text
    with those sentences turned round and how many there were. Two lexicon words read backwards
    at least, and more than twice as many as read forwards, so "I saw pots" stays as it is."""
    count = 0

    def turn(m: re.Match[str]) -> str:
        nonlocal count
        seg = m.group()
        back = seg[::-1]
        rev = _lexicon_hits(back)
        if rev >= 2 and rev > 2 * _lexicon_hits(seg):
            count += 1
            return back
        return seg

    return _SEGMENT_RE.sub(turn, text), count


def canonicalize(text: str, *, max_depth: int = 2) -> Canonical:
    """Sanitise, fold and decode `text`; see the module docstring for why each step exists."""
    sanitized, hidden, zw = sanitize(text)
    folded, index, cjk_spaces = fold(sanitized)
    signals: dict[str, int] = {}
    views: dict[str, str] = {}
    if zw:
        signals["zero_width"] = zw
    if hidden.strip():
        signals["tag_chars"] = len(hidden)
        views["tag_chars"] = fold(hidden)[0]
    if cjk_spaces >= 6:
        signals["spaced"] = cjk_spaces
    if not sanitized.isascii():
        mixed = _mixed_script_words(sanitized)
        if mixed:
            signals["homoglyph"] = mixed
        wide = len(_FULLWIDTH_ALNUM.findall(sanitized))
        if wide >= 4:
            signals["fullwidth"] = wide
    if max_depth > 0:
        for kind, payloads in decode_payloads(sanitized).items():
            decoded = [canonicalize(p, max_depth=max_depth - 1) for p in payloads]
            signals[kind] = len(payloads)
            views[kind] = "\n".join("\n".join([d.folded, *d.views.values()]) for d in decoded)
            for d in decoded:
                for k, v in d.signals.items():
                    signals[k] = signals.get(k, 0) + v
    leet = 0

    def unleet(m: re.Match[str]) -> str:
        nonlocal leet
        tok = m.group()
        if not _LEET_MIX.search(tok) or _NUMBER_UNIT.fullmatch(tok):
            return tok
        leet += 1
        return tok.translate(_LEET_MAP)

    if re.search(r"[0-9@$]", folded):
        view = _LEET_TOKEN.sub(unleet, folded)
        if leet:
            if leet >= 3:
                signals["leetspeak"] = leet
                # In text this leet-heavy, short all-digit tokens are words too ("70" = "to").
                view = re.sub(
                    r"(?<![\w.,:$])\d{1,3}(?![\w.,:])",
                    lambda m: m.group().translate(_LEET_MAP),
                    view,
                )
            views["leetspeak"] = view
    compact = None
    joined, run = _join_split(folded)
    if run >= _SPLIT_VIEW_MIN:
        views["spaced"] = joined
    if run >= _SPLIT_SIGNAL_MIN:
        signals["spaced"] = run
        compact = re.sub(rf"[^a-z0-9{_CJK}]+", "", joined)
    turned, reversed_count = _unreverse(joined)
    if reversed_count:
        signals["reversed"] = reversed_count
        views["reversed"] = turned
    return Canonical(sanitized, folded, index, views, signals, compact)


__all__ = ["Canonical", "canonicalize", "decode_payloads", "fold", "sanitize"]
