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
shares a whole two-character word above one that shares its characters apart. Function
characters and words (ZH_STOP_CHARS, ZH_STOP_WORDS: particles, pronouns, question words,
prepositions, conjunctions) are dropped as unigrams, and a bigram is dropped when it is a stop
word or both its characters are; a bigram with one function character (了解, 在线, 是否) can be a
word and is kept. Kana and Hangul keep bigrams only: their single syllables are mostly particles.

The tokens a store holds depend on this code, so it has a version (TOKENIZER_VERSION), recorded
with the store: a store written by another version has its keyword column rewritten
(graphmem.usecases.backfill.reindex_keywords) before it is searched with these tokens.
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
# Chinese function words that carry no topic on their own (graphmem.meaning compares gists
# with this short list; the keyword channel drops the longer ones below).
CJK_STOP_CHARS = frozenset("的了是在我你他她它们这那就都也和与及或而吗呢吧啊呀么")
# One-character function words: pronouns, particles, question words, prepositions, conjunctions,
# auxiliaries and degree adverbs. No topic characters (no 茶, 家, 工作): a stop list is for
# words that every text has, the rest is BM25's idf's job.
ZH_STOP_CHARS = CJK_STOP_CHARS | frozenset(
    "您咱俺自己其之此该各每某些个"
    "什谁哪怎几多"
    "吗呢吧啊呀么嘛啦哦哈嗯呃哎噢哇"
    "着过得地被把给让从向对于以为由自到往跟同与及并且但却而则即若如因所将已曾"
    "很太更最挺还又再也都就才只仅"
    "会能要可应该"
    "不没"
)
# Two-character function words, dropped as bigrams (their characters are dropped as unigrams
# when they are in ZH_STOP_CHARS).
ZH_STOP_WORDS = frozenset(
    """什么 怎么 怎样 为什么 哪里 哪儿 哪个 那个 这个 这些 那些 一个 一些 我们 你们 他们 她们
    它们 咱们 自己 可以 因为 所以 但是 如果 就是 还是 或者 而且 然后 已经 没有 不是 一下 一点
    有点 有些 这样 那样 这么 那么 其实 比较 非常 一直 时候 平时 通常 一般 经常 常常 总是
    有时 往往 大概 可能 应该 需要 然后 现在 刚才""".split()
)
_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# What the tokens of a store were made by: bump when `tokens` changes what it emits for any text.
# 1: CJK bigrams only; 2: Chinese unigrams too, and the Chinese stop lists above.
TOKENIZER_VERSION = 2


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
    """A CJK run's unigrams (Chinese characters that are not function words) and bigrams, in
    text order: each character, then the bigram it starts. The characters of a two-character
    function word (平时, 什么) are not unigrams either."""
    if len(run) == 1:
        return [] if run in ZH_STOP_CHARS else [run]
    pairs = [run[i : i + 2] for i in range(len(run) - 1)]
    covered: set[int] = set()
    for i, pair in enumerate(pairs):
        if pair in ZH_STOP_WORDS:
            covered.update((i, i + 1))
    out: list[str] = []
    for i, a in enumerate(run):
        if i not in covered and a not in ZH_STOP_CHARS and _HAN.match(a):
            out.append(a)
        if i < len(pairs):
            pair = pairs[i]
            if pair not in ZH_STOP_WORDS and not (a in ZH_STOP_CHARS and pair[1] in ZH_STOP_CHARS):
                out.append(pair)
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
