"""`graphmem config`: the effective settings and where each came from, secrets masked.

The first thing to run when graphmem reads the wrong store or the wrong server: it names the
data directory every other command would use and the variable (or .env line, or flag) behind
each value.
"""

from __future__ import annotations

import argparse
import json

from graphmem.cli.common import AddCommand, out, settings_of


def cmd_config(args: argparse.Namespace) -> None:
    from graphmem.settings.explain import explain

    flags = {"data_dir": "--data-dir"} if args.data_dir else {}
    rows = explain(settings_of(args), flags=flags)
    if args.only:
        rows = [r for r in rows if r.name == args.only or r.name.startswith(args.only + ".")]
    if args.json:
        data = {r.name: {"value": r.value, "source": r.source} for r in rows}
        print(json.dumps(data, ensure_ascii=False), file=out())
        return
    if args.changed:
        rows = [r for r in rows if r.source != "default" or r.name == "data_dir"]
    width = max((len(r.name) for r in rows), default=0)
    for r in rows:
        value = r.value if isinstance(r.value, str) else json.dumps(r.value, ensure_ascii=False)
        print(f"{r.name:<{width}}  {value}  ({r.source})", file=out())


def register(add: AddCommand) -> None:
    sp = add(
        "config",
        cmd_config,
        "the effective settings with their source (flag, env var, .env, default); secrets masked",
        user=None,
    )
    sp.add_argument(
        "--changed", action="store_true", help="only data_dir and what is not a default"
    )
    sp.add_argument("--only", metavar="NAME", help="one setting or section, e.g. server")
