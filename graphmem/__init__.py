"""graphmem: graph-structured long-term and working memory for LLM agents.

The public surface is small: build a `MemoryService` from `Settings` and call it.
"""

from graphmem.errors import GraphmemError, InvalidInputError, NotFoundError, StoreUnavailableError
from graphmem.model import Hit, Memory, MemoryType, Source, Status
from graphmem.requests import SearchRequest, SearchResult, WriteItem
from graphmem.service import MemoryService
from graphmem.settings import Settings
from graphmem.version import __version__

__all__ = [
    "GraphmemError",
    "Hit",
    "Memory",
    "MemoryService",
    "MemoryType",
    "NotFoundError",
    "SearchRequest",
    "SearchResult",
    "Settings",
    "Source",
    "Status",
    "StoreUnavailableError",
    "InvalidInputError",
    "WriteItem",
    "__version__",
]
