"""Run inside a virtualenv holding graphiti-core (tests/service/test_import_pypi_peers.py
installs it): writes a small graph into Neo4j through graphiti-core's own classes and their
save() methods (EpisodicNode, EntityNode, EntityEdge, EpisodicEdge: the classes
Graphiti.add_episode builds and writes, there in bulk), without an LLM. The name and fact
embeddings its pipeline would compute are fixed small vectors here; graphmem does not read
them.

Usage: python graphiti_write.py BOLT_URL USER PASSWORD GROUP_ID
Prints one JSON object: the uuids written, by role.
"""

import asyncio
import json
import sys
from datetime import UTC, datetime

from graphiti_core.driver.neo4j_driver import Neo4jDriver
from graphiti_core.edges import EntityEdge, EpisodicEdge
from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


async def write(driver: Neo4jDriver, group: str) -> dict[str, str]:
    now = at("2024-03-10T09:00:05")
    episode = EpisodicNode(
        name="msg 1",
        group_id=group,
        source=EpisodeType.message,
        source_description="chat",
        content="user: I moved from Porto to Lisbon in March 2024.",
        valid_at=at("2024-03-10T09:00:00"),
        created_at=now,
    )
    user = EntityNode(
        name="User", group_id=group, labels=["Person"], created_at=now, name_embedding=[1.0, 0, 0]
    )
    porto = EntityNode(
        name="Porto",
        group_id=group,
        labels=["Location"],
        summary="City in the north of Portugal",
        created_at=now,
        name_embedding=[0, 1.0, 0],
    )
    lisbon = EntityNode(
        name="Lisbon",
        group_id=group,
        labels=["Location"],
        summary="Capital of Portugal",
        created_at=now,
        name_embedding=[0, 0, 1.0],
    )
    before = EntityEdge(
        group_id=group,
        source_node_uuid=user.uuid,
        target_node_uuid=porto.uuid,
        name="LIVES_IN",
        fact="The user lives in Porto",
        fact_embedding=[0.5, 0.5, 0],
        episodes=[episode.uuid],
        created_at=now,
        valid_at=at("2019-01-01T00:00:00"),
        invalid_at=at("2024-03-01T00:00:00"),
        expired_at=at("2024-03-10T09:00:06"),
    )
    after = EntityEdge(
        group_id=group,
        source_node_uuid=user.uuid,
        target_node_uuid=lisbon.uuid,
        name="LIVES_IN",
        fact="The user lives in Lisbon",
        fact_embedding=[0.5, 0, 0.5],
        episodes=[episode.uuid],
        created_at=now,
        valid_at=at("2024-03-01T00:00:00"),
    )
    episode.entity_edges = [before.uuid, after.uuid]
    mentions = [
        EpisodicEdge(
            group_id=group, source_node_uuid=episode.uuid, target_node_uuid=n.uuid, created_at=now
        )
        for n in (user, lisbon)
    ]
    for item in [episode, user, porto, lisbon, before, after, *mentions]:
        await item.save(driver)
    return {
        "episode": episode.uuid,
        "user": user.uuid,
        "porto": porto.uuid,
        "lisbon": lisbon.uuid,
        "porto_fact": before.uuid,
        "lisbon_fact": after.uuid,
    }


async def run(driver: Neo4jDriver, group: str) -> dict[str, str]:
    try:
        return await write(driver, group)
    finally:
        await driver.close()


if __name__ == "__main__":
    url, user, password, group = sys.argv[1:5]
    # Made outside a running event loop, the driver does not build Graphiti's indices and
    # constraints (it schedules that only inside one): the shared test database keeps only
    # the nodes and edges, which the test deletes afterwards.
    print(json.dumps(asyncio.run(run(Neo4jDriver(url, user, password), group))))
