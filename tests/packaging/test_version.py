"""The version is written once, in pyproject.toml: the installed metadata carries it, and a
checkout that was never installed reads it from pyproject.toml itself."""

from __future__ import annotations

import tomllib
from importlib.metadata import PackageNotFoundError
from pathlib import Path

import pytest

import graphmem
from graphmem import version

ROOT = Path(__file__).resolve().parents[2]


def declared() -> str:
    with (ROOT / "pyproject.toml").open("rb") as f:
        return str(tomllib.load(f)["project"]["version"])


def test_the_package_reports_the_declared_version() -> None:
    assert graphmem.__version__ == declared()


def test_an_uninstalled_checkout_reads_pyproject(monkeypatch: pytest.MonkeyPatch) -> None:
    def not_installed(name: str) -> str:
        raise PackageNotFoundError(name)

    monkeypatch.setattr(version, "version", not_installed)
    assert version._version() == declared()
