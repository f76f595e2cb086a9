"""The default extractor: spaCy for English, jieba and rules for Chinese, cue words for both.

Works offline and needs no LLM. Mentions that overlap keep the longest one.
"""

from __future__ import annotations

from collections.abc import Mapping

from graphmem.extractors.base import Extraction, Mention
from graphmem.extractors.chinese import chinese_mentions
from graphmem.extractors.cues import find_cues
from graphmem.extractors.english import english_mentions, has_cjk
from graphmem.extractors.normalize import Normalizer


def _dedupe(mentions: list[Mention]) -> list[Mention]:
    out: list[Mention] = []
    for m in sorted(mentions, key=lambda m: (m.start, -(m.end - m.start))):
        if out and m.start < out[-1].end:
            continue
        out.append(m)
    return out


class RuleExtractor:
    name = "rules"

    def __init__(self, aliases: Mapping[str, str] | None = None) -> None:
        self.norm = Normalizer(aliases)

    def extract_many(self, texts: list[str]) -> list[Extraction]:
        ascii_like = [not has_cjk(t) or any(c.isascii() and c.isalpha() for c in t) for t in texts]
        english = english_mentions([t if a else "" for t, a in zip(texts, ascii_like, strict=True)],
                                   self.norm)
        out = []
        for text, en in zip(texts, english, strict=True):
            mentions = list(en)
            if has_cjk(text):
                mentions.extend(chinese_mentions(text, self.norm))
            mentions = _dedupe([m for m in mentions if m.entity.key])
            out.append(Extraction(mentions, find_cues(text, mentions)))
        return out

    def extract(self, text: str) -> Extraction:
        return self.extract_many([text])[0]
