"""CLI commands while a server holds the store: ask the server, or say who holds it.

Qdrant Edge lets one process open a store. While `graphmem serve` runs, it publishes a card
in the data directory (graphmem.infra.localserver: pid, transport, local URL, a local-only token).
A command that opens the store reads that card first and, instead of failing to open it:

* over HTTP, for the commands in ROUTED, sends its own command line to the server's
  local-only endpoint; the server runs the very same command function on its open service,
  as the CLI operator, and sends back what it printed and its exit code, so the output is
  exactly the local one (MCP tools would not do: they act for a token's one user, as an
  agent, and answer in their own shapes);
* otherwise (a stdio server, a command that needs the store to itself, a server that does
  not answer) stops with one line naming the server's pid, and exit code 3.

The client half runs before anything heavy is imported: the standard library and the card.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from graphmem.cli.common import data_dir_of, err, fail, held_service, out, run, user_of
from graphmem.cli.failures import (
    BAD_INPUT,
    Failure,
    StoreHeldError,
    UsageError,
    failure_of,
    wants_json,
)
from graphmem.infra.localserver import CLI_ROUTE, ServerCard, alive, running

if TYPE_CHECKING:
    from graphmem.service.facade import MemoryService

ROUTED = frozenset(
    {
        "add",
        "search",
        "get",
        "reveal",
        "list",
        "history",
        "update",
        "forget",
        "stats",
        "relate",
        "graph",
        "archive",
        "restore",
        "quarantine",
        "audit",
        "export",
        "forget-user",
    }
)
"""Commands a running server can run for the CLI: short calls on the open service whose
output is all they produce. Others (import, compact, backfill, doctor, observe, a second
serve) need the store to themselves, read local files, or run long."""

STARTUP_WAIT_S = 15.0
"""A server publishes its card before it has loaded the model and bound its port; a command
waits this long for it to answer."""
REQUEST_TIMEOUT_S = 600.0
MAX_STDIN_CHARS = 1 << 20


def routable(args: argparse.Namespace) -> bool:
    if args.command not in ROUTED:
        return False
    # export writes a file: the server's working directory is not the caller's.
    return not (args.command == "export" and args.file != "-")


def in_use_line(card: ServerCard, data_dir: Path, hint: str) -> str:
    return f"graphmem: {held_by(card, data_dir, hint)}"


def held_by(card: ServerCard, data_dir: Path, hint: str) -> str:
    return f"the store in {data_dir} is in use by graphmem serve (pid {card.pid}); {hint}"


def refuse(card: ServerCard, data_dir: Path, hint: str) -> NoReturn:
    """Stop the command: raised, so the command reports it like any failure (exit code 3,
    one line, or a JSON error under --json)."""
    raise StoreHeldError(held_by(card, data_dir, hint))


def through_server(args: argparse.Namespace) -> int | None:
    """Run this command through the server holding its store, or refuse it in one line;
    None when no server holds the store (the command then opens it itself)."""
    data_dir = data_dir_of(args)
    card = running(data_dir)
    if card is None:
        return None
    if card.transport != "http":
        refuse(
            card, data_dir, "stop it or use another --data-dir: it serves one MCP client on stdio"
        )
    if not card.url or not card.token:
        refuse(card, data_dir, "stop it or use another --data-dir: it has no local URL")
    if not routable(args):
        what = f"`graphmem {args.command}`" + (" to a file" if args.command == "export" else "")
        refuse(card, data_dir, f"stop it first: {what} needs the store to itself")
    return send(card, data_dir, args)


def send(card: ServerCard, data_dir: Path, args: argparse.Namespace) -> int:
    """POST the command line to the server and print what it printed."""
    import urllib.error
    import urllib.request

    request: dict[str, Any] = {"argv": list(args.argv), "user": user_of(args)}
    if args.command == "add" and args.content == "-":
        request["stdin"] = sys.stdin.read(MAX_STDIN_CHARS + 1)
    req = urllib.request.Request(
        f"{card.url}{CLI_ROUTE}",
        data=json.dumps(request).encode(),
        headers={"Authorization": f"Bearer {card.token}", "Content-Type": "application/json"},
        method="POST",
    )
    # Straight to 127.0.0.1: an HTTP(S)_PROXY in the environment must not see the token.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    deadline = time.monotonic() + STARTUP_WAIT_S
    while True:
        try:
            with opener.open(req, timeout=REQUEST_TIMEOUT_S) as resp:
                reply = json.loads(resp.read())
            break
        except urllib.error.HTTPError as e:
            refuse(card, data_dir, f"stop it or retry: it refused the command ({e.code})")
        except (urllib.error.URLError, ConnectionError, TimeoutError) as e:
            reason = getattr(e, "reason", e)
            starting = isinstance(reason, ConnectionRefusedError)
            if starting and time.monotonic() < deadline and alive(card.pid):
                time.sleep(0.2)  # still loading: the port opens once the store is open
                continue
            refuse(card, data_dir, f"stop it or retry: no answer at {card.url} ({reason})")
        except ValueError:
            refuse(card, data_dir, "stop it or retry: its answer was not JSON")
    out().write(str(reply.get("stdout", "")))
    err().write(str(reply.get("stderr", "")))
    return int(reply.get("code", 1))


def run_sent(
    service: MemoryService, request: Any, parser: Callable[[], argparse.ArgumentParser]
) -> dict[str, Any]:
    """The server's half: run a command line a CLI sent on the server's own service, as the
    CLI operator, and return what it printed and its exit code. `parser` builds the
    `graphmem` parser (graphmem.cli.main, which imports this module)."""
    stdout, stderr = io.StringIO(), io.StringIO()
    argv = request.get("argv") if isinstance(request, dict) else None
    if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
        return {"code": 2, "stdout": "", "stderr": "error: argv: must be a list of strings\n"}
    user = request.get("user")
    with held_service(service, stdout, stderr):

        def refused(failure: Failure) -> dict[str, Any]:
            code = fail(failure, wants_json(argv))
            return {"code": code, "stdout": stdout.getvalue(), "stderr": stderr.getvalue()}

        try:
            args = parser().parse_args(argv)
        except (UsageError, SystemExit) as e:  # another graphmem version sent it
            said = f"the server's graphmem does not take this command line: {e}"
            return refused(Failure(BAD_INPUT, None, said, f"error: {said}"))
        if not routable(args):
            return refused(failure_of(StoreHeldError(f"not routed: {args.command}")))
        args.argv = argv
        if isinstance(user, str) and user:
            args.user = user
        stdin = request.get("stdin")
        if args.command == "add" and args.content == "-" and isinstance(stdin, str):
            args.content = stdin
        code = run(args)
    return {"code": code, "stdout": stdout.getvalue(), "stderr": stderr.getvalue()}


__all__ = ["ROUTED", "in_use_line", "routable", "run_sent", "through_server"]
