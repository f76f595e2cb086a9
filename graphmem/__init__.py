"""graphmem: graph-structured long-term and working memory for LLM agents.

The public surface is small: `graphmem.open()` (or `open_async()`) returns a client with
mem0's methods (add, search, get, get_all, update, delete, delete_all, history), on the embedded
store or, given `url` and `token`, on a running `graphmem serve` (docs/python.md). Underneath,
a `MemoryService` built from `Settings` does the work.

The names below are resolved on first use (PEP 562): importing the package, which every
`graphmem` command does first, must not load the settings, the stores or numpy, so that
`graphmem --help` and the CLI's argument parsing stay fast.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphmem.client import AsyncMemoryClient, MemoryClient
    from graphmem.client import open as open
    from graphmem.client import open_async as open_async
    from graphmem.domain.model import Hit, Memory, MemoryType, Source, Status
    from graphmem.domain.requests import SearchRequest, SearchResult, WriteItem
    from graphmem.errors import (
        GraphmemError,
        InvalidInputError,
        NotFoundError,
        StoreUnavailableError,
    )
    from graphmem.service.facade import MemoryService
    from graphmem.settings import Settings
    from graphmem.version import __version__

# Each public name and the module it lives in.
_EXPORTS = {
    "open": "graphmem.client",
    "open_async": "graphmem.client",
    "MemoryClient": "graphmem.client",
    "AsyncMemoryClient": "graphmem.client",
    "GraphmemError": "graphmem.errors",
    "InvalidInputError": "graphmem.errors",
    "NotFoundError": "graphmem.errors",
    "StoreUnavailableError": "graphmem.errors",
    "Hit": "graphmem.domain.model",
    "Memory": "graphmem.domain.model",
    "MemoryType": "graphmem.domain.model",
    "Source": "graphmem.domain.model",
    "Status": "graphmem.domain.model",
    "SearchRequest": "graphmem.domain.requests",
    "SearchResult": "graphmem.domain.requests",
    "WriteItem": "graphmem.domain.requests",
    "MemoryService": "graphmem.service.facade",
    "Settings": "graphmem.settings",
    # the installed metadata's version (pyproject.toml's), read on first use
    "__version__": "graphmem.version",
}

# `open` is left out: `from graphmem import *` must not shadow the builtin open().
__all__ = [
    "AsyncMemoryClient",
    "GraphmemError",
    "Hit",
    "InvalidInputError",
    "Memory",
    "MemoryClient",
    "MemoryService",
    "MemoryType",
    "NotFoundError",
    "SearchRequest",
    "SearchResult",
    "Settings",
    "Source",
    "Status",
    "StoreUnavailableError",
    "WriteItem",
    "__version__",
    "open_async",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'graphmem' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
