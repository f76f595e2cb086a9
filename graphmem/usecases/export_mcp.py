"""`graphmem export --format mcp-memory`: a user's memories as the MCP reference memory server's
`memory.json`, so leaving graphmem is one command too.

The reference server keeps entities with observations and relations between entities; graphmem
keeps memories that mention entities. So: a memory imported from that server's graph (its
metadata says `entity`, or `relation` with `from` and `to`) goes back exactly where it came
from; any other memory becomes an observation of the first named entity it mentions (graphmem's
entity extraction; a topic only when it names none), or of an entity named after the user when
it mentions nothing. Only current
memories are written (not archived, held or superseded ones, nor document chunks): the server
has no versions, statuses or documents.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from graphmem.domain.filters import MemoryFilter
from graphmem.domain.model import Kind, Memory, check_user
from graphmem.extractors.english import TOPIC_PREFIX
from graphmem.stores.records.rows import RecordQuery
from graphmem.usecases.ports import RecordsPorts

_GRAPH_FORMATS = ("mcp-memory", "neo4j-memory")
BATCH = 500


def _observation(m: Memory, name: str) -> str | None:
    """The observation a memory is, on its entity: the "Name: " an import added is taken off;
    an entity's own memory ("Oslo is a city.") is the entity, not an observation of it."""
    fmt, iid = m.metadata.get("import_format"), m.metadata.get("import_id")
    if fmt in _GRAPH_FORMATS and isinstance(iid, str) and iid.startswith("entity:"):
        return None
    prefix = f"{name}: "
    return m.content[len(prefix) :] if m.content.startswith(prefix) else m.content


def mcp_memory_lines(ctx: RecordsPorts, user_id: str) -> Iterator[str]:
    """The JSON lines of memory.json, entities first (in the order they were first written),
    then relations; written as the server writes them (compact JSON, one object a line)."""
    user_id = check_user(user_id)
    rows = ctx.records.list(
        RecordQuery(
            user_id, None, ("active",), None, filter=MemoryFilter(kinds=(Kind.MEMORY.value,))
        )
    )
    rows.sort(key=lambda m: (m.created_at, m.seq or 0))
    entities: dict[str, dict[str, Any]] = {}
    relations: dict[tuple[str, str, str], None] = {}

    def entity(name: str, etype: str) -> dict[str, Any]:
        return entities.setdefault(
            name, {"type": "entity", "name": name, "entityType": etype, "observations": []}
        )

    for i in range(0, len(rows), BATCH):
        part = rows[i : i + BATCH]
        mentioned = ctx.records.entities_for(user_id, [m.id for m in part])
        for m in part:
            meta = m.metadata
            rel, src, dst = meta.get("relation"), meta.get("from"), meta.get("to")
            if all(isinstance(v, str) and v for v in (rel, src, dst)):
                relations[(str(src), str(dst), str(rel))] = None
                continue
            name, etype = meta.get("entity"), meta.get("entity_type")
            if not isinstance(name, str) or not name:
                # a named entity before a topic (the extractor's "topic:" keys)
                refs = sorted(
                    mentioned.get(m.id) or [], key=lambda r: r.key.startswith(TOPIC_PREFIX)
                )
                name, etype = (refs[0].name, refs[0].entity_type) if refs else (user_id, "user")
            labels = meta.get("labels")
            if not isinstance(etype, str) or not etype:
                etype = labels[0] if isinstance(labels, list) and labels else "entity"
            e = entity(name, str(etype))
            text = _observation(m, name)
            if text and text not in e["observations"]:
                e["observations"].append(text)
    for e in entities.values():
        yield json.dumps(e, ensure_ascii=False, separators=(",", ":"))
    for src, dst, rel in relations:
        yield json.dumps(
            {"type": "relation", "from": src, "to": dst, "relationType": rel},
            ensure_ascii=False,
            separators=(",", ":"),
        )


__all__ = ["mcp_memory_lines"]
