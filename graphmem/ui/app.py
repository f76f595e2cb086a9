"""The inspector's web app: sessions, the fences every request passes, and its routes.

Every page under /u/{user}/ goes through `guarded`, which is where the rules live, once:
a session or the login page; the MCP server's tenant rule (an agent token reads its own user
only, an operator any user); a CSRF token on every POST; a body-size bound; and errors turned
into a clear message on the page (never a stack trace, and nothing of a memory in the log).
The pages themselves are in graphmem.ui.pages.

Searches go by POST, so a query never appears in a URL; the server keeps no access log
(graphmem.ui.server), so the memory and user ids in paths are not written anywhere either.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.datastructures import FormData
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graphmem.domain.model import check_user
from graphmem.errors import GraphmemError, InvalidInputError, NotFoundError
from graphmem.mcp.identity import TokenTable
from graphmem.ui.html import esc, page
from graphmem.ui.sessions import (
    COOKIE,
    LOGIN_COOKIE,
    Refused,
    Session,
    SessionStore,
    csrf_matches,
)

if TYPE_CHECKING:
    from graphmem.service.facade import MemoryService

log = logging.getLogger("graphmem.ui")
STATIC = Path(__file__).with_name("static")
MAX_BODY = 16_384
"""Every form of the inspector fits in a few kilobytes; a larger body is refused unread."""
LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]", "::1")
"""The Host headers accepted: a page of another site that rebinds its own name to 127.0.0.1
still sends its own name, and is refused (DNS rebinding)."""

SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self';"
        " frame-ancestors 'none'; base-uri 'none'"
    ),
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
}


class Inspector:
    """What the routes share: the service, the token table and the open sessions."""

    def __init__(self, service: MemoryService, tokens: TokenTable) -> None:
        self.service = service
        self.tokens = tokens
        self.sessions = SessionStore()

    def session_of(self, request: Request) -> Session | None:
        return self.sessions.get(request.cookies.get(COOKIE))


Handler = Callable[[Request, Session, str, FormData | None], Awaitable[Response]]


async def read_form(request: Request) -> FormData:
    """The form of a POST, refused before parsing when it is larger than any form here."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
        raise Refused(413, f"this form is larger than {MAX_BODY // 1024} KB; nothing was done")
    body = await request.body()
    if len(body) > MAX_BODY:
        raise Refused(413, f"this form is larger than {MAX_BODY // 1024} KB; nothing was done")
    return await request.form()


def error_page(status: int, message: str, session: Session | None, user: str | None) -> Response:
    title = {400: "Bad input", 403: "Not allowed", 404: "Not found", 413: "Too large"}.get(
        status, "Error"
    )
    return HTMLResponse(
        page(title, "", session=session, user=user, error=message), status_code=status
    )


def guarded(app: Inspector, handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    """The fences of every /u/{user}/ page, in order: logged in, allowed to read this user,
    a good CSRF token on a POST; then the page, whose bad input becomes a message."""

    async def endpoint(request: Request) -> Response:
        session = app.session_of(request)
        user = str(request.path_params.get("user", ""))
        if session is None:
            if request.method == "GET":
                return RedirectResponse("/login", status_code=303)
            return error_page(403, "log in first: this session has ended", None, None)
        shown_user: str | None = session.info.user
        try:
            try:
                check_user(user)
            except InvalidInputError as e:
                raise Refused(400, f"{user[:80]!r} is not a user id: {e.message}") from None
            if not session.may_read(user):
                raise Refused(
                    403,
                    f"this session acts for user {session.info.user!r}: an agent token reads"
                    " only its own user's memories, so another user's pages are refused",
                )
            shown_user = user
            form = None
            if request.method == "POST":
                form = await read_form(request)
                if not csrf_matches(session.csrf, _str(form.get("csrf"))):
                    raise Refused(
                        403,
                        "this form's CSRF token is missing or stale: reload the page and"
                        " try again; nothing was done",
                    )
            return await handler(request, session, user, form)
        except Refused as e:
            return error_page(e.status, e.message, session, shown_user)
        except NotFoundError as e:
            return error_page(404, str(e), session, shown_user)
        except InvalidInputError as e:
            return error_page(400, f"{e}; nothing was changed", session, shown_user)
        except GraphmemError as e:
            return error_page(503, str(e), session, shown_user)
        except Exception as e:  # noqa: BLE001 - a page says what failed, never how
            # The type only: an exception's text may quote a memory, which must not be logged.
            log.error("inspector: %s on %s", type(e).__name__, request.url.path.split("/")[1])
            return error_page(
                500, "the inspector failed on this request; see its log", session, shown_user
            )

    return endpoint


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


# ------------------------------------------------------------------------ login and logout
def login_page(request: Request, error: str = "", status: int = 200) -> Response:
    import secrets

    nonce = secrets.token_urlsafe(24)
    body = (
        '<form method="post" action="/login" class="login" id="login-form">'
        f'<input type="hidden" name="csrf" value="{esc(nonce)}">'
        '<label for="f-token">token</label>'
        '<input type="password" name="token" id="f-token" size="50" autocomplete="off" autofocus>'
        '<button type="submit" id="login-button">Log in</button></form>'
        '<p class="muted">Use a token of the MCP server (<code>graphmem serve --add-token USER'
        " [--role operator]</code>). An operator token may look at any user and review held"
        " memories; an agent token sees its own user only, read-only.</p>"
    )
    response = HTMLResponse(page("Log in", body, error=error), status_code=status)
    response.set_cookie(
        LOGIN_COOKIE, nonce, max_age=600, httponly=True, samesite="strict", path="/login"
    )
    return response


def routes(app: Inspector) -> list[Route | Mount]:
    from graphmem.ui import pages

    async def login(request: Request) -> Response:
        if request.method == "GET":
            if app.session_of(request) is not None:
                return RedirectResponse("/", status_code=303)
            return login_page(request)
        try:
            form = await read_form(request)
        except Refused as e:
            return login_page(request, e.message, e.status)
        if not csrf_matches(request.cookies.get(LOGIN_COOKIE, ""), _str(form.get("csrf"))):
            return login_page(request, "the login form has expired: try again", 403)
        token = (_str(form.get("token")) or "").strip()
        info = app.tokens.identify(token) if 0 < len(token) <= 512 else None
        if info is None:
            return login_page(request, "this token is not known to this server", 403)
        session = app.sessions.open(info)
        response = RedirectResponse(f"/u/{info.user}/memories", status_code=303)
        response.set_cookie(COOKIE, session.sid, httponly=True, samesite="strict", path="/")
        response.delete_cookie(LOGIN_COOKIE, path="/login")
        return response

    async def logout(request: Request) -> Response:
        session = app.session_of(request)
        if session is not None:
            try:
                form = await read_form(request)
            except Refused as e:
                return error_page(e.status, e.message, session, session.info.user)
            if not csrf_matches(session.csrf, _str(form.get("csrf"))):
                return error_page(
                    403,
                    "this form's CSRF token is stale; nothing was done",
                    session,
                    session.info.user,
                )
            app.sessions.close(session.sid)
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(COOKIE, path="/")
        return response

    async def home(request: Request) -> Response:
        session = app.session_of(request)
        if session is None:
            return RedirectResponse("/login", status_code=303)
        return RedirectResponse(f"/u/{session.info.user}/memories", status_code=303)

    async def choose(request: Request) -> Response:
        """An operator's jump to another user (a user id is not memory content)."""
        session = app.session_of(request)
        if session is None:
            return RedirectResponse("/login", status_code=303)
        user = request.query_params.get("user", "").strip()
        try:
            check_user(user)
        except InvalidInputError as e:
            return error_page(
                400, f"{user[:80]!r} is not a user id: {e.message}", session, session.info.user
            )
        from urllib.parse import quote

        return RedirectResponse(f"/u/{quote(user, safe='')}/memories", status_code=303)

    return [
        Route("/", home),
        Route("/login", login, methods=["GET", "POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/choose", choose),
        Route("/u/{user}/memories", guarded(app, pages.memories)),
        Route("/u/{user}/m/{memory_id}", guarded(app, pages.memory)),
        Route("/u/{user}/graph/{memory_id}", guarded(app, pages.graph)),
        Route("/u/{user}/timeline", guarded(app, pages.timeline)),
        Route("/u/{user}/search", guarded(app, pages.search), methods=["GET", "POST"]),
        Route("/u/{user}/quarantine", guarded(app, pages.quarantine), methods=["GET", "POST"]),
        Route("/u/{user}/health", guarded(app, pages.health)),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]


class Headers:
    """Adds the security headers to every answer, and how long the server took
    (Server-Timing, which the browser tests read to report each page's time)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                for k, v in SECURITY_HEADERS.items():
                    headers.append((k.encode(), v.encode()))
                took = (time.perf_counter() - started) * 1000
                headers.append((b"server-timing", f"app;dur={took:.1f}".encode()))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_headers)


def create_app(
    service: MemoryService,
    tokens: TokenTable,
    *,
    allowed_hosts: tuple[str, ...] = LOCAL_HOSTS,
) -> Starlette:
    """The inspector over `service`, accepting the MCP server's `tokens`."""
    inspector = Inspector(service, tokens)
    app = Starlette(
        routes=routes(inspector),
        middleware=[
            Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts)),
            Middleware(Headers),
        ],
    )
    app.state.inspector = inspector
    return app


__all__ = ["MAX_BODY", "Inspector", "Refused", "create_app"]
