"""Entity normalisation: one key per real-world thing, however it is written.

"Zhang San", "zhang  san", "ZHANG-SAN", "Mr. Zhang San's" and "San Zhang" (given name first) all
get the key "san zhang": the name is case-folded, titles, possessives, a leading "the" and company
suffixes are dropped, and the parts of a short multi-word name are sorted so that surname-first
and given-name-first spellings meet. An alias table maps other spellings to one canonical name.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

_TITLES = {"mr", "mrs", "ms", "miss", "dr", "prof", "sir", "madam", "mx"}
_SUFFIXES = {"inc", "corp", "corporation", "ltd", "llc", "co", "gmbh", "plc", "limited"}
_GENERIC = {"project", "projects", "team", "operation"}
_EDGE_PUNCT = re.compile(r"^[\W_]+|[\W_]+$", re.UNICODE)
_SPLIT = re.compile(r"[\s\-_·•.,]+", re.UNICODE)
_POSSESSIVE = re.compile(r"(?:'s|’s|')$")

# Aliases that hold for everyone; callers add their own (settings: GRAPHMEM_ENTITY_ALIASES).
BUILTIN_ALIASES: dict[str, str] = {
    "nyc": "new york",
    "new york city": "new york",
    "usa": "united states",
    "u s": "united states",
    "united states of america": "united states",
    "uk": "united kingdom",
    "中国": "china",
    "美国": "united states",
    "北京市": "北京",
    "上海市": "上海",
}


def clean_name(text: str) -> str:
    """The surface form, tidied for display: NFKC, single spaces, no edge punctuation."""
    text = " ".join(unicodedata.normalize("NFKC", text).split())
    return _EDGE_PUNCT.sub("", _POSSESSIVE.sub("", text))


def _parts(text: str) -> list[str]:
    text = _POSSESSIVE.sub("", unicodedata.normalize("NFKC", text).casefold().strip())
    parts = [_EDGE_PUNCT.sub("", p) for p in _SPLIT.split(text)]
    parts = [p for p in parts if p]
    if parts and parts[0] == "the":
        parts = parts[1:]
    while parts and parts[0] in _TITLES:
        parts = parts[1:]
    while len(parts) > 1 and parts[-1] in _SUFFIXES:
        parts = parts[:-1]
    if len(parts) > 1 and parts[0] in _GENERIC:  # "Project Apollo" is "Apollo"
        parts = parts[1:]
    elif len(parts) > 1 and parts[-1] in _GENERIC:
        parts = parts[:-1]
    return parts


class Normalizer:
    """Maps entity names to resolution keys; `aliases` maps a spelling to its canonical name."""

    def __init__(self, aliases: Mapping[str, str] | None = None) -> None:
        table = {**BUILTIN_ALIASES, **(aliases or {})}
        self._aliases = {" ".join(_parts(k)): " ".join(_parts(v)) for k, v in table.items()}

    def key(self, name: str) -> str:
        """The resolution key; '' when nothing meaningful is left (then it is no entity)."""
        parts = _parts(name)
        joined = " ".join(parts)
        if joined in self._aliases:
            parts = self._aliases[joined].split(" ")
        if 1 < len(parts) <= 3 and all(p.isalpha() for p in parts):
            parts = sorted(parts)
        key = " ".join(parts)
        return key if len(key) >= 2 or not key.isascii() else ""
