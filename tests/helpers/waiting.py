"""Waiting on a condition, not for a while: a fixed sleep is either too short on a loaded
machine (the test fails for nothing) or longer than needed everywhere else."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TypeVar

import pytest

T = TypeVar("T")


def wait_until(
    condition: Callable[[], T],
    what: str,
    timeout: float = 30.0,
    interval: float = 0.05,
    detail: Callable[[], str] | None = None,
) -> T:
    """Poll `condition` every `interval` seconds until it returns something truthy, and return
    that; fail the test naming `what` after `timeout` seconds, with `detail()` (a server's log,
    read when the wait fails) under it. A condition that can tell the wait is hopeless (the
    server it waits for exited) fails the test itself, at once. `interval` is for conditions
    that cost something to ask (an HTTP request, a subprocess)."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not after {timeout:g} s" + (f":\n{detail()}" if detail else ""))
        time.sleep(interval)
    return value


async def wait_until_async(condition: Callable[[], T], what: str, timeout: float = 30.0) -> T:
    """`wait_until` inside an event loop: the loop keeps running while it waits."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not after {timeout:g} s")
        await asyncio.sleep(0.05)
    return value
