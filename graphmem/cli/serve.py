"""`graphmem serve`: the MCP server, over streamable HTTP or stdio.

The server itself lives with the MCP code; this module only declares the command's flags and
hands the parsed arguments over, importing the server lazily so the other commands never load it.
"""

from __future__ import annotations

import argparse

from graphmem.cli.common import AddCommand, to_int


def cmd_serve(args: argparse.Namespace) -> int:
    from graphmem.mcp.server import serve_command

    return serve_command(args)


def register(add: AddCommand) -> None:
    sp = add("serve", cmd_serve, "run the MCP server: streamable HTTP on 127.0.0.1, or --stdio")
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
