"""`graphiti`: a Graphiti (Zep) knowledge graph in Neo4j, read-only over Bolt.

graphiti-core keeps episodes `(:Episodic {uuid, name, content, source_description, group_id,
valid_at, created_at})`, entities `(:Entity {uuid, name, summary, group_id})` with further
labels for their types, facts `(:Entity)-[:RELATES_TO {uuid, name, fact, group_id, valid_at,
invalid_at, expired_at}]->(:Entity)` and `(:Episodic)-[:MENTIONS]->(:Entity)`. Mapped:

- an episode is a memory of what was said, created at its `valid_at`;
- an entity is a memory `name: summary` (or `name is a Type.`);
- a fact is a memory of its sentence, valid from `valid_at` to `invalid_at` (graphmem's
  validity: recall of the present leaves an ended fact out, `as_of` finds it), with explicit
  edges to its two entities and to the other facts on them;
- MENTIONS edges become `mentions` relations from the episode to the entity;
- `group_id` is the source user (`--map-user`).

Connection as for neo4j-memory (graphmem.importers.neo4j_memory.connection). graphmem's own
Neo4j graph also has Entity nodes; those have no `uuid` and are not read.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from graphmem.importers.base import BadRecord, ImportedMemory, ImportedRelation, Record
from graphmem.importers.mcp_memory import chained
from graphmem.importers.neo4j_memory import read_graph

EPISODES = (
    "MATCH (e:Episodic) WHERE e.uuid IS NOT NULL RETURN e.uuid AS uuid, e.name AS name,"
    " e.content AS content, e.source_description AS description, e.group_id AS group_id,"
    " e.valid_at AS valid_at, e.created_at AS created_at ORDER BY e.created_at, e.uuid"
)
ENTITIES = (
    "MATCH (n:Entity) WHERE n.uuid IS NOT NULL AND n.name IS NOT NULL RETURN n.uuid AS uuid,"
    " n.name AS name, n.summary AS summary, n.group_id AS group_id, labels(n) AS labels,"
    " n.created_at AS created_at ORDER BY n.uuid"
)
FACTS = (
    "MATCH (a:Entity)-[r:RELATES_TO]->(b:Entity) WHERE r.uuid IS NOT NULL"
    " RETURN r.uuid AS uuid, r.name AS name, r.fact AS fact, r.group_id AS group_id,"
    " r.valid_at AS valid_at, r.invalid_at AS invalid_at, r.expired_at AS expired_at,"
    " r.created_at AS created_at, a.uuid AS src, b.uuid AS dst ORDER BY r.created_at, r.uuid"
)
MENTIONS = (
    "MATCH (e:Episodic)-[:MENTIONS]->(n:Entity) WHERE e.uuid IS NOT NULL AND n.uuid IS NOT NULL"
    " RETURN e.uuid AS episode, n.uuid AS entity"
)


def iso(value: Any) -> str | None:
    """A Neo4j temporal value (or an ISO string) as ISO-8601."""
    if value is None:
        return None
    native = value.to_native() if hasattr(value, "to_native") else value
    return native.isoformat() if hasattr(native, "isoformat") else str(native)


def _read(tx: Any) -> list[list[dict[str, Any]]]:
    return [tx.run(q).data() for q in (EPISODES, ENTITIES, FACTS, MENTIONS)]


class GraphitiImporter:
    name = "graphiti"
    description = "a Graphiti / Zep graph in Neo4j over Bolt (read-only)"
    remote = True

    def read(self, location: str) -> Iterator[Record]:
        episodes, entities, facts, mentions = read_graph(location, _read)
        group: dict[str, Any] = {}
        for ep in episodes:
            if not isinstance(ep["content"], str) or not ep["content"].strip():
                yield BadRecord(f"episode {ep['uuid']}", "content", "must be a non-empty string")
                continue
            group[ep["uuid"]] = ep["group_id"]
            yield ImportedMemory(
                f"episode:{ep['uuid']}",
                ep["content"].strip(),
                memory_type="event",
                user=ep["group_id"],
                created_at=iso(ep["valid_at"]) or iso(ep["created_at"]),
                metadata={"graphiti": "episode", "name": ep["name"] or ""},
            )
        for n in entities:
            group[n["uuid"]] = n["group_id"]
            kinds = [x for x in n["labels"] or [] if x != "Entity"]
            summary = n["summary"] if isinstance(n["summary"], str) else ""
            text = f"{n['name']}: {summary.strip()}" if summary.strip() else ""
            if not text:
                kind = kinds[0] if kinds else "entity"
                text = f"{n['name']} is {'an' if kind[:1].lower() in 'aeiou' else 'a'} {kind}."
            yield ImportedMemory(
                f"entity:{n['uuid']}",
                text,
                user=n["group_id"],
                created_at=iso(n["created_at"]),
                metadata={"graphiti": "entity", "entity": n["name"], "labels": kinds},
            )
        yield from self._facts(facts, group)
        for m in mentions:
            yield ImportedRelation(
                f"episode:{m['episode']}",
                f"entity:{m['entity']}",
                "mentions",
                user=group.get(m["episode"]),
            )

    def _facts(self, facts: list[dict[str, Any]], group: dict[str, Any]) -> Iterator[Record]:
        at: dict[str, list[str]] = {}
        for f in facts:
            fid = f"fact:{f['uuid']}"
            if not isinstance(f["fact"], str) or not f["fact"].strip():
                yield BadRecord(f"fact {f['uuid']}", "fact", "must be a non-empty string")
                continue
            meta = {"graphiti": "fact", "relation": f["name"] or ""}
            if f["expired_at"] is not None:
                meta["expired_at"] = iso(f["expired_at"])
            who = f["group_id"]
            yield ImportedMemory(
                fid,
                f["fact"].strip(),
                user=who,
                created_at=iso(f["created_at"]),
                valid_from=iso(f["valid_at"]),
                valid_to=iso(f["invalid_at"]),
                metadata=meta,
            )
            for end in dict.fromkeys((f["src"], f["dst"])):
                if end in group:
                    yield ImportedRelation(fid, f"entity:{end}", "explicit", user=who)
                for r in chained(fid, at.setdefault(end, [])):
                    r.user = who
                    yield r
