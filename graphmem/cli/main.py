"""The `graphmem` console command: the parser, assembled from each command family, and main().

Families register in this order, which is the order `graphmem --help` lists the commands in.
"""

from __future__ import annotations

import argparse
import sys

from graphmem import logs
from graphmem.cli import audit, doctor, graph, lifecycle, memory, serve, userdata
from graphmem.cli.common import Command, fail, run
from graphmem.errors import InvalidInputError

FAMILIES = (memory, audit, doctor, userdata, graph, lifecycle, serve)


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--user", help="user id (default: $GRAPHMEM_USER_ID or 'default')")
    common.add_argument("--json", action="store_true", help="machine-readable JSON output")
    common.add_argument("--data-dir", help="data directory (default: $GRAPHMEM_DATA_DIR or ./data)")

    p = argparse.ArgumentParser(prog="graphmem", description="Long-term memory for LLM agents.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, fn: Command, help_: str) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, parents=[common], help=help_, description=help_)
        sp.set_defaults(fn=fn)
        return sp

    for family in FAMILIES:
        family.register(add)
    return p


def main(argv: list[str] | None = None) -> int:
    try:
        logs.configure()  # GRAPHMEM_LOG_LEVEL, GRAPHMEM_LOG_FORMAT=text|json
    except InvalidInputError as e:
        return fail(e, 2)
    return run(build_parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
