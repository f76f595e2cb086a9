"""Fixtures the unit tests share."""

from __future__ import annotations

import pytest

from graphmem.guard import Guard, GuardSettings


@pytest.fixture(scope="module")
def guard() -> Guard:
    """The firewall with its default settings and no rate limits, one per test module."""
    return Guard(GuardSettings(rate_limit_backend="off", _env_file=None))
