"""The variables read outside the settings tree (graphmem.settings.environment) keep their
names and their effect now that one module reads them: logging's, the CLI's user, the Cypher
folder, the cache home and the Neo4j tools' own."""

from __future__ import annotations

import argparse
import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem.cli.common import user_of
from graphmem.embedding.onnx import default_cache_dir
from graphmem.errors import InvalidInputError
from graphmem.importers.neo4j_memory import connection
from graphmem.infra import logs
from graphmem.stores.graph.neo4j import cypher_dir


@pytest.fixture
def root_logging() -> Iterator[None]:
    """logs.configure replaces the root handlers: put the test runner's back afterwards."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def test_the_logging_variables(monkeypatch: pytest.MonkeyPatch, root_logging: None) -> None:
    monkeypatch.setenv("GRAPHMEM_LOG_LEVEL", "info")
    monkeypatch.setenv("GRAPHMEM_LOG_FORMAT", "json")
    logs.configure()
    assert logging.getLogger().level == logging.INFO
    assert isinstance(logging.getLogger().handlers[0].formatter, logs.JsonFormatter)
    assert logs.json_enabled()
    monkeypatch.setenv("GRAPHMEM_LOG_FORMAT", "xml")
    with pytest.raises(InvalidInputError, match="GRAPHMEM_LOG_FORMAT: 'xml' is not one of"):
        logs.configure()


def test_the_user_the_cypher_folder_and_the_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GRAPHMEM_USER_ID", "ada")
    assert user_of(argparse.Namespace(user=None)) == "ada"
    assert user_of(argparse.Namespace(user="bob")) == "bob"
    monkeypatch.setenv("GRAPHMEM_CYPHER_DIR", str(tmp_path))
    assert cypher_dir() == tmp_path
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert default_cache_dir() == tmp_path / "cache" / "graphmem" / "onnx"
    monkeypatch.setenv("NEO4J_USERNAME", "reader")
    monkeypatch.setenv("NEO4J_PASSWORD", "pw")
    assert connection("bolt://localhost:7687") == ("bolt://localhost:7687", ("reader", "pw"))


def test_reading_them_loads_no_settings_tree() -> None:
    """The CLI configures logging before its first line: the variables' module must not load
    pydantic and the settings tree (graphmem.settings imports it on first use of a name)."""
    probe = (
        "import sys; from graphmem.infra import logs; logs.json_enabled();"
        " print(sorted(m for m in ('pydantic', 'graphmem.settings.tree') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
