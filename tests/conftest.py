"""Shared fixtures. Every store is real: SQLite files, Qdrant Edge shards, and the MariaDB, Redis
and Neo4j servers that scripts/services.sh starts (their URLs arrive in GRAPHMEM_TEST_* vars).

Tests marked `services` fail, never skip, when those servers are missing: a green run must mean
the production adapters were exercised. Deselect them with `-m "not services"` for a quick loop.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.embedding import Embedder, shared_embedder
from tests.helpers.cli import held_store, http_serve  # noqa: F401 - fixtures for every module
from tests.helpers.documents import page_server  # noqa: F401 - a fixture for every module
from tests.helpers.services import fresh_mysql_database


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    return shared_embedder()


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data")


@pytest.fixture
def svc(settings: Settings, embedder: Embedder) -> Iterator[MemoryService]:
    service = MemoryService(settings, embedder=embedder)
    yield service
    service.close()






@pytest.fixture
def mysql_url() -> Iterator[str]:
    with fresh_mysql_database() as url:
        yield url


@pytest.fixture(scope="module")
def mysql_url_module() -> Iterator[str]:
    with fresh_mysql_database() as url:
        yield url


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], embedder: Embedder):
    """The `graphmem` command run in-process on a fresh embedded store: (exit code, stdout,
    stderr)."""
    from graphmem.cli.main import main

    def _run(*argv: str) -> tuple[int, str, str]:
        code = main([*argv, "--data-dir", str(tmp_path / "data")])
        out, err = capsys.readouterr()
        return code, out, err

    return _run
