"""`mcp-memory`: the file of the MCP reference memory server (@modelcontextprotocol/server-memory).

Its `memory.json` holds one JSON object per line: entities
`{"type": "entity", "name", "entityType", "observations": [...]}` and relations
`{"type": "relation", "from", "to", "relationType"}`. graphmem keeps memories, and finds
entities in them, so each observation becomes a memory that names its entity ("Alice: works
at Acme", since an observation alone rarely says whom it is about; the entity type goes in
metadata), an entity without observations one memory saying what it is, and each relation a
memory stating it ("Alice works at Acme") joined by explicit edges to the memories of both its
entities and to the other relations on them: one hop in the peer's graph stays one hop here.
Observations and relations have no id in the peer, so their text is their import id.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from graphmem.importers.base import (
    BadRecord,
    ImportedMemory,
    ImportedRelation,
    Record,
    read_text,
    text_field,
)

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def relation_phrase(label: str) -> str:
    """works_at, works-at, worksAt -> 'works at': the peer's relation type read as words."""
    return " ".join(_CAMEL.sub(" ", label).replace("_", " ").replace("-", " ").split()).lower()


def entity_id(name: str) -> str:
    return f"entity:{name}"


def observation_text(name: str, observation: str) -> str:
    """The observation, prefixed with its entity unless it already names it."""
    if name.casefold() in observation.casefold():
        return observation
    return f"{name}: {observation}"


PATH_LINKS = 8
"""How many earlier relations on the same entity a relation is joined to."""


def chained(rid: str, earlier: list[str]) -> list[ImportedRelation]:
    """Relations sharing an entity are one hop apart, as they are in the peer's graph (Maya
    -works_at-> Acme -located_in-> Oslo): a question that needs both finds the second from the
    first. Bounded per entity, so a hub does not join every pair of its relations."""
    out = [ImportedRelation(rid, e, "explicit") for e in earlier[-PATH_LINKS:] if e != rid]
    earlier.append(rid)
    return out


class McpMemoryImporter:
    name = "mcp-memory"
    description = "the MCP reference memory server's memory.json (JSON lines)"
    remote = False

    def read(self, location: str) -> Iterator[Record]:
        source = Path(location)
        text = read_text(source)
        entities: list[tuple[str, dict[str, Any]]] = []
        relations: list[tuple[str, dict[str, Any]]] = []
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            where = f"line {n}"
            try:
                obj = json.loads(line)
            except (ValueError, RecursionError):
                yield BadRecord(where, "record", "is not JSON")
                continue
            kind = obj.get("type") if isinstance(obj, dict) else None
            if kind == "entity":
                entities.append((where, obj))
            elif kind == "relation":
                relations.append((where, obj))
            else:
                yield BadRecord(where, "type", "must be 'entity' or 'relation'")
        yield from self.graph(entities, relations)

    def graph(
        self,
        entities: list[tuple[str, dict[str, Any]]],
        relations: list[tuple[str, dict[str, Any]]],
    ) -> Iterator[Record]:
        """The records of a knowledge graph in the server's shape, each entity or relation
        with where it was found (also what neo4j-memory reads from its database)."""
        nodes: dict[str, list[str]] = {}  # entity name -> the memories that hold it
        for where, obj in entities:
            yield from self._entity(where, obj, nodes)
        at: dict[str, list[str]] = {}  # entity name -> the relations that end on it
        for where, obj in relations:
            rec = self._relation(where, obj)
            yield rec
            if not isinstance(rec, ImportedMemory):
                continue
            for name in dict.fromkeys((rec.metadata["from"], rec.metadata["to"])):
                # The relation touches the entity's node, and so every memory of it; a name
                # the file holds no entity for (the server accepts those) has none to touch.
                for node in nodes.get(name, [])[:PATH_LINKS]:
                    yield ImportedRelation(rec.import_id, node, "explicit")
                yield from chained(rec.import_id, at.setdefault(name, []))

    def _entity(
        self, where: str, obj: dict[str, Any], nodes: dict[str, list[str]]
    ) -> Iterator[Record]:
        """An entity's observations, each a memory naming it (its type in metadata); an
        entity without observations becomes one memory saying what it is, so a relation
        that ends on it still ends on a memory."""
        name = text_field(obj, "name", where)
        if isinstance(name, BadRecord):
            yield name
            return
        etype = obj.get("entityType")
        if not isinstance(etype, str) or not etype.strip():
            yield BadRecord(f"{where} ({name})", "entityType", "must be a non-empty string")
            return
        observations = obj.get("observations") or []
        if not isinstance(observations, list):
            yield BadRecord(f"{where} ({name})", "observations", "must be a list of strings")
            return
        held = nodes.setdefault(name, [])
        meta = {"entity": name, "entity_type": etype.strip()}
        for i, o in enumerate(observations):
            if not isinstance(o, str) or not o.strip():
                yield BadRecord(
                    f"{where} ({name})", f"observations[{i}]", "must be a non-empty string"
                )
                continue
            oid = f"observation:{name}:{o.strip()}"
            yield ImportedMemory(oid, observation_text(name, o.strip()), metadata=dict(meta))
            held.append(oid)
        if not held:
            article = "an" if etype.strip()[:1].lower() in "aeiou" else "a"
            text = f"{name} is {article} {etype.strip()}."
            yield ImportedMemory(entity_id(name), text, metadata=meta)
            held.append(entity_id(name))

    def _relation(self, where: str, obj: dict[str, Any]) -> Record:
        ends: list[str] = []
        for key in ("from", "to", "relationType"):
            value = text_field(obj, key, where)
            if isinstance(value, BadRecord):
                return value
            ends.append(value)
        src, dst, label = ends
        rid = f"relation:{src}|{label}|{dst}"
        meta = {"relation": label, "from": src, "to": dst}
        return ImportedMemory(rid, f"{src} {relation_phrase(label)} {dst}.", metadata=meta)
