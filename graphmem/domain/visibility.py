"""Who may read which memory: the one rule every read path applies.

The memory firewall stores a suspicious write as `quarantined` instead of refusing it, so that
a person can review it. Stored is not the same as readable: until an operator approves it, its
content must reach no agent, through any tool (search, graph, history, summaries, resources,
working-memory preload, forget listings). Operators (the local CLI) see everything, and the
owner's review queue (`MemoryService.quarantined`) lists what is held back.

Every agent-facing read asks this module, rather than spelling out a status filter of its own,
so a new read path or a new held-back status cannot disagree with the others.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Protocol

from graphmem.domain.model import Memory, Status
from graphmem.errors import NotFoundError


class Viewer(StrEnum):
    """Who is reading: an agent (every MCP tool and resource, and the Python API by default),
    or an operator (the local CLI, review and export)."""

    AGENT = "agent"
    OPERATOR = "operator"


class Edge(Protocol):
    """What `within_hops` reads of a graph edge."""

    @property
    def source_id(self) -> str: ...

    @property
    def target_id(self) -> str: ...


# Statuses whose content no agent may read until someone reviews the memory.
HELD_BACK = frozenset({Status.QUARANTINED.value})


def visible(memory: Memory, viewer: Viewer = Viewer.AGENT) -> bool:
    """May `viewer` read this memory's content? Operators may read all of them."""
    return viewer == Viewer.OPERATOR or memory.status.value not in HELD_BACK


def only_visible(rows: Mapping[str, Memory], viewer: Viewer = Viewer.AGENT) -> dict[str, Memory]:
    """The rows `viewer` may read, in their order."""
    return {i: m for i, m in rows.items() if visible(m, viewer)}


def readable_statuses(statuses: Iterable[str], viewer: Viewer = Viewer.AGENT) -> tuple[str, ...]:
    """A status filter narrowed to what `viewer` may read, for queries run inside a store."""
    return tuple(s for s in statuses if viewer == Viewer.OPERATOR or s not in HELD_BACK)


def within_hops(centre: str, edges: Iterable[Edge], hops: int) -> list[str]:
    """Memories reachable from `centre` in at most `hops` steps over these edges, centre first.

    Called with only the edges between readable memories, so a memory that is linked to the
    centre only through a quarantined one is not reached: held-back content is no bridge.
    """
    adjacent: dict[str, set[str]] = {}
    for e in edges:
        adjacent.setdefault(e.source_id, set()).add(e.target_id)
        adjacent.setdefault(e.target_id, set()).add(e.source_id)
    seen = {centre: 0}
    frontier = [centre]
    for depth in range(1, hops + 1):
        frontier = list(
            dict.fromkeys(n for m in frontier for n in sorted(adjacent.get(m, ())) if n not in seen)
        )
        for n in frontier:
            seen[n] = depth
    return list(seen)


class HeldForReviewError(NotFoundError):
    """The memory exists but is quarantined: its content is withheld until it is reviewed.

    A subclass of NotFoundError, so any caller that handles "no such memory" already withholds
    it; the message says why, without any of its content, so the agent can point the user to
    the review queue instead of writing the memory again.
    """

    def __init__(self, memory_id: str) -> None:
        super().__init__(memory_id)
        self.args = (
            f"memory_id: memory {memory_id!r} is quarantined, pending review (its content is"
            " withheld; memory_quarantine_list shows it)",
        )


def check_visible(memory: Memory, viewer: Viewer = Viewer.AGENT) -> Memory:
    """The memory, or HeldForReviewError when `viewer` may not read it."""
    if not visible(memory, viewer):
        raise HeldForReviewError(memory.id)
    return memory


__all__ = [
    "HELD_BACK",
    "HeldForReviewError",
    "Viewer",
    "check_visible",
    "only_visible",
    "readable_statuses",
    "visible",
    "within_hops",
]
