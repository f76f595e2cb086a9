"""The HTTP front of `graphmem serve`: bearer tokens, a body-size limit, clear 401s and 413s,
request ids, the Prometheus endpoint and the health probe.

Over HTTP the bearer token is the identity: `token_verifier` turns a token from the hashed
table (identity.py) into claims naming the user, their role and the token's label, and the
tools read the caller from those claims, never from an argument.
"""

import hmac
import json
import sys
from typing import TYPE_CHECKING, Any

import anyio
from fastmcp.server.auth import AccessToken, TokenVerifier
from starlette.middleware import Middleware
from starlette.responses import JSONResponse, Response

from graphmem.infra import logs, metrics
from graphmem.mcp.identity import TokenTable
from graphmem.settings.server import McpSettings

if TYPE_CHECKING:
    from fastmcp import FastMCP
    from starlette.requests import Request
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

    from graphmem.service.facade import MemoryService


class GraphmemTokenVerifier(TokenVerifier):
    """Maps a bearer token to a user through the hashed token table; the claims carry the
    user, the role and the label the tools and audit rows read."""

    def __init__(self, table: TokenTable) -> None:
        super().__init__()
        self.table = table

    async def verify_token(self, token: str) -> AccessToken | None:
        info = self.table.identify(token)
        if info is None:
            return None
        return AccessToken(
            token=token,
            client_id=info.user,
            scopes=[],
            expires_at=None,
            claims={
                "graphmem_user": info.user,
                "graphmem_role": info.role,
                "graphmem_label": info.label,
            },
        )


def token_verifier(table: TokenTable) -> GraphmemTokenVerifier:
    """The `auth` to give create_server for a token-protected (HTTP) server."""
    return GraphmemTokenVerifier(table)


async def metrics_endpoint(cfg: McpSettings, request: "Request") -> Response:
    """GET /metrics: Prometheus exposition text. Counts only, no user ids and no content; still,
    set GRAPHMEM_METRICS_TOKEN when the port is reachable by anyone but your scraper."""
    if cfg.metrics_token is not None:
        sent = request.headers.get("authorization", "")
        want = "Bearer " + cfg.metrics_token.get_secret_value()
        if not hmac.compare_digest(sent.encode(), want.encode()):
            return JSONResponse(
                {
                    "error": "invalid_token",
                    "error_description": "GET /metrics needs 'Authorization: Bearer <token>'"
                    " with the token in GRAPHMEM_METRICS_TOKEN.",
                },
                status_code=401,
                headers={"www-authenticate": "Bearer"},
            )
    body, content_type = await anyio.to_thread.run_sync(metrics.render)  # reads the stores
    return Response(body, media_type=content_type)


HEALTH_PATH = "/healthz"


def failing_stores(service: "MemoryService") -> list[str]:
    """The names of the stores that do not answer their health check right now (records,
    vectors, graph, cache: the four `graphmem_store_up` reports; a closed service's fail)."""
    return [name for name, ok in service.store_health().items() if not ok]


async def healthz_endpoint(service: "MemoryService", request: "Request") -> Response:
    """GET /healthz: 200 when every store answers, 503 naming the ones that do not.

    A container healthcheck or a load balancer polls it without a token, so it says nothing
    about users or content and no error text (which could carry hosts or credentials): only
    store names. The probes block (a MySQL or Neo4j round trip), so they run in a worker
    thread rather than on the event loop that serves MCP calls."""
    failing = await anyio.to_thread.run_sync(failing_stores, service)
    if failing:
        return JSONResponse(
            {"status": "unavailable", "failing": failing},
            status_code=503,
            headers={"cache-control": "no-store"},
        )
    return JSONResponse({"status": "ok"}, headers={"cache-control": "no-store"})


class HttpGate:
    """ASGI middleware in front of the MCP endpoint: clear 401s and a body-size limit.

    It runs after fastmcp's bearer authentication has set scope["user"], and before the MCP
    handler parses anything. fastmcp's own RequireAuthMiddleware still guards the route; this
    layer exists to answer a missing or wrong token with a JSON message a person can act on,
    and to refuse an oversized body before reading it into the JSON parser.
    """

    def __init__(self, app: "ASGIApp", *, mcp_path: str, max_bytes: int) -> None:
        self.app = app
        self.path = mcp_path.rstrip("/") or "/"
        self.max_bytes = max_bytes

    async def __call__(self, scope: "Scope", receive: "Receive", send: "Send") -> None:
        if scope["type"] != "http" or (scope["path"].rstrip("/") or "/") != self.path:
            await self.app(scope, receive, send)
            return
        scope, send = _with_request_id(scope, send)
        user = scope.get("user")
        if not getattr(user, "is_authenticated", False):
            await self._unauthorized(scope, send)
            return
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.max_bytes:
            await self._too_large(send, int(length))
            return
        if scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await self._too_large(send, size)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        replayed = False

        async def replay() -> "Message":
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _unauthorized(self, scope: "Scope", send: "Send") -> None:
        auth = next((v for k, v in scope.get("headers") or [] if k == b"authorization"), None)
        if auth is None:
            error = "missing_token"
            text = (
                "This graphmem MCP server needs a bearer token: send the header"
                " 'Authorization: Bearer <token>'. An operator creates tokens with"
                " `graphmem serve --add-token USER`."
            )
        elif auth[:7].lower() != b"bearer ":
            error = "invalid_request"
            text = "Use the Bearer scheme: 'Authorization: Bearer <token>'."
        else:
            error = "invalid_token"
            text = (
                "The bearer token was not recognised by this graphmem server (unknown,"
                " revoked or mistyped). Check the token your client sends; an operator"
                " creates new ones with `graphmem serve --add-token USER`."
            )
        challenge = f'Bearer error="{error}"' if error != "missing_token" else "Bearer"
        await _json_response(
            send,
            401,
            {"error": error, "error_description": text},
            [(b"www-authenticate", challenge.encode())],
        )

    async def _too_large(self, send: "Send", size: int) -> None:
        await _json_response(
            send,
            413,
            {
                "error": "payload_too_large",
                "error_description": f"The request body is at least {size} bytes; this server"
                f" accepts at most {self.max_bytes} (GRAPHMEM_MAX_REQUEST_BYTES). Nothing was"
                " processed.",
            },
            [(b"connection", b"close")],
        )


def _with_request_id(scope: "Scope", send: "Send") -> tuple["Scope", "Send"]:
    """Give the request an X-Request-Id (the caller's, if usable) that the tool call logs
    under, and echo it in the response so a client can quote it in a bug report."""
    key = logs.REQUEST_ID_HEADER.encode()
    headers = [(k, v) for k, v in scope.get("headers") or [] if k != key]
    sent = next((v for k, v in scope.get("headers") or [] if k == key), b"")
    rid = logs.new_request_id(sent.decode("latin-1")).encode()
    scope = {**scope, "headers": [*headers, (key, rid)]}

    async def send_with_id(message: "Message") -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), (key, rid)]}
        await send(message)

    return scope, send_with_id


async def _json_response(
    send: "Send", status: int, body: dict[str, Any], extra: list[tuple[bytes, bytes]]
) -> None:
    data = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(data)).encode()),
                *extra,
            ],
        }
    )
    await send({"type": "http.response.body", "body": data})


def http_middleware(cfg: McpSettings) -> list[Middleware]:
    return [Middleware(HttpGate, mcp_path=cfg.mcp_path, max_bytes=cfg.max_request_bytes)]


async def serve_http(server: "FastMCP", cfg: McpSettings, *, log_level: str = "warning") -> None:
    """Run streamable HTTP until SIGINT/SIGTERM (uvicorn handles both gracefully).

    Host/Origin checking is on ("auto": enforced while bound to loopback), so a web page the
    user visits cannot reach the server through DNS rebinding or a cross-origin request.

    One event loop thread parses every request and sends every answer, while worker threads
    run the service's Python (screening, spaCy, ranking). Each time the loop waits for the
    network it gives up the GIL, and a busy worker keeps it for up to the switch interval
    before the loop gets it back; with Python's 5 ms that wait, several times per request,
    bounded what the loop could serve. `switch_interval_ms` (1 ms by default) shortens it.

    Answers are plain JSON, not an event stream: no tool sends progress or log messages while
    it runs, so a stream per answer only cost the loop a task and its timer (about 1 ms of the
    loop's 5 per call, measured).
    """
    sys.setswitchinterval(cfg.switch_interval_ms / 1000)
    uvicorn_config: dict[str, Any] = {"access_log": False}
    if logs.json_enabled():
        logs.route_framework_logs()
        uvicorn_config["log_config"] = None  # uvicorn logs through the root (JSON) handler
    await server.run_http_async(
        transport="http",
        host=cfg.host,
        port=cfg.port,
        path=cfg.mcp_path,
        host_origin_protection="auto",
        json_response=True,
        middleware=http_middleware(cfg),
        show_banner=False,
        log_level=log_level,
        uvicorn_config=uvicorn_config,
    )


__all__ = [
    "HEALTH_PATH",
    "HttpGate",
    "failing_stores",
    "healthz_endpoint",
    "http_middleware",
    "metrics_endpoint",
    "serve_http",
    "token_verifier",
]
