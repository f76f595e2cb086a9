"""The `graphmem` console command: the parser, assembled from each command family, and main().

Families register in this order, which is the order `graphmem --help` lists the commands in.
Building the parser imports no settings, stores, numpy or model: each command imports what it
needs when it runs, so `graphmem --help` and argument errors answer at once.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from graphmem.cli import audit, config, doctor, graph, lifecycle, memory, remote, serve, userdata
from graphmem.cli.common import Command, fail, run

if TYPE_CHECKING:
    from graphmem.service import MemoryService

FAMILIES = (memory, audit, doctor, userdata, graph, lifecycle, config, serve)

NO_STORE = frozenset({"config", "version", "serve"})
"""Commands that do not open the store on their own (serve checks for a running server
itself); every other command first asks whether a server holds it (graphmem.cli.remote)."""


def version() -> str:
    """graphmem's version, from its one source (graphmem.version)."""
    from graphmem.version import __version__

    return __version__


def cmd_version(args: argparse.Namespace) -> None:
    from graphmem.cli.common import emit

    emit(args, {"version": version()}, f"graphmem {version()}")


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--user", help="user id (default: $GRAPHMEM_USER_ID or 'default')")
    common.add_argument("--json", action="store_true", help="machine-readable JSON output")
    common.add_argument(
        "--data-dir",
        help="data directory (default: $GRAPHMEM_DATA_DIR, else the user data dir;"
        " `graphmem config` shows which)",
    )

    p = argparse.ArgumentParser(prog="graphmem", description="Long-term memory for LLM agents.")
    p.add_argument("--version", action=_VersionAction, help="print graphmem's version and exit")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, fn: Command, help_: str) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, parents=[common], help=help_, description=help_)
        sp.set_defaults(fn=fn, opens_store=name not in NO_STORE)
        return sp

    for family in FAMILIES:
        family.register(add)
    add("version", cmd_version, "print graphmem's version")
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
    from graphmem import logs
    from graphmem.errors import InvalidInputError

    try:
        logs.configure()  # GRAPHMEM_LOG_LEVEL, GRAPHMEM_LOG_FORMAT=text|json
    except InvalidInputError as e:
        return fail(e, 2)
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
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
