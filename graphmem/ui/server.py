"""Running the inspector: uvicorn on a loopback address, with no access log.

The inspector shows what is stored about people, and its login is a bearer token: it is
meant for the machine it runs on. Only loopback addresses are accepted to bind to; to reach
it from elsewhere, forward a port over SSH, which keeps the connection encrypted and
authenticated. The access log is off because request paths carry user and memory ids.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from graphmem.errors import InvalidInputError

if TYPE_CHECKING:
    from graphmem.mcp.identity import TokenTable
    from graphmem.service import MemoryService

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


def serve(service: MemoryService, tokens: TokenTable, host: str, port: int) -> None:
    """Serve until Ctrl-C or SIGTERM (uvicorn handles both)."""
    import uvicorn

    from graphmem.ui.app import create_app

    level = logging.getLogger().getEffectiveLevel()
    uvicorn.run(
        create_app(service, tokens),
        host=check_host(host),
        port=port,
        access_log=False,
        log_level="info" if level <= logging.INFO else "warning",
        server_header=False,
    )


__all__ = ["DEFAULT_PORT", "LOOPBACK", "check_host", "serve"]
