"""The lifecycle commands: compact, archive, restore, observe."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from graphmem.cli.common import (
    EVERY_USER_HELP,
    AddCommand,
    emit,
    open_file,
    open_service,
    user_of,
)
from graphmem.errors import InvalidInputError


def cmd_compact(args: argparse.Namespace) -> None:
    from graphmem.usecases.compact import progress_bar

    with open_service(args) as svc:
        bar = progress_bar(svc.records.count(args.user), args.quiet)
        try:
            rep = svc.compact(
                user_id=args.user,
                dry_run=args.dry_run,
                progress=bar.update,
                full=args.full,
            )
        finally:
            bar.close()
    verb = "would be" if rep.dry_run else ""
    lines = [
        f"{c['action']}: {c.get('memory_id') or c['survivor']}"
        + (f" <- {', '.join(c['merged'])}" if c["action"] == "merge" else "")
        for c in rep.changes
    ]
    lines.append(
        f"{rep.scanned} memories scanned in {rep.took_s:.1f}s: {rep.expired} {verb} expired,"
        f" {rep.archived} {verb} archived, {rep.merged} {verb} merged into"
        f" {rep.merge_groups} survivors, {rep.decay_updated} decay scores"
        f" {'to update' if rep.dry_run else 'updated'}".replace("  ", " ")
    )
    emit(args, rep.to_dict(), "\n".join(lines))


def _status_cmd(action: str) -> Callable[[argparse.Namespace], None]:
    def run(args: argparse.Namespace) -> None:

        with open_service(args) as svc:
            done = getattr(svc, action)(user_of(args), args.memory_id)
        past = "archived" if action == "archive" else "restored"
        emit(
            args,
            {past: done, "count": len(done)},
            "\n".join(f"{past} {i}" for i in done) or f"nothing {past}",
        )

    return run


def _read_turns(path: str) -> list[Any]:
    """A JSON array of turns, or JSONL with one turn (string or object) per line."""
    stream = sys.stdin if path == "-" else open_file(path, "r", encoding="utf-8")
    with stream:
        text = stream.read()
    if text.lstrip().startswith("["):
        try:
            return json.loads(text)
        except json.JSONDecodeError as e:
            raise InvalidInputError("turns", f"is not valid JSON: {e.msg}") from None
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise InvalidInputError(f"line {n}", f"is not valid JSON: {e.msg}") from None
    return out


def cmd_observe(args: argparse.Namespace) -> None:
    turns = _read_turns(args.file)
    with open_service(args) as svc:
        decisions = svc.observe(
            user_of(args),
            turns,
            session_id=args.session,
            dry_run=args.dry_run,
            agent_id=args.agent,
            run_id=args.run,
        )
    lines = [
        f"turn {d.turn}: {d.action} ({d.reason})"
        + (f" [{d.memory_type}] {d.summary}" if d.action == "write" else "")
        + (f" -> {', '.join(d.memory_ids)}" if d.memory_ids else "")
        for d in decisions
    ]
    emit(
        args,
        {"decisions": [d.to_dict() for d in decisions], "dry_run": args.dry_run},
        "\n".join(lines),
    )


def register(add: AddCommand) -> None:
    sp = add(
        "compact",
        cmd_compact,
        "apply the lifecycle rules: purge expired memories, archive stale ones, merge"
        " near-duplicates, recompute decay (all users unless --user; safe to re-run)",
        user=EVERY_USER_HELP,
    )
    sp.add_argument("--dry-run", action="store_true", help="list what would change, change nothing")
    sp.add_argument(
        "--full",
        action="store_true",
        help="look for duplicates around every memory, not only those changed since the last"
        " compaction of every user",
    )
    sp.add_argument("-q", "--quiet", action="store_true", help="no progress bar")

    sp = add("archive", _status_cmd("archive"), "take memories out of default recall")
    sp.add_argument("memory_id", nargs="+")
    sp = add("restore", _status_cmd("restore"), "bring archived memories back into recall")
    sp.add_argument("memory_id", nargs="+")

    sp = add(
        "observe",
        cmd_observe,
        "apply the write policy to conversation turns (JSON array or JSONL; '-' for"
        " stdin): keep what matters, forget what is asked, say why for each turn",
    )
    sp.add_argument("file")
    sp.add_argument("--session", help="session id for the memories written")
    sp.add_argument("--agent", help="the agent the memories written belong to")
    sp.add_argument("--run", help="the run the memories written belong to")
    sp.add_argument("--dry-run", action="store_true", help="decide, write and delete nothing")
