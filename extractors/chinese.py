"""Chinese entities: jieba's part-of-speech dictionary plus suffix rules.

jieba tags person names (nr), places (ns), organisations (nt) and other proper nouns (nz) from
its bundled dictionary, offline. Rules add names ending in an organisation or project word
(公司, 银行, 医院, 大学, 项目, ...), which the dictionary often splits.
"""

from __future__ import annotations

import logging
import threading
from functools import lru_cache
from typing import Any

from graphmem.extractors.base import Entity, Mention
from graphmem.extractors.normalize import Normalizer
from graphmem.infra.extras import optional_extra

FLAGS = {"nr": "person", "nrfg": "person", "nrt": "person", "ns": "place", "nt": "org",
         "nz": "thing"}
_SUFFIX = ("公司", "集团", "银行", "医院", "大学", "学院", "研究所", "项目", "团队", "基金")
_NOUNISH = {"n", "nr", "nrfg", "nrt", "ns", "nt", "nz", "eng", "j", "nl", "ng"}
_lock = threading.Lock()


@lru_cache(maxsize=1)
def _posseg() -> Any | None:
    """jieba's tagger, or None without graphmem[zh]: then Chinese text has no entities (one
    warning says so), while storing and keyword search still work, since graphmem.domain.text
    tokenises CJK by characters and bigrams without jieba."""
    if (
        optional_extra(
            "jieba",
            "zh",
            "Chinese entity extraction",
            "Chinese memories are stored and searched by their characters, without entities",
        )
        is None
    ):
        return None
    import jieba
    import jieba.posseg

    jieba.setLogLevel(logging.WARNING)
    with _lock:
        jieba.initialize()
    return jieba.posseg


def chinese_mentions(text: str, norm: Normalizer) -> list[Mention]:
    out: list[Mention] = []
    posseg = _posseg()
    if posseg is None:
        return out
    words: list[tuple[str, str, int]] = []
    pos = 0
    for word, flag in posseg.cut(text):
        start = text.find(word, pos)
        if start < 0:
            continue
        pos = start + len(word)
        words.append((word, flag, start))
        etype = FLAGS.get(flag)
        if etype and len(word) >= 2:
            key = norm.key(word)
            if key:
                out.append(Mention(Entity(key, word, etype), start, start + len(word)))
    # "阿波罗" + "项目", "华为" + "公司": a name followed by an organisation or project word.
    for i, (word, _flag, start) in enumerate(words):
        if not word.endswith(_SUFFIX) or i == 0:
            continue
        j = i
        while j > 0 and i - j < 3 and words[j - 1][1] in _NOUNISH and len(words[j - 1][0]) > 1:
            j -= 1
        if j == i:
            continue
        name = text[words[j][2] : start + len(word)]
        etype = "project" if word.endswith("项目") else "org"
        out.append(Mention(Entity(norm.key(name), name, etype), words[j][2], start + len(word)))
    return out
