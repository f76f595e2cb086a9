"""graphmem's Python API, shaped like mem0's: `graphmem.open()` and `graphmem.open_async()`.

    import graphmem

    with graphmem.open() as m:                       # embedded: this process opens the store
        m.add("I moved to Lisbon in May", user_id="ann")
        hits = m.search("where does ann live?", user_id="ann")["results"]

`graphmem.open(url="http://127.0.0.1:8765/mcp", token=...)` reaches a running `graphmem serve`
instead, through its MCP tools; the same methods return the same shapes (docs/python.md). The
client classes here only bridge: argument checks and result shapes are in
graphmem.client.ops (graphmem.client.documents for documents), the calls in
graphmem.client.backends. The names avoid `Memory`, which
is graphmem's record class (graphmem.domain.model.Memory).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphmem.client import documents as docs
from graphmem.client import ops
from graphmem.client.backends import EmbeddedBackend, LoopThread, RemoteBackend
from graphmem.client.images import AsyncImageMethods, ImageMethods
from graphmem.errors import InvalidInputError

if TYPE_CHECKING:
    from graphmem.service.facade import MemoryService
    from graphmem.settings import Settings

DEFAULT_TIMEOUT = 60.0


def _checked_target(
    data_dir: str | Path | None, settings: Settings | None, url: str | None, token: str | None
) -> None:
    if url is not None:
        if data_dir is not None or settings is not None:
            raise InvalidInputError(
                "url", "give either url (a running server) or data_dir/settings (embedded)"
            )
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise InvalidInputError("url", "must be an http(s) URL, e.g. http://127.0.0.1:8765/mcp")
        if not isinstance(token, str) or not token:
            raise InvalidInputError(
                "token", "required with url: the server's bearer token decides the user"
            )
    elif token is not None:
        raise InvalidInputError("token", "only used with url (a running server)")
    if data_dir is not None and settings is not None:
        raise InvalidInputError("data_dir", "give data_dir or settings, not both")


def _settings(data_dir: str | Path | None, settings: Settings | None) -> Settings:
    if settings is not None:
        return settings
    from graphmem.settings import Settings

    return Settings(data_dir=Path(data_dir)) if data_dir is not None else Settings()


def open(  # noqa: A001 - graphmem.open(), like io.open for files
    data_dir: str | Path | None = None,
    *,
    settings: Settings | None = None,
    url: str | None = None,
    token: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> MemoryClient:
    """A client on the embedded store (the data home, or `data_dir`, or `settings`), or, with
    `url` and `token`, on a running `graphmem serve`."""
    _checked_target(data_dir, settings, url, token)
    if url is not None:
        assert token is not None
        return MemoryClient._remote(url, token, timeout)
    from graphmem.service.facade import MemoryService

    return MemoryClient(EmbeddedBackend(MemoryService(_settings(data_dir, settings))))


def open_async(
    data_dir: str | Path | None = None,
    *,
    settings: Settings | None = None,
    url: str | None = None,
    token: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> AsyncMemoryClient:
    """`open`, with every method a coroutine. Nothing is opened until the first call or
    `async with` (opening loads the embedding model or connects, neither of which may block
    an event loop)."""
    _checked_target(data_dir, settings, url, token)
    if url is not None:
        assert token is not None
        return AsyncMemoryClient(remote=RemoteBackend(url, token, timeout))
    return AsyncMemoryClient(settings=_settings(data_dir, settings))


class MemoryClient(docs.DocumentMethods, ImageMethods):
    """The synchronous client; see docs/python.md for every method and result."""

    def __init__(self, backend: EmbeddedBackend) -> None:
        self._embedded: EmbeddedBackend | None = backend
        self._remote_backend: RemoteBackend | None = None
        self._loop: LoopThread | None = None

    @classmethod
    def _remote(cls, url: str, token: str, timeout: float) -> MemoryClient:
        self = cls.__new__(cls)
        self._embedded = None
        self._loop = LoopThread()
        try:
            self._remote_backend = self._loop.run(_connected(url, token, timeout))
        except BaseException:
            self._loop.stop()
            raise
        return self

    def _run(self, op: ops.Op[ops.R]) -> ops.R:
        if self._embedded is not None:
            return ops.run_sync(op, self._embedded.call)
        remote, loop = self._remote_backend, self._loop
        if remote is None or loop is None:
            op.close()
            raise InvalidInputError("client", "closed; open another with graphmem.open()")
        return ops.run_sync(op, lambda step: loop.run(remote.call(step)))

    def close(self) -> None:
        if self._embedded is not None:
            self._embedded.close()
            self._embedded = None
        if self._remote_backend is not None and self._loop is not None:
            try:
                self._loop.run(self._remote_backend.close())
            finally:
                self._loop.stop()
                self._remote_backend = self._loop = None

    def __enter__(self) -> MemoryClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def service(self) -> MemoryService | None:
        """The embedded MemoryService, for what the client does not cover (None when remote)."""
        return self._embedded.service if self._embedded is not None else None

    def add(
        self,
        messages: str | list[Any],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        memory_type: str | None = None,
        infer: bool = True,
        session_id: str | None = None,
    ) -> dict[str, Any]:
        """A string is one memory; chat messages go through the write policy (infer=True) or
        are stored one per message (infer=False)."""
        return self._run(
            ops.add(
                messages,
                user_id=user_id,
                agent_id=agent_id,
                run_id=run_id,
                metadata=metadata,
                memory_type=memory_type,
                infer=infer,
                session_id=session_id,
            )
        )

    def search(
        self,
        query: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        filters: dict[str, Any] | None = None,
        top_k: int = 5,
        limit: int | None = None,
        kinds: str | list[str] | None = None,
        kind_weights: dict[str, float] | None = None,
    ) -> dict[str, Any]:
        """The best `top_k` memories and document chunks for `query` (`limit` is mem0's name
        for top_k); `kinds` ("memory", "document", "both": the default) picks which, and
        `kind_weights` (e.g. {"document": 0.8}) scales a kind's scores."""
        return self._run(
            docs.search(
                query,
                user_id=user_id,
                agent_id=agent_id,
                run_id=run_id,
                filters=filters,
                top_k=_top_k(top_k, limit),
                kinds=kinds,
                kind_weights=kind_weights,
            )
        )

    def get(self, memory_id: str, *, user_id: str | None = None) -> dict[str, Any]:
        return self._run(ops.get(memory_id, user_id=user_id))

    def get_all(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        filters: dict[str, Any] | None = None,
        limit: int = 100,
        sort: str = "newest",
    ) -> dict[str, Any]:
        return self._run(
            ops.get_all(
                user_id=user_id,
                agent_id=agent_id,
                run_id=run_id,
                filters=filters,
                limit=limit,
                sort=sort,
            )
        )

    def update(self, memory_id: str, text: str, *, user_id: str | None = None) -> dict[str, Any]:
        return self._run(ops.update(memory_id, text, user_id=user_id))

    def delete(self, memory_id: str, *, user_id: str | None = None) -> dict[str, Any]:
        return self._run(ops.delete(memory_id, user_id=user_id))

    def delete_all(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
    ) -> dict[str, Any]:
        return self._run(ops.delete_all(user_id=user_id, agent_id=agent_id, run_id=run_id))

    def history(self, memory_id: str, *, user_id: str | None = None) -> list[dict[str, Any]]:
        return self._run(ops.history(memory_id, user_id=user_id))

    def reveal(
        self, memory_id: str, refs: list[str] | None = None, *, user_id: str | None = None
    ) -> dict[str, Any]:
        """The memory's vaulted secrets in clear (its owner only; audited without values)."""
        return self._run(ops.reveal(memory_id, refs, user_id=user_id))


async def _connected(url: str, token: str, timeout: float) -> RemoteBackend:
    backend = RemoteBackend(url, token, timeout)
    await backend.connect()
    return backend


def _top_k(top_k: int, limit: int | None) -> int:
    if limit is None:
        return top_k
    if top_k != 5 and top_k != limit:
        raise InvalidInputError("limit", "give top_k or limit (mem0's name), not both")
    return limit


class AsyncMemoryClient(docs.AsyncDocumentMethods, AsyncImageMethods):
    """The asynchronous client: MemoryClient's methods as coroutines."""

    def __init__(
        self, *, settings: Settings | None = None, remote: RemoteBackend | None = None
    ) -> None:
        self._settings = settings
        self._embedded: EmbeddedBackend | None = None
        self._remote_backend = remote
        self._connected = False
        self._closed = False
        self._lock = asyncio.Lock()

    async def _open(self) -> None:
        async with self._lock:
            if self._closed:
                raise InvalidInputError("client", "closed; open another with open_async()")
            if self._remote_backend is not None:
                if not self._connected:
                    await self._remote_backend.connect()
                    self._connected = True
            elif self._embedded is None:
                from graphmem.service.facade import MemoryService

                service = await asyncio.to_thread(MemoryService, self._settings)
                self._embedded = EmbeddedBackend(service)

    async def _run(self, op: ops.Op[ops.R]) -> ops.R:
        try:
            await self._open()
        except BaseException:
            op.close()
            raise
        if self._embedded is not None:
            embedded = self._embedded
            return await ops.run_async(op, lambda step: asyncio.to_thread(embedded.call, step))
        assert self._remote_backend is not None
        return await ops.run_async(op, self._remote_backend.call)

    async def close(self) -> None:
        async with self._lock:
            self._closed = True
            if self._embedded is not None:
                await asyncio.to_thread(self._embedded.close)
                self._embedded = None
            if self._remote_backend is not None and self._connected:
                await self._remote_backend.close()
                self._connected = False

    async def __aenter__(self) -> AsyncMemoryClient:
        await self._open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def service(self) -> MemoryService | None:
        """The embedded MemoryService once opened (None when remote or not opened yet)."""
        return self._embedded.service if self._embedded is not None else None

    async def add(
        self,
        messages: str | list[Any],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        memory_type: str | None = None,
        infer: bool = True,
        session_id: str | None = None,
    ) -> dict[str, Any]:
        return await self._run(
            ops.add(
                messages,
                user_id=user_id,
                agent_id=agent_id,
                run_id=run_id,
                metadata=metadata,
                memory_type=memory_type,
                infer=infer,
                session_id=session_id,
            )
        )

    async def search(
        self,
        query: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        filters: dict[str, Any] | None = None,
        top_k: int = 5,
        limit: int | None = None,
        kinds: str | list[str] | None = None,
        kind_weights: dict[str, float] | None = None,
    ) -> dict[str, Any]:
        return await self._run(
            docs.search(
                query,
                user_id=user_id,
                agent_id=agent_id,
                run_id=run_id,
                filters=filters,
                top_k=_top_k(top_k, limit),
                kinds=kinds,
                kind_weights=kind_weights,
            )
        )

    async def get(self, memory_id: str, *, user_id: str | None = None) -> dict[str, Any]:
        return await self._run(ops.get(memory_id, user_id=user_id))

    async def get_all(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        filters: dict[str, Any] | None = None,
        limit: int = 100,
        sort: str = "newest",
    ) -> dict[str, Any]:
        return await self._run(
            ops.get_all(
                user_id=user_id,
                agent_id=agent_id,
                run_id=run_id,
                filters=filters,
                limit=limit,
                sort=sort,
            )
        )

    async def update(
        self, memory_id: str, text: str, *, user_id: str | None = None
    ) -> dict[str, Any]:
        return await self._run(ops.update(memory_id, text, user_id=user_id))

    async def delete(self, memory_id: str, *, user_id: str | None = None) -> dict[str, Any]:
        return await self._run(ops.delete(memory_id, user_id=user_id))

    async def delete_all(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
    ) -> dict[str, Any]:
        return await self._run(ops.delete_all(user_id=user_id, agent_id=agent_id, run_id=run_id))

    async def history(self, memory_id: str, *, user_id: str | None = None) -> list[dict[str, Any]]:
        return await self._run(ops.history(memory_id, user_id=user_id))

    async def reveal(
        self, memory_id: str, refs: list[str] | None = None, *, user_id: str | None = None
    ) -> dict[str, Any]:
        return await self._run(ops.reveal(memory_id, refs, user_id=user_id))


__all__ = ["AsyncMemoryClient", "MemoryClient", "open", "open_async"]
