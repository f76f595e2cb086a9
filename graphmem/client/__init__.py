"""graphmem's Python API: `graphmem.open()` and `graphmem.open_async()` (docs/python.md).

- `clients`: `open`, `open_async` and the two clients, `MemoryClient` and `AsyncMemoryClient`;
  they only bridge a method call to an operation and a backend;
- `ops`: what the client does, written once for every way of running it (argument checks,
  the operations as generators of backend calls, the mem0-like result shapes);
- `documents`: the same for documents (ingest, list, delete) and for search, which reads
  memories and documents alike, with the clients' document methods;
- `images`: the clients' image methods (store an image as a memory, read its bytes back);
- `backends`: where the calls go, a MemoryService in this process (`EmbeddedBackend`) or the
  MCP tools of a running `graphmem serve` (`RemoteBackend`).

The modules of this package import each other, never this file.
"""

from __future__ import annotations

from graphmem.client.clients import AsyncMemoryClient, MemoryClient, open, open_async

__all__ = ["AsyncMemoryClient", "MemoryClient", "open", "open_async"]
