"""The test command must really provide the production services; these fail when it does not."""

from __future__ import annotations

import pytest

from tests.helpers.services import service_url

pytestmark = pytest.mark.services


def test_mariadb_is_up_and_utf8mb4(mysql_url: str) -> None:
    from graphmem.stores.records.mysql import MySQLRecords

    rec = MySQLRecords(mysql_url)
    health = rec.health()
    rec.close()
    assert health["ok"] is True and "MariaDB" in str(health["version"])


def test_redis_is_up() -> None:
    import redis

    r = redis.Redis.from_url(service_url("GRAPHMEM_TEST_REDIS_URL"))
    assert r.ping() is True
    assert r.info("server")["redis_version"].startswith("7")


def test_neo4j_5_is_up() -> None:
    import os

    from neo4j import GraphDatabase

    auth = (
        os.environ.get("GRAPHMEM_TEST_NEO4J_USER", "neo4j"),
        os.environ.get("GRAPHMEM_TEST_NEO4J_PASSWORD", ""),
    )
    with GraphDatabase.driver(service_url("GRAPHMEM_TEST_NEO4J_URL"), auth=auth) as driver:
        record = driver.execute_query(
            "CALL dbms.components() YIELD name, versions RETURN name, versions[0] AS v"
        ).records[0]
    assert record["name"] == "Neo4j Kernel" and record["v"].startswith("5.")


def test_the_s3_server_is_up() -> None:
    """The image-store tests skip without the S3 server; under the test command it must be
    there, so a green run means they ran."""
    import os

    from minio import Minio

    url = service_url("GRAPHMEM_TEST_S3_ENDPOINT").split("://", 1)[1]
    client = Minio(
        url,
        access_key=os.environ["GRAPHMEM_TEST_S3_ACCESS_KEY"],
        secret_key=os.environ["GRAPHMEM_TEST_S3_SECRET_KEY"],
        secure=False,
        region="us-east-1",
    )
    assert client.bucket_exists(os.environ["GRAPHMEM_TEST_S3_BUCKET"])
