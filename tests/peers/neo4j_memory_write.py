"""Run inside a virtualenv holding mcp-neo4j-memory (tests/service/test_import_pypi_peers.py
installs it): stores a small knowledge graph the way an agent does, through the server's own
MCP tools (create_entities, create_relations, add_observations), called in-process on the
server its create_mcp_server builds over a Neo4jMemory on the given database.

Usage: python neo4j_memory_write.py BOLT_URL USER PASSWORD < graph.json
graph.json: {"entities": [...], "relations": [...], "observations": [...]} as the tools take
them. Prints one JSON object: the tool names the server lists.

The server's main() also creates a fulltext index (`search`) before serving; that index is
only for its own search tools, so it is not created here and the shared test database keeps
only the nodes, which the test deletes afterwards.
"""

import asyncio
import json
import sys

from fastmcp import Client
from mcp_neo4j_memory.neo4j_memory import Neo4jMemory
from mcp_neo4j_memory.server import create_mcp_server
from neo4j import AsyncGraphDatabase


async def main(url: str, user: str, password: str, graph: dict) -> list[str]:
    driver = AsyncGraphDatabase.driver(url, auth=(user, password))
    try:
        await driver.verify_connectivity()
        server = create_mcp_server(Neo4jMemory(driver))
        async with Client(server) as client:
            tools = [t.name for t in await client.list_tools()]
            await client.call_tool("create_entities", {"entities": graph["entities"]})
            await client.call_tool("create_relations", {"relations": graph["relations"]})
            await client.call_tool("add_observations", {"observations": graph["observations"]})
        return tools
    finally:
        await driver.close()


if __name__ == "__main__":
    url, user, password = sys.argv[1:4]
    print(json.dumps({"tools": asyncio.run(main(url, user, password, json.load(sys.stdin)))}))
