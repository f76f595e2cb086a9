"""`neo4j-memory`: a live database of the Neo4j MCP memory server (mcp-neo4j-memory), read-only.

That server keeps the same knowledge graph as the reference memory server, in Neo4j: nodes
`(:Memory {name, type, observations})` and one relationship per relation, its type the relation
type. So this adapter reads the nodes and relationships in one read transaction and hands them,
in the reference server's shape, to the mcp-memory mapping (graphmem.importers.mcp_memory):
the memories, edges and import ids are the same, only `import_format` differs.

The source is the database's Bolt address (`bolt://host:7687`, `neo4j://...`); the user and
password come from the address (`bolt://user:password@host:7687`) or, as the server itself
reads them, from NEO4J_USERNAME and NEO4J_PASSWORD; NEO4J_DATABASE picks the database. Nodes
without a `name` (graphmem's own graph also labels its nodes Memory) are not read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit, urlunsplit

from graphmem.errors import InvalidInputError
from graphmem.importers.base import Record
from graphmem.importers.mcp_memory import McpMemoryImporter
from graphmem.settings import environment
from graphmem.settings.environment import NEO4J_DATABASE, NEO4J_PASSWORD, NEO4J_USERNAME

T = TypeVar("T")

NODES = (
    "MATCH (m:Memory) WHERE m.name IS NOT NULL"
    " RETURN m.name AS name, m.type AS type, m.observations AS observations ORDER BY name"
)
EDGES = (
    "MATCH (a:Memory)-[r]->(b:Memory) WHERE a.name IS NOT NULL AND b.name IS NOT NULL"
    " RETURN a.name AS src, type(r) AS rel, b.name AS dst ORDER BY src, rel, dst"
)
SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")


def connection(location: str) -> tuple[str, tuple[str, str] | None]:
    """(address without credentials, (user, password) or None)."""
    parts = urlsplit(location)
    if parts.scheme not in SCHEMES or not parts.hostname:
        raise InvalidInputError(
            "source", "must be a Bolt address like bolt://localhost:7687 for neo4j-memory"
        )
    user = unquote(parts.username) if parts.username else environment.value(NEO4J_USERNAME)
    password = unquote(parts.password) if parts.password else environment.value(NEO4J_PASSWORD)
    host = parts.hostname + (f":{parts.port}" if parts.port else "")
    url = urlunsplit((parts.scheme, host, parts.path, parts.query, ""))
    return url, (user or "neo4j", password) if password else None


def read_graph(location: str, reader: Callable[[Any], T]) -> T:
    """`reader` run in one read transaction on the Neo4j at `location` (NEO4J_DATABASE picks
    the database), so a source changing meanwhile is read as one snapshot; a database that
    cannot be reached or refuses is one line naming it."""
    import neo4j
    from neo4j.exceptions import Neo4jError, ServiceUnavailable

    url, auth = connection(location)
    try:
        with (
            neo4j.GraphDatabase.driver(url, auth=auth) as driver,
            driver.session(
                database=environment.value(NEO4J_DATABASE),
                default_access_mode=neo4j.READ_ACCESS,
            ) as s,
        ):
            return s.execute_read(reader)
    except (ServiceUnavailable, OSError) as e:
        raise InvalidInputError("source", f"cannot reach {url}: {e}") from None
    except Neo4jError as e:
        raise InvalidInputError("source", f"{url}: {e.message or e.code}") from None


def _read(tx: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    return tx.run(NODES).data(), tx.run(EDGES).data()


class Neo4jMemoryImporter:
    name = "neo4j-memory"
    description = "a live mcp-neo4j-memory database over Bolt (read-only)"
    remote = True

    def read(self, location: str) -> Iterator[Record]:
        nodes, edges = read_graph(location, _read)
        entities = [
            (
                f"node {n['name']!r}",
                {"name": n["name"], "entityType": n["type"], "observations": n["observations"]},
            )
            for n in nodes
        ]
        relations = [
            (
                f"relationship {e['src']!r}-[{e['rel']}]->{e['dst']!r}",
                {"from": e["src"], "to": e["dst"], "relationType": e["rel"]},
            )
            for e in edges
        ]
        yield from McpMemoryImporter().graph(entities, relations)
