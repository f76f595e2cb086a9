"""graphmem's version, from one place: the installed distribution's metadata, which
pyproject.toml's `version` writes at install time. Nothing else restates the number, so a
release bumps one line and `graphmem --version`, `graphmem.__version__` and the wheel agree."""

from __future__ import annotations

import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

UNKNOWN = "0+unknown"


def _from_checkout() -> str:
    """A source tree that was never installed has no metadata: read its pyproject.toml."""
    try:
        with (Path(__file__).resolve().parent.parent / "pyproject.toml").open("rb") as f:
            project = tomllib.load(f).get("project", {})
    except (OSError, tomllib.TOMLDecodeError):
        return UNKNOWN
    found = project.get("version") if project.get("name") == "graphmem" else None
    return found if isinstance(found, str) else UNKNOWN


def _version() -> str:
    try:
        return version("graphmem")
    except PackageNotFoundError:
        return _from_checkout()


__version__ = _version()
