"""`graphmem serve`: the MCP server, over streamable HTTP or stdio.

The server itself lives with the MCP code; this module only declares the command's flags and
hands the parsed arguments over, importing the server lazily so the other commands never load it.
"""

from __future__ import annotations

import argparse

from graphmem.cli.common import AddCommand, data_dir_of, to_int
from graphmem.cli.failures import StoreHeldError


def cmd_serve(args: argparse.Namespace) -> int:
    if not args.add_token:  # minting a token works beside a running server
        refuse_second_server(args)
    from graphmem.mcp.server import serve_command

    return serve_command(args)


def refuse_second_server(args: argparse.Namespace) -> None:
    """A second server on a store one already holds would fail on its lock once the model has
    loaded; say so at once, as an error --json reports like any other."""
    from graphmem.infra.localserver import running

    data_dir = data_dir_of(args)
    other = running(data_dir)
    if other is not None:
        raise StoreHeldError(
            f"the store in {data_dir} is in use by graphmem serve (pid {other.pid});"
            " stop it or serve another --data-dir"
        )


def register(add: AddCommand) -> None:
    sp = add(
        "serve",
        cmd_serve,
        "run the MCP server: streamable HTTP on 127.0.0.1, or --stdio",
        # over HTTP each bearer token names its user; --json only shapes --add-token's answer
        user="with --stdio: the user the agent's memories belong to (default:"
        " $GRAPHMEM_USER_ID or 'default'); over HTTP each token names its user",
        json="with --add-token: print the new token as JSON; errors as JSON on stdout",
    )
    sp.add_argument("--stdio", action="store_true", help="serve one local agent on stdin/stdout")
    sp.add_argument("--host", help="HTTP bind address (default $GRAPHMEM_HOST or 127.0.0.1)")
    sp.add_argument(
        "--port", type=to_int("port"), help="HTTP port (default $GRAPHMEM_PORT or 8765)"
    )
    sp.add_argument(
        "--add-token", metavar="USER", help="create a bearer token for USER, print it, and exit"
    )
    sp.add_argument(
        "--role",
        choices=["agent", "operator"],
        help="with --add-token: agent (default; what an LLM client gets) or operator (may also"
        " approve and reject quarantined memories)",
    )
    sp.add_argument(
        "--label",
        help="with --add-token: the name audit rows give this token (default: a hash prefix)",
    )
    sp.add_argument(
        "--ui",
        action="store_true",
        help="also serve the memory inspector (graphmem ui) on 127.0.0.1, on the same store"
        " and tokens (HTTP only)",
    )
    sp.add_argument("--ui-port", type=to_int("ui-port"), help="with --ui: its port (default 8766)")
