"""graphmem as an MCP server: MemoryService's operations as tools an LLM agent calls.

`graphmem serve` speaks streamable HTTP on 127.0.0.1 (one process, many agents, each
identified by its bearer token); `graphmem serve --stdio` serves the one local agent that
started it, as the user from settings. Both run the same FastMCP server built by
`create_server`, so a tool behaves identically whichever way it is reached.

This module only assembles: the tools live in `graphmem.mcp.tools` by theme, what runs around
every call in `middleware`, the HTTP front in `http`. Design choices that matter to callers:

* The user is never a tool argument. Over HTTP it comes from the token (see identity.py), over
  stdio from GRAPHMEM_USER_ID, so no argument can reach another user's memories.
* Every failure a caller can fix comes back as an MCP tool error whose text starts with the
  field to fix ("top_k: Input should be greater than or equal to 1"). Anything else is
  logged and masked, so the server never crashes on input and never leaks internals.
* Limits are checked before work: the HTTP body size before it is parsed, the serialised
  arguments before validation, every field by its JSON Schema before the tool body runs, and
  the service validates a whole write before embedding or storing anything.
"""

import argparse
import contextlib
import json
import logging
import sys
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from fastmcp import FastMCP
from fastmcp.server.auth import AuthProvider

from graphmem import __version__
from graphmem.cli.common import announce_data_dir
from graphmem.domain.model import check_user
from graphmem.errors import InvalidInputError, StoreUnavailableError
from graphmem.infra import localserver, metrics
from graphmem.mcp import prompts, resources
from graphmem.mcp.context import ToolContext, ToolRegistry, WorkerLanes, caller_lookup
from graphmem.mcp.http import (
    HEALTH_PATH,
    healthz_endpoint,
    metrics_endpoint,
    serve_http,
    token_verifier,
)
from graphmem.mcp.identity import TokenTable, add_token
from graphmem.mcp.local import add_cli_route, local_url
from graphmem.mcp.middleware import GuardMiddleware, check_budgets
from graphmem.mcp.stats import ToolStats
from graphmem.mcp.tools import (
    admin,
    documents,
    graph,
    health,
    images,
    imports,
    memory,
    recall,
    working,
)
from graphmem.settings import Settings
from graphmem.settings.server import McpSettings
from graphmem.stores import open_working
from graphmem.stores.private_files import write_private
from graphmem.stores.working import WorkingMemoryStore

if TYPE_CHECKING:
    from graphmem.service.facade import MemoryService

# Each registers its own tools; together they are every tool the server has. The order is the
# order clients list them in.
TOOL_MODULES = (memory, images, recall, documents, working, health, graph, admin, imports)


def create_server(
    service: "MemoryService",
    *,
    settings: McpSettings | None = None,
    working: WorkingMemoryStore | None = None,
    auth: AuthProvider | None = None,
    default_user: str | None = None,
) -> FastMCP:
    """The FastMCP server over one MemoryService.

    With `auth` (a TokenVerifier) every call must carry a token and the token's user is the
    caller; without it (stdio, in-process) the caller is `default_user`, else the settings user.
    """
    svc = service
    cfg = settings or svc.settings.server
    wm = working or _working_of(svc.settings)
    # Erasing a user reaches their working memory too.
    svc.purgers["working_memory"] = (wm.delete_user, wm.count_user)
    svc.report_levels()
    identify = caller_lookup(
        require_token=auth is not None,
        local_user=check_user(default_user or svc.settings.user_id),
    )
    lanes = WorkerLanes(read=cfg.read_workers, write=cfg.write_workers)
    ctx = ToolContext(svc, wm, cfg, ToolStats(), identify, lanes)
    guard = GuardMiddleware(ctx)
    mcp = FastMCP(
        "graphmem",
        instructions=prompts.INSTRUCTIONS,
        version=__version__,
        auth=auth,
        middleware=[guard],
        mask_error_details=True,
    )

    registry = ToolRegistry(mcp)
    for module in TOOL_MODULES:
        module.register(registry, ctx)
    tools = frozenset(registry.names)
    check_budgets(tools)
    guard.tools = tools
    metrics.register_tools(tools)

    resources.register(mcp, ctx)
    mcp.custom_route(HEALTH_PATH, methods=["GET"], include_in_schema=False)(
        partial(healthz_endpoint, svc)
    )
    if cfg.metrics:
        mcp.custom_route(cfg.metrics_path, methods=["GET"], include_in_schema=False)(
            partial(metrics_endpoint, cfg)
        )
    prompts.register(mcp)
    return mcp


# ----------------------------------------------------------------------------- CLI entry
def load_tokens(settings: Settings, cfg: McpSettings) -> TokenTable:
    env = cfg.tokens.get_secret_value() if cfg.tokens else None
    return TokenTable(cfg.tokens_path(settings), env)


def serve_command(args: argparse.Namespace) -> int:
    """`graphmem serve`: HTTP by default, --stdio for one local agent, --add-token to mint.

    While it runs, the server's card (graphmem.infra.localserver) is in the data directory, so CLI
    commands on the same store reach this server instead of failing on the store's lock."""
    overrides: dict[str, Any] = {}
    if args.data_dir:
        overrides["data_dir"] = args.data_dir
    settings = Settings(**overrides)
    cfg = settings.server
    if args.host:
        cfg.host = args.host
    if args.port is not None:
        cfg.port = args.port
    if not 0 <= cfg.port <= 65535:
        raise InvalidInputError("port", "must be between 0 and 65535")

    role = getattr(args, "role", None)
    label = getattr(args, "label", None)
    if (role or label) and not args.add_token:
        raise InvalidInputError("role" if role else "label", "applies to --add-token only")
    if args.add_token:
        path = cfg.tokens_path(settings)
        role = role or "agent"
        token = add_token(path, args.add_token, role=role, label=label)
        if args.json:
            print(
                json.dumps(
                    {
                        "user_id": args.add_token,
                        "role": role,
                        "token": token,
                        "tokens_file": str(path),
                    }
                )
            )
        else:
            print(token)
            print(
                f"({role} token for user {args.add_token!r}; its SHA-256 is in {path}, the token"
                " itself is stored nowhere - keep it now. Clients send 'Authorization: Bearer"
                " <token>'.)",
                file=sys.stderr,
            )
        return 0

    level = logging.getLogger().getEffectiveLevel()
    log_level = logging.getLevelName(level).lower() if level <= logging.INFO else "warning"
    if getattr(args, "ui", False) and args.stdio:
        raise InvalidInputError("ui", "serves beside the HTTP server only (not --stdio)")
    if not args.stdio and args.user:
        raise InvalidInputError(
            "user", "over HTTP the bearer token decides the user; --user applies to --stdio only"
        )
    other = localserver.running(settings.data_dir)
    if other is not None:  # the CLI checks first; this covers a server started in between
        raise StoreUnavailableError(
            f"the store in {settings.data_dir} is in use by graphmem serve (pid"
            f" {other.pid}); stop it or serve another --data-dir"
        )
    # over HTTP the startup line says where the data is; stdio has no startup line
    new_store = announce_data_dir(settings, new_store_now=args.stdio)
    _stop_on_sigterm()

    if args.stdio:
        import anyio

        user = check_user(args.user or settings.user_id)
        card = localserver.publish(settings.data_dir, "stdio")
        try:
            # Nothing but protocol may reach stdout; model loading gets stderr instead.
            with contextlib.redirect_stdout(sys.stderr):
                svc, working = _open_service(settings)
            try:
                server = create_server(svc, settings=cfg, working=working, default_user=user)
                anyio.run(partial(server.run_stdio_async, show_banner=False))
            finally:
                working.close()
                svc.close()
        except KeyboardInterrupt:
            pass  # the client went away, Ctrl-C or SIGTERM, even while loading: a normal stop
        finally:
            localserver.withdraw(settings.data_dir, card)
        return 0

    table = load_tokens(settings, cfg)
    if len(table) == 0:
        _first_token(settings, cfg)
        table = load_tokens(settings, cfg)
    import anyio

    if cfg.port == 0:  # the card needs the port before uvicorn binds it
        cfg.port = _free_port(cfg.host)
    card = localserver.publish(settings.data_dir, "http", local_url(cfg.host, cfg.port))
    try:
        svc, working = _open_service(settings)
        try:
            server = create_server(svc, settings=cfg, working=working, auth=token_verifier(table))
            stop_ui = _start_ui(args, svc, table)
            run_sent = getattr(args, "run_sent", None)
            if card.url and run_sent is not None:
                add_cli_route(server, svc, card, run_sent)
            print(
                f"graphmem MCP server on http://{cfg.host}:{cfg.port}{cfg.mcp_path}"
                f" ({len(table.users())} user(s) with tokens; data in {settings.data_dir}"
                f"{', a new store' if new_store else ''})",
                file=sys.stderr,
                flush=True,
            )
            try:
                anyio.run(partial(serve_http, server, cfg, log_level=log_level))
            finally:
                if stop_ui is not None:
                    stop_ui()
        finally:
            working.close()
            svc.close()
    except KeyboardInterrupt:
        pass  # Ctrl-C or SIGTERM, even while loading: a normal stop
    finally:
        localserver.withdraw(settings.data_dir, card)
    return 0


def _start_ui(
    args: argparse.Namespace, svc: "MemoryService", table: TokenTable
) -> Callable[[], None] | None:
    """`serve --ui`: the memory inspector (graphmem.ui) beside the MCP server, on the same
    service and tokens, on 127.0.0.1."""
    if not getattr(args, "ui", False):
        return None
    from graphmem.ui.server import DEFAULT_PORT, start_beside

    port = DEFAULT_PORT if args.ui_port is None else args.ui_port
    stop = start_beside(svc, table, "127.0.0.1", port)
    print(f"graphmem inspector on http://127.0.0.1:{port}/", file=sys.stderr, flush=True)
    return stop


def _stop_on_sigterm() -> None:
    """Make SIGTERM (a service manager's stop, `kill`) a normal stop, like Ctrl-C.

    Left at its default, SIGTERM ends the process where it stands: uvicorn shuts down
    gracefully and then raises the signal again for the previous handler, so neither the
    service's close nor the removal of the server's card would run, and the card would
    outlive the server."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)


def _free_port(host: str) -> int:
    """A port nobody listens on now, for `--port 0`."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


FIRST_TOKEN_FILE = "mcp_first_token"


def _first_token(settings: Settings, cfg: McpSettings) -> None:
    """Create the first token, for the settings user, so a first run works but is never open.

    Shown on the terminal when there is one. When stdout or stderr is not a terminal (a
    service manager, a container, `> log`), whatever is printed ends up in log files that
    outlive the token's secrecy, so the token goes to a 0600 file in the data directory
    instead and only that file's path is printed."""
    path = cfg.tokens_path(settings)
    token = add_token(path, settings.user_id)
    where = f"Its SHA-256 is in {path}; the token itself"
    how = (
        "Clients send 'Authorization: Bearer <token>'. Add more with `graphmem serve"
        " --add-token USER`."
    )
    if sys.stdout.isatty() and sys.stderr.isatty():
        print(
            f"graphmem: no MCP tokens were configured, so one was created for user"
            f" {settings.user_id!r}:\n\n    {token}\n\n{where} is stored nowhere, so copy it"
            f" now. {how}\n",
            file=sys.stderr,
        )
        return
    saved = (settings.data_dir / FIRST_TOKEN_FILE).expanduser()
    write_private(saved, token + "\n")
    print(
        f"graphmem: no MCP tokens were configured, so one was created for user"
        f" {settings.user_id!r} and written to {saved} (readable by this account only; not"
        f" printed, since this output is not a terminal). {where} is stored nowhere else:"
        f" read it, then delete that file. {how}",
        file=sys.stderr,
        flush=True,
    )


def _working_of(settings: Settings) -> WorkingMemoryStore:
    """The working memory `settings.working` selects."""
    kept = settings.working
    return open_working(
        kept.backend,
        ttl_seconds=kept.ttl_seconds,
        redis_url=settings.redis_url,
        max_sessions=kept.max_sessions,
    )


def _open_service(settings: Settings) -> tuple["MemoryService", WorkingMemoryStore]:
    from graphmem.service.facade import MemoryService

    working = _working_of(settings)
    svc = MemoryService(settings)
    svc.start_background()  # periodic compaction (if configured) and the outbox drain
    return svc, working


__all__ = ["create_server", "load_tokens", "serve_command"]
