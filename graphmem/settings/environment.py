"""The environment variables read outside the settings tree, each named once here.

Everything else graphmem is configured by goes through `Settings` (pydantic-settings reads
the environment and `.env`). These few cannot: the platform's cache folder and the Neo4j
tools' own variables are not graphmem's to rename, logging is configured before any settings are
read, so that a settings error can itself be reported in the log format asked for (docs/
settings.md), and the Cypher folder is looked up by module-level statement loaders that hold
no settings. Reading them here, not in the modules that use them, keeps one place where
graphmem reads its process environment (tests/packaging/test_architecture.py holds every other
module to that). Standard library only: the CLI reads the logging variables before its first line.
"""

from __future__ import annotations

import os
from pathlib import Path

LOG_LEVEL = "GRAPHMEM_LOG_LEVEL"
LOG_FORMAT = "GRAPHMEM_LOG_FORMAT"
CYPHER_DIR = "GRAPHMEM_CYPHER_DIR"
USER_ID = "GRAPHMEM_USER_ID"
CACHE_HOME = "XDG_CACHE_HOME"
# The Neo4j tools' own variables, which the neo4j-memory importer honours like they do.
NEO4J_USERNAME = "NEO4J_USERNAME"
NEO4J_PASSWORD = "NEO4J_PASSWORD"
NEO4J_DATABASE = "NEO4J_DATABASE"


def value(name: str) -> str | None:
    """One variable's value; None when it is unset or empty (an empty value means unset)."""
    return os.environ.get(name) or None


def log_level() -> str | None:
    """GRAPHMEM_LOG_LEVEL (logging's level names; graphmem.infra.logs defaults to WARNING)."""
    return value(LOG_LEVEL)


def log_format() -> str | None:
    """GRAPHMEM_LOG_FORMAT: text or json (graphmem.infra.logs defaults to text)."""
    return value(LOG_FORMAT)


def cypher_dir() -> str | None:
    """GRAPHMEM_CYPHER_DIR: a folder of .cypher files to use instead of the package's own."""
    return value(CYPHER_DIR)


def cache_home() -> Path:
    """$XDG_CACHE_HOME, else ~/.cache: where derived files (ONNX exports, the parsed
    dictionary) are kept between processes."""
    return Path(value(CACHE_HOME) or Path.home() / ".cache")


def user_id() -> str | None:
    """GRAPHMEM_USER_ID as the environment gives it (the settings' `user_id` also reads
    `.env`), for the CLI's --user default without building the settings."""
    return value(USER_ID)


__all__ = [
    "CACHE_HOME",
    "CYPHER_DIR",
    "LOG_FORMAT",
    "LOG_LEVEL",
    "NEO4J_DATABASE",
    "NEO4J_PASSWORD",
    "NEO4J_USERNAME",
    "USER_ID",
    "cache_home",
    "cypher_dir",
    "log_format",
    "log_level",
    "user_id",
    "value",
]
