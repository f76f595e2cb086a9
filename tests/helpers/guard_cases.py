"""Rows a firewall pass must store beside the attacks of the same shapes it must still catch:
one table per pass (tests/unit/test_guard_pass*.py), one way of checking them."""

from __future__ import annotations

from collections.abc import Sequence

from graphmem.guard import Guard


def cases(stored: Sequence[str], caught: Sequence[str]) -> list[tuple[str, bool]]:
    """(text, stored?) for pytest's parametrize."""
    return [(t, True) for t in stored] + [(t, False) for t in caught]


def assert_decision(guard: Guard, text: str, stored: bool) -> None:
    """Written as an agent writes over MCP: stored as it is, or refused / held."""
    action = guard.screen_write(text, "agent").action
    assert action == "allow" if stored else action in ("quarantine", "reject"), (action, text)
