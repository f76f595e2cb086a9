"""Keyword tokens that work the same in SQLite FTS5 and MySQL/MariaDB FULLTEXT.

Both engines tokenise on their own, differently, and neither splits Chinese. So graphmem turns
text into its own tokens first and stores them space-separated in `memories.search_text`:
English words lower-cased, stop words dropped and Snowball-stemmed; CJK runs cut into character
bigrams (a lone character stays a unigram). Every token is spelt in ASCII of at least three
characters, because MySQL and MariaDB ignore shorter tokens by default (innodb_ft_min_token_size
= 3) and cannot index CJK without the ngram parser, which MariaDB lacks.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import snowballstemmer

_STEMMER = snowballstemmer.stemmer("english")

# Word runs and CJK runs (Han, Hiragana, Katakana, Hangul).
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TOKEN_RE = re.compile(rf"([{_CJK}]+)|([^\W_{_CJK}]+(?:'[^\W_{_CJK}]+)?)", re.UNICODE)

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is it its itself
    just me more most my myself no nor not now of off on once only or other our ours ourselves out
    over own same she should so some such than that the their theirs them themselves then there
    these they this those through to too under until up very was we were what when where which
    while who whom why will with would you your yours yourself yourselves i'm i've i'd i'll it's
    that's don't didn't doesn't isn't wasn't aren't can't won't let's also get got really yeah
    oh hey hi ok okay""".split()
)
# Chinese function words that carry no topic on their own.
CJK_STOP_CHARS = frozenset("的了是在我你他她它们这那就都也和与及或而吗呢吧啊呀么")


@lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    """Snowball's English stem, cached: the pure-Python stemmer costs ~0.1 ms a word, and the
    keyword index, merge-on-write and the consensus check stem the same words again and again."""
    return _STEMMER.stemWord(word)


def _encode(token: str) -> str:
    """Spell a token in ASCII of >= 3 chars: plain ASCII words get a prefix when too short."""
    if token.isascii():
        return token if len(token) >= 3 else f"x{token}x"[: max(3, len(token) + 2)]
    return "u" + "".join(f"{ord(c):x}" for c in token)


def tokens(text: str) -> list[str]:
    """The keyword tokens of `text`, in order, duplicates kept (term frequency matters)."""
    text = unicodedata.normalize("NFKC", text).lower()
    out: list[str] = []
    for cjk, word in _TOKEN_RE.findall(text):
        if cjk:
            chars = [c for c in cjk]
            if len(chars) == 1:
                if chars[0] not in CJK_STOP_CHARS:
                    out.append(_encode(chars[0]))
                continue
            for a, b in zip(chars, chars[1:], strict=False):
                if a in CJK_STOP_CHARS and b in CJK_STOP_CHARS:
                    continue
                out.append(_encode(a + b))
        elif word and word not in STOPWORDS:
            out.append(_encode(stem(word.replace("'", ""))))
    return out


def search_text(text: str) -> str:
    """What goes into the full-text column for a memory."""
    return " ".join(tokens(text))


def query_terms(text: str, limit: int = 32) -> list[str]:
    """Distinct tokens of a query, first occurrences first, at most `limit` of them."""
    seen: dict[str, None] = {}
    for t in tokens(text):
        seen.setdefault(t, None)
        if len(seen) >= limit:
            break
    return list(seen)
