"""The extractor interface and what every extractor returns.

An extractor reads one memory's text and returns the entities it mentions (with where, so cue
clauses can be matched to entities) and the causal and temporal cues it contains. Turning those
into memory-to-memory relations needs the other memories, so that happens in the service
(`graphmem.domain.linking`), not here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class Entity:
    """A resolved entity: `key` is what identifies it across memories of one user."""

    key: str
    name: str
    entity_type: str = "thing"


@dataclass(frozen=True)
class Mention:
    entity: Entity
    start: int
    end: int


@dataclass(frozen=True)
class Cue:
    """A causal or temporal cue and the entity keys on each side of it.

    `earlier` holds the keys of the cause (causal) or the earlier event (temporal); `later` those
    of the effect or the later event. `to_previous` means the cue opens its sentence ("So I ...",
    "Then ...", "所以..."): the cause or earlier event is whatever was said just before.
    """

    kind: str  # causal | temporal
    word: str
    earlier: frozenset[str] = frozenset()
    later: frozenset[str] = frozenset()
    to_previous: bool = False
    strength: float = 0.8


@dataclass
class Extraction:
    mentions: list[Mention] = field(default_factory=list)
    cues: list[Cue] = field(default_factory=list)

    @property
    def entities(self) -> list[Entity]:
        """Distinct entities by key, first mention first."""
        seen: dict[str, Entity] = {}
        for m in self.mentions:
            seen.setdefault(m.entity.key, m.entity)
        return list(seen.values())

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(m.entity.key for m in self.mentions)


class Extractor(Protocol):
    name: str

    def extract_many(self, texts: list[str]) -> list[Extraction]:
        """One Extraction per text, in order. Must work offline and never raise on odd input."""
