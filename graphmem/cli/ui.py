"""`graphmem ui`: the memory inspector in a browser, on 127.0.0.1 (graphmem.ui).

It logs in with the MCP server's tokens, so it needs at least one: `graphmem serve
--add-token USER --role operator` makes an operator's. It holds the store like `serve` does,
so it refuses to start beside a running server on the same data directory.
"""

from __future__ import annotations

import argparse

from graphmem.cli.common import AddCommand, settings_of, to_int
from graphmem.errors import InvalidInputError


def cmd_ui(args: argparse.Namespace) -> int:
    from graphmem.cli.serve import refuse_second_server
    from graphmem.mcp.identity import TokenTable
    from graphmem.service.facade import MemoryService
    from graphmem.ui.server import DEFAULT_PORT, check_host, serve

    host = check_host(args.host or "127.0.0.1")
    port = DEFAULT_PORT if args.port is None else args.port
    if not 0 < port <= 65535:
        raise InvalidInputError("port", "must be between 1 and 65535")
    refuse_second_server(args)
    settings = settings_of(args)
    cfg = settings.server
    tokens = TokenTable(
        cfg.tokens_path(settings), cfg.tokens.get_secret_value() if cfg.tokens else None
    )
    if len(tokens) == 0:
        raise InvalidInputError(
            "tokens",
            f"no token to log in with ({cfg.tokens_path(settings)} has none): create one with"
            " `graphmem serve --add-token USER --role operator`",
        )
    with MemoryService(settings) as svc:
        print(f"graphmem inspector on http://{host}:{port}/ (Ctrl-C stops it)", flush=True)
        serve(svc, tokens, host, port)
    return 0


def register(add: AddCommand) -> None:
    sp = add(
        "ui",
        cmd_ui,
        "the memory inspector in a browser, on 127.0.0.1: log in with a serve token",
        user=None,
        json="errors as JSON on stdout",
    )
    sp.add_argument("--host", help="loopback address to bind (default 127.0.0.1)")
    sp.add_argument("--port", type=to_int("port"), help="HTTP port (default 8766)")
