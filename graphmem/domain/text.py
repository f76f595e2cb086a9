"""Keyword tokens that work the same in SQLite FTS5 and MySQL/MariaDB FULLTEXT.

Both engines tokenise on their own, differently, and neither splits Chinese. So graphmem turns
text into its own tokens first and stores them space-separated in `memories.search_text`:
English words lower-cased, stop words dropped and Snowball-stemmed; CJK runs cut into character
bigrams, and Chinese characters also kept one by one. Every token is spelt in ASCII of at least
three characters, because MySQL and MariaDB ignore shorter tokens by default
(innodb_ft_min_token_size = 3) and cannot index CJK without the ngram parser, which MariaDB lacks.

Why unigrams as well as bigrams: many Chinese words are one character (喝 drink, 茶 tea, 车 car,
猫 cat), and a paraphrase shares them without sharing any bigram: "我平时喝什么茶？" and
"我喜欢喝龙井茶。" have no bigram in common but 喝 and 茶. Bigrams still rank a memory that
shares a whole two-character word above one that shares its characters apart.

Why no Chinese stop list (version 3): the keyword channel scores with each user's own document
frequencies, so a character in most of a user's memories (我, 的, 在) already weighs next to
nothing, while a "function" word that is rare in this user's memories can be the only thing a
question shares with its answer: 现在 (now) marks the update a latest-value question asks
for ("装修期间我现在住在哪里？" - "……现在在公司附近短租了一套公寓。"), 一般 joins
"我的午饭一般怎么解决？" to "中午一般在公司楼下吃兰州拉面。". Version 2 dropped such words at
indexing time and ranked below a plain BM25 over the same memories on the Chinese recall set's
tune half; idf decides instead. Kana and Hangul keep bigrams only: their single syllables are
mostly particles.

The tokens a store holds depend on this code, so it has a version (TOKENIZER_VERSION), recorded
with the store: a store written by another version has its keyword column rewritten
(graphmem.usecases.backfill.reindex_keywords) before it is searched with these tokens.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Any, TypeVar

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
# Chinese function characters that carry no topic on their own: graphmem.domain.meaning compares
# gists without them. The keyword index keeps them (module docstring): idf weighs them per user.
CJK_STOP_CHARS = frozenset("的了是在我你他她它们这那就都也和与及或而吗呢吧啊呀么")
_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# What the tokens of a store were made by: bump when `tokens` changes what it emits for any text.
# 1: CJK bigrams only; 2: Chinese unigrams too, less the Chinese stop lists above; 3: every
# Chinese character and bigram (no stop list: the user's idf weighs them).
TOKENIZER_VERSION = 3


T = TypeVar("T")
_DERIVED: list[Any] = []


def derived_cache(cached: T) -> T:
    """Register an lru_cache whose keys are text users wrote (a memory's content, an entity's
    name, a word), so erasing a user can empty it: `forget_derived` clears them all."""
    _DERIVED.append(cached)
    return cached


def forget_derived() -> int:
    """Empty every cache of text derived from what users wrote; returns the entries dropped.
    Keyed by the text alone, an entry cannot be traced to its user, so all of them go."""
    dropped = 0
    for cached in _DERIVED:
        dropped += cached.cache_info().currsize
        cached.cache_clear()
    return dropped


@derived_cache
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


def _cjk_tokens(run: str) -> list[str]:
    """A CJK run's Chinese characters and its bigrams, in text order: each character, then the
    bigram it starts (kana and Hangul: bigrams only, or the run itself when it is one
    character)."""
    if len(run) == 1:
        return [run]
    out: list[str] = []
    for i, a in enumerate(run):
        if _HAN.match(a):
            out.append(a)
        if i < len(run) - 1:
            out.append(run[i : i + 2])
    return out


def tokens(text: str) -> list[str]:
    """The keyword tokens of `text`, in order, duplicates kept (term frequency matters)."""
    text = unicodedata.normalize("NFKC", text).lower()
    out: list[str] = []
    for cjk, word in _TOKEN_RE.findall(text):
        if cjk:
            out.extend(_encode(t) for t in _cjk_tokens(cjk))
        elif word and word not in STOPWORDS:
            out.append(_encode(stem(word.replace("'", ""))))
    return out


def plain_terms(text: str) -> set[str]:
    """The distinct terms `tokens` reads, as plain strings: words (stop words out, not stemmed)
    and CJK characters and bigrams, without the Unicode normalisation and the index encoding.
    For comparing a query with a handful of texts in memory (graphmem.usecases.bridge_answer,
    over twenty hits per search), where `tokens` cost 1.6 ms per Chinese search and this 0.2."""
    out: set[str] = set()
    for cjk, word in _TOKEN_RE.findall(text.lower()):
        if cjk:
            out.update(_cjk_tokens(cjk))
        elif word not in STOPWORDS:
            out.add(word)
    return out


def search_text(text: str) -> str:
    """What goes into the full-text column for a memory."""
    return " ".join(tokens(text))


# Distinct terms a query keeps. Not a relevance choice: an agent that searches with the last
# few turns of a dialogue sends a hundred or more distinct tokens, and keeping the first 32 of
# them kept the dialogue and dropped the question at its end. The keyword channel chooses among
# the terms by their document frequency (graphmem.stores.records.keyword), which only it knows;
# this bound only keeps a pasted document from costing a lookup per word.
QUERY_TERMS_MAX = 512


def query_terms(text: str, limit: int = QUERY_TERMS_MAX) -> list[str]:
    """Distinct tokens of a query, first occurrences first, at most `limit` of them."""
    seen: dict[str, None] = {}
    for t in tokens(text):
        seen.setdefault(t, None)
        if len(seen) >= limit:
            break
    return list(seen)
