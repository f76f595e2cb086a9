"""The vault commands: `reveal` (a memory's secrets, in clear, to its owner) and
`vault rotate-key` (a new store key for every user's data key).

The PII policy takes secrets out of what is stored and leaves `[secret:password#1]` in the
memory (graphmem.guard.policy); `reveal` is the CLI's one path back to the value, audited like
`memory_reveal` over MCP, without the value in the audit row.
"""

from __future__ import annotations

import argparse

from graphmem.cli.common import AddCommand, emit, open_service, user_of
from graphmem.domain.visibility import Viewer


def cmd_reveal(args: argparse.Namespace) -> None:
    with open_service(args) as svc:
        user, refs = user_of(args), args.ref or None
        got = svc.reveal(user, args.memory_id, refs, viewer=Viewer.OPERATOR, tool="cli:reveal")
    lines = [f"{s['ref']}  {s['type']}  {s['value']}" for s in got["secrets"]]
    none = f"no vaulted secret {', '.join(refs)}" if refs else "no vaulted secret"
    emit(args, got, "\n".join(lines) or f"memory {got['memory_id']} holds {none}")


def cmd_vault(args: argparse.Namespace) -> None:
    with open_service(args) as svc:
        report = svc.rotate_vault_key()
    emit(
        args,
        report,
        f"re-wrapped {report['rewrapped']} data keys under store key {report['key_id']}"
        f" (was {report['previous_key_id']}); the previous key file is"
        f" {report['previous_key_file']}: delete it once no backup needs it",
    )


def register(add: AddCommand) -> None:
    sp = add("reveal", cmd_reveal, "show a memory's vaulted secrets in clear (its owner only)")
    sp.add_argument("memory_id")
    sp.add_argument(
        "--ref",
        action="append",
        help="only this secret, e.g. password#1 (repeatable; default: all of them)",
    )

    sp = add("vault", cmd_vault, "the secrets vault: rotate-key re-wraps every data key")
    sp.add_argument("action", choices=["rotate-key"])
