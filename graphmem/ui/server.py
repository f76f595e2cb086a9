"""Running the inspector: uvicorn on a loopback address, with no access log.

The inspector shows what is stored about people, and its login is a bearer token: it is
meant for the machine it runs on. Only loopback addresses are accepted to bind to; to reach
it from elsewhere, forward a port over SSH, which keeps the connection encrypted and
authenticated. The access log is off because request paths carry user and memory ids.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from graphmem.errors import InvalidInputError

if TYPE_CHECKING:
    from graphmem.mcp.identity import TokenTable
    from graphmem.service.facade import MemoryService

LOOPBACK = ("127.0.0.1", "localhost", "::1")
DEFAULT_PORT = 8766


def check_host(host: str) -> str:
    if host not in LOOPBACK:
        raise InvalidInputError(
            "host",
            f"{host!r}: the inspector binds to loopback only ({', '.join(LOOPBACK)}); to reach"
            " it from another machine, forward its port over SSH",
        )
    return host


def _config(service: MemoryService, tokens: TokenTable, host: str, port: int) -> Any:
    import uvicorn

    from graphmem.ui.app import create_app

    level = logging.getLogger().getEffectiveLevel()
    return uvicorn.Config(
        create_app(service, tokens),
        host=check_host(host),
        port=port,
        access_log=False,
        log_level="info" if level <= logging.INFO else "warning",
        server_header=False,
    )


def start_beside(
    service: MemoryService, tokens: TokenTable, host: str, port: int
) -> Callable[[], None]:
    """The inspector in a thread of a process that serves something else (`graphmem serve
    --ui`), on the same open service; returns the function that stops it. The thread's
    uvicorn leaves the signals to the main thread's server."""
    import uvicorn

    server = uvicorn.Server(_config(service, tokens, host, port))
    thread = threading.Thread(target=server.run, name="graphmem-ui", daemon=True)
    thread.start()

    def stop() -> None:
        server.should_exit = True
        thread.join(timeout=10)

    return stop


def serve(service: MemoryService, tokens: TokenTable, host: str, port: int) -> None:
    """Serve until Ctrl-C or SIGTERM (uvicorn handles both)."""
    import uvicorn

    uvicorn.Server(_config(service, tokens, host, port)).run()


__all__ = ["DEFAULT_PORT", "LOOPBACK", "check_host", "serve", "start_beside"]
