"""The test servers (MariaDB, Redis, Neo4j started by scripts/services.sh) and the processes
tests start: reached, opened and stopped the same way everywhere."""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pymysql
import pytest

from graphmem import MemoryService, Settings
from graphmem.embedding import Embedder
from graphmem.stores.records.mysql import parse_mysql_url


def stop_process(proc: subprocess.Popen[str] | subprocess.Popen[bytes]) -> None:
    """Stop a server a test started: politely, then for good, so no test leaves one behind."""
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


def service_url(name: str) -> str:
    url = os.environ.get(name)
    if not url:
        pytest.fail(
            f"{name} is not set: start the test services with `scripts/services.sh start` and"
            " `source .services/env`, or deselect these tests with -m 'not services'"
        )
    return url


def open_neo4j():  # noqa: ANN201 - the adapter import stays lazy
    """The Neo4j started by scripts/services.sh; fails (never skips) when it is not there."""
    from graphmem.stores.graph.neo4j import Neo4jGraph

    return Neo4jGraph(
        service_url("GRAPHMEM_TEST_NEO4J_URL"),
        os.environ.get("GRAPHMEM_TEST_NEO4J_USER", "neo4j"),
        os.environ.get("GRAPHMEM_TEST_NEO4J_PASSWORD"),
    )


@contextmanager
def fresh_mysql_database() -> Iterator[str]:
    """A fresh, empty MariaDB database, dropped afterwards."""
    base = service_url("GRAPHMEM_TEST_MYSQL_URL")
    kw = parse_mysql_url(base)
    name = f"graphmem_t{uuid.uuid4().hex[:12]}"
    admin = pymysql.connect(
        host=kw["host"],
        port=kw["port"],
        user=kw["user"],
        password=kw["password"],
        charset="utf8mb4",
        autocommit=True,
    )
    with admin.cursor() as cur:
        cur.execute(f"CREATE DATABASE {name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci")
    try:
        yield base.rsplit("/", 1)[0] + "/" + name
    finally:
        with admin.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS {name}")
        admin.close()


def service_on(
    kind: str, tmp: Path, embedder: Embedder, request: pytest.FixtureRequest, collection: str
) -> MemoryService:
    """The embedded default, or (kind "production") MariaDB + qdrant-client + Neo4j with the
    search cache in Redis, the MariaDB database being the module's fresh one."""
    if kind == "embedded":
        return MemoryService(Settings(data_dir=tmp), embedder=embedder)
    from graphmem.stores.cache import RedisCache
    from graphmem.stores.records.mysql import MySQLRecords
    from graphmem.stores.vectors.qdrant import QdrantServerVectors

    return MemoryService(
        Settings(data_dir=tmp),
        embedder=embedder,
        records=MySQLRecords(request.getfixturevalue("mysql_url_module")),
        vectors=QdrantServerVectors(":memory:", None, collection, embedder.dim),
        graph=open_neo4j(),
        cache=RedisCache(
            service_url("GRAPHMEM_TEST_REDIS_URL"),
            60,
            prefix=f"graphmem-test:{uuid.uuid4().hex[:8]}:",
        ),
    )
