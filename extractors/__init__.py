"""Entity and relation extraction: one interface, an offline default, an optional LLM.

`Extractor.extract_many(texts)` returns, per text, the entities it mentions (normalised so that
one person or project has one key however it is written) and its causal and temporal cues. The
default, `RuleExtractor`, uses spaCy's English model and jieba plus rules for Chinese; it needs
no network and no LLM.
"""

from __future__ import annotations

from collections.abc import Mapping

from graphmem.extractors.base import Cue, Entity, Extraction, Extractor, Mention
from graphmem.extractors.normalize import Normalizer
from graphmem.extractors.rules import RuleExtractor

__all__ = [
    "Cue",
    "Entity",
    "Extraction",
    "Extractor",
    "Mention",
    "Normalizer",
    "NullExtractor",
    "RuleExtractor",
    "make_extractor",
]


class NullExtractor:
    """Extracts nothing: memories are stored without entities or inferred relations."""

    name = "none"

    def extract_many(self, texts: list[str]) -> list[Extraction]:
        return [Extraction() for _ in texts]


def make_extractor(name: str = "rules", aliases: Mapping[str, str] | None = None) -> Extractor:
    if name == "none":
        return NullExtractor()
    if name == "rules":
        return RuleExtractor(aliases)
    raise ValueError(f"unknown extractor {name!r}; use 'rules' or 'none'")
