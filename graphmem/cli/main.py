"""The `graphmem` console command: the parser, assembled from each command family, and main().

Families register in this order, which is the order `graphmem --help` lists the commands in.
Building the parser imports no settings, stores, numpy or model: each command imports what it
needs when it runs, so `graphmem --help` and argument errors answer at once.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from graphmem.cli import (
    audit,
    config,
    doctor,
    documents,
    graph,
    images,
    lifecycle,
    memory,
    remote,
    serve,
    top,
    ui,
    userdata,
    vault,
)
from graphmem.cli.common import JSON_HELP, USER_HELP, Command, fail, run
from graphmem.cli.failures import Parser, UsageError, failure_of, wants_json

if TYPE_CHECKING:
    from graphmem.service.facade import MemoryService

FAMILIES = (
    memory,
    images,
    vault,
    documents,
    audit,
    doctor,
    userdata,
    graph,
    lifecycle,
    config,
    serve,
    ui,
    top,
)

NO_STORE = frozenset({"config", "version", "serve", "ui", "top"})
"""Commands that do not open the store on their own (serve checks for a running server
itself, and so does ui); every other command first asks whether a server holds it
(graphmem.cli.remote)."""


def version() -> str:
    """graphmem's version, from its one source (graphmem.version)."""
    from graphmem.version import __version__

    return __version__


def cmd_version(args: argparse.Namespace) -> None:
    from graphmem.cli.common import emit

    emit(args, {"version": version()}, f"graphmem {version()}")


DATA_DIR_HELP = (
    "data directory (default: $GRAPHMEM_DATA_DIR, else the user data dir;"
    " `graphmem config` shows which)"
)


def build_parser() -> argparse.ArgumentParser:
    """Every parser is a failures.Parser: an argument error raises instead of exiting, so
    main() reports it like any bad input (as JSON under --json)."""
    p = Parser(prog="graphmem", description="Long-term memory for LLM agents.")
    p.add_argument("--version", action=_VersionAction, help="print graphmem's version and exit")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(
        name: str,
        fn: Command,
        help_: str,
        *,
        user: str | None = USER_HELP,
        json: str = JSON_HELP,
        data_dir: bool = True,
    ) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help_, description=help_)
        if user is not None:
            sp.add_argument("--user", help=user)
        sp.add_argument("--json", action="store_true", help=json)
        if data_dir:
            sp.add_argument("--data-dir", help=DATA_DIR_HELP)
        sp.set_defaults(fn=fn, opens_store=name not in NO_STORE)
        return sp

    for family in FAMILIES:
        family.register(add)
    add("version", cmd_version, "print graphmem's version", user=None, data_dir=False)
    return p


class _VersionAction(argparse.Action):
    """argparse's own version action takes the text when the parser is built; looking the
    version up in the installed metadata costs a little, so this waits until it is asked."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help=str(kwargs.get("help", "")))

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        print(f"graphmem {version()}")
        parser.exit()


def main(argv: list[str] | None = None) -> int:
    from graphmem.errors import InvalidInputError
    from graphmem.infra import logs

    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        logs.configure()  # GRAPHMEM_LOG_LEVEL, GRAPHMEM_LOG_FORMAT=text|json
    except InvalidInputError as e:
        return fail(failure_of(e), wants_json(argv))
    try:
        args = build_parser().parse_args(argv)
    except UsageError as e:
        return fail(failure_of(e), wants_json(argv))
    args.argv = argv
    # `serve` hands this to its HTTP server, which runs the commands CLIs send it.
    args.run_sent = run_sent
    return run(args, route=remote.through_server)


def run_sent(service: MemoryService, request: Any) -> dict[str, Any]:
    """A command line a CLI sent to the server, run on the server's service
    (graphmem.cli.remote)."""
    return remote.run_sent(service, request, build_parser)


if __name__ == "__main__":
    sys.exit(main())
