"""Settings, from environment variables (GRAPHMEM_*) or a .env file, with safe embedded defaults.

With nothing set, graphmem runs on SQLite + Qdrant Edge in the user's data directory
(graphmem.settings.paths): no server needed.

One tree: the root `Settings` holds the stores and search, and one section per part that is
configured on its own, each with its own prefix and built once with the root: `guard`
(GRAPHMEM_GUARD_*), `temporal` (GRAPHMEM_TEMPORAL_*), `server` (the MCP server, GRAPHMEM_*),
`llm` (GRAPHMEM_LLM_*), `images` (GRAPHMEM_IMAGES_*) and `tracing` (GRAPHMEM_TRACING_*). Every
store is picked by a `<store>_backend` setting; `auto` means Redis when `redis_url` is set, else
in-process. docs/settings.md lists every setting (`python -m graphmem.settings.reference`).

Importing this package is light: the tree (graphmem.settings.tree, which loads pydantic, the
guard's and the images' sections) is imported on the first use of one of its names. So
graphmem.settings.environment, the few variables read before any settings are (logging) or
outside the tree, costs the CLI's `--help` nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphmem.settings.tree import DEFAULT_PROFILES as DEFAULT_PROFILES
    from graphmem.settings.tree import DEFAULT_RELATION_WEIGHTS as DEFAULT_RELATION_WEIGHTS
    from graphmem.settings.tree import DEFAULT_TTL_HOURS as DEFAULT_TTL_HOURS
    from graphmem.settings.tree import DEFAULT_WEIGHTS as DEFAULT_WEIGHTS
    from graphmem.settings.tree import SECTIONS as SECTIONS
    from graphmem.settings.tree import GuardSettings as GuardSettings
    from graphmem.settings.tree import ImageSettings as ImageSettings
    from graphmem.settings.tree import LlmSettings as LlmSettings
    from graphmem.settings.tree import McpSettings as McpSettings
    from graphmem.settings.tree import Settings as Settings
    from graphmem.settings.tree import TemporalSettings as TemporalSettings
    from graphmem.settings.tree import TracingSettings as TracingSettings


def __getattr__(name: str) -> Any:
    """A name of the tree, imported on first use (PEP 562)."""
    if name in __all__:
        from graphmem.settings import tree

        return getattr(tree, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_PROFILES",
    "DEFAULT_RELATION_WEIGHTS",
    "DEFAULT_TTL_HOURS",
    "DEFAULT_WEIGHTS",
    "SECTIONS",
    "GuardSettings",
    "ImageSettings",
    "LlmSettings",
    "McpSettings",
    "Settings",
    "TemporalSettings",
    "TracingSettings",
]
