"""The HTTP server's local-only endpoint for the `graphmem` CLI, and the card that finds it.

While `graphmem serve` holds the embedded store no other process can open it, so CLI commands
on the same data directory are sent here instead (graphmem.cli.remote). The endpoint is not
part of MCP: it takes only the token from the server's card (graphmem.infra.localserver, a 0600
file in the data directory, a fresh token per run, not in the MCP token table) and only from
a loopback address, and runs the command as the CLI does: as the local operator.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

import anyio
from starlette.responses import JSONResponse, Response

from graphmem.infra.localserver import CLI_ROUTE, MAX_REQUEST_BYTES, ServerCard

if TYPE_CHECKING:
    from fastmcp import FastMCP
    from starlette.requests import Request

    from graphmem.service.facade import MemoryService


def local_url(host: str, port: int) -> str | None:
    """Where a CLI on this machine reaches a server bound to `host`; None when the server
    listens on a specific non-loopback address, which a local client would reach from that
    address rather than from loopback, and the endpoint refuses."""
    if host in ("", "0.0.0.0", "localhost"):
        return f"http://127.0.0.1:{port}"
    if host == "::":
        return f"http://[::1]:{port}"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return None
    if not ip.is_loopback:
        return None
    return f"http://[{ip}]:{port}" if ip.version == 6 else f"http://{ip}:{port}"


def is_loopback(host: str | None) -> bool:
    try:
        return host is not None and ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


RunSent = Callable[["MemoryService", Any], dict[str, Any]]
"""Runs a command line a CLI sent (graphmem.cli.main.run_sent): what it printed, its code."""


def add_cli_route(
    server: FastMCP, service: MemoryService, card: ServerCard, run_sent: RunSent
) -> None:
    """Serve CLI_ROUTE on `server` for the holder of `card`'s token; `run_sent` runs each
    command (the CLI passes it in: the CLI imports this module's server, not the reverse)."""
    if not card.token:
        raise ValueError("an HTTP server's card carries a token")
    expected = f"Bearer {card.token}".encode()

    async def endpoint(request: Request) -> Response:
        if not is_loopback(request.client.host if request.client else None):
            return _error(403, "forbidden", "the CLI endpoint answers this machine only")
        sent = request.headers.get("authorization", "").encode()
        if not hmac.compare_digest(sent, expected):
            return _error(401, "invalid_token", "send the token of this server's server.json")
        length = request.headers.get("content-length", "")
        if not length.isdigit() or int(length) > MAX_REQUEST_BYTES:
            return _error(413, "payload_too_large", f"at most {MAX_REQUEST_BYTES} bytes")
        try:
            body = json.loads(await request.body())
        except ValueError:
            return _error(400, "invalid_request", "the body is not JSON")
        reply = await anyio.to_thread.run_sync(partial(run_sent, service, body))
        return JSONResponse(reply)

    server.custom_route(CLI_ROUTE, methods=["POST"], include_in_schema=False)(endpoint)


def _error(status: int, error: str, text: str) -> Response:
    return JSONResponse({"error": error, "error_description": text}, status_code=status)


__all__ = ["add_cli_route", "is_loopback", "local_url"]
