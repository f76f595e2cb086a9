"""Importers: one small adapter per peer memory system, all behind graphmem.importers.base.

`adapter_for(name)` is the registry the CLI, the service and the MCP tool share. Adapters only
read their source; graphmem.usecases.imports writes what they yield as ordinary writes.
"""

from __future__ import annotations

from pathlib import Path

from graphmem.errors import InvalidInputError
from graphmem.importers.base import Importer

FORMATS: dict[str, str] = {
    "graphmem-v1": "graphmem's own open export (a folder: manifest and JSON lines), restored"
    " as it was",
    "mcp-memory": "the MCP reference memory server's memory.json (JSON lines)",
    "neo4j-memory": "a live mcp-neo4j-memory database, read over Bolt (bolt://host:7687)",
    "graphiti": "a Graphiti / Zep graph in Neo4j, read over Bolt (bolt://host:7687)",
    "mem0": "mem0's get_all() JSON (and its history.db with --history)",
    "letta": "a Letta agent file (.af): blocks and archival passages",
    "chat": "ChatGPT or Claude conversations.json, through memory_observe's policy",
    "markdown": "a folder of Markdown notes: notes as documents, [[wikilinks]] as relations",
}
"""Every format `graphmem import --from` reads, with what it is (kept here, not read from the
adapters, so `--help` does not import them)."""


def adapter_for(name: str, *, history: Path | None = None) -> Importer:
    """The adapter of one format; `history` is mem0's history.db (the only option a format
    takes)."""
    key = str(name or "").strip().lower()
    if key not in FORMATS:
        raise InvalidInputError("from", f"{name!r} is not one of {', '.join(FORMATS)}")
    if key == "graphmem-v1":  # restored, not adapted: graphmem.usecases.restore_v1
        raise InvalidInputError("from", "graphmem-v1 is restored by import_from, not an adapter")
    if history is not None and key != "mem0":
        raise InvalidInputError("history", "is mem0's history.db: only with --from mem0")
    if key == "mcp-memory":
        from graphmem.importers.mcp_memory import McpMemoryImporter

        return McpMemoryImporter()
    if key == "neo4j-memory":
        from graphmem.importers.neo4j_memory import Neo4jMemoryImporter

        return Neo4jMemoryImporter()
    if key == "graphiti":
        from graphmem.importers.graphiti import GraphitiImporter

        return GraphitiImporter()
    if key == "mem0":
        from graphmem.importers.mem0 import Mem0Importer

        return Mem0Importer(history)
    if key == "letta":
        from graphmem.importers.letta import LettaImporter

        return LettaImporter()
    if key == "chat":
        from graphmem.importers.chat import ChatImporter

        return ChatImporter()
    from graphmem.importers.markdown import MarkdownImporter

    return MarkdownImporter()


__all__ = ["FORMATS", "adapter_for"]
