"""`graphmem list`: a user's memories, a page at a time, filtered and sorted.

The page ends with the command that fetches the next one, so a person pages by copying one
line; --json gives the page as the service returns it (`memories`, `next_cursor`, `count`),
and a script pages by passing `next_cursor` back as --cursor until it is null.
"""

from __future__ import annotations

import argparse
import shlex

from graphmem.cli.common import AddCommand, emit, open_service, to_int, user_of
from graphmem.cli.filters import add_filter_flags, metadata_filter, sources
from graphmem.domain.visibility import Viewer

SORTS = ("newest", "oldest", "most_accessed", "decay")
STATUSES = ("active", "archived", "superseded", "quarantined")


def cmd_list(args: argparse.Namespace) -> None:
    from graphmem.domain.requests import ListRequest

    statuses: list[str] = args.status or []
    request = ListRequest(
        limit=args.limit,
        cursor=args.cursor,
        sort=args.sort,
        memory_type=args.type,
        status=(statuses[0] if len(statuses) == 1 else statuses) or None,
        source=sources(args),
        session_id=args.session,
        agent_id=args.agent,
        run_id=args.run,
        min_confidence=args.min_confidence,
        metadata=metadata_filter(args),
        created_after=args.created_after,
        created_before=args.created_before,
        valid_at=args.valid_at,
    )
    with open_service(args) as svc:
        # the CLI is the store's operator: --status quarantined lists the review queue too
        page = svc.list_memories(user_of(args), request, viewer=Viewer.OPERATOR)
    lines = [
        f"{m.id}  {m.created_at.date()}  [{m.memory_type.value}]"
        + ("" if m.status.value == "active" else f" ({m.status.value})")
        + f"  {m.content}"
        for m in page.memories
    ]
    if not lines:
        lines.append("no memories" if args.cursor is None else "no more memories")
    if page.next_cursor is not None:
        lines.append(f"next: {next_command(args.argv, page.next_cursor)}")
    emit(args, page.to_dict(), "\n".join(lines))


def next_command(argv: list[str], cursor: str) -> str:
    """This very command line with --cursor set to the next page's: the filters and the sort
    must be the same for the cursor to continue the same listing."""
    kept: list[str] = []
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word == "--cursor":
            skip = True
        elif not word.startswith("--cursor="):
            kept.append(word)
    return shlex.join(["graphmem", *kept, "--cursor", cursor])


def register(add: AddCommand) -> None:
    sp = add(
        "list",
        cmd_list,
        "a user's memories a page at a time, newest first: filter by type, status, source,"
        " scope, metadata and time",
    )
    sp.add_argument(
        "--limit", type=to_int("limit"), default=20, help="memories per page, 1-100 (default 20)"
    )
    sp.add_argument("--cursor", help="the page after the one that printed it (next: ...)")
    sp.add_argument(
        "--sort",
        default="newest",
        help=f"one of {', '.join(SORTS)} (decay: the weakest first; default newest)",
    )
    sp.add_argument("--type", help="only this memory type: fact, preference, event, task")
    sp.add_argument(
        "--status",
        action="append",
        help=f"only memories in this status: {', '.join(STATUSES)} (repeat for several;"
        " default active)",
    )
    sp.add_argument("--session", help="only this session's memories")
    add_filter_flags(sp)
    sp.add_argument(
        "--created-after", metavar="TIME", help="only memories created after (ISO-8601)"
    )
    sp.add_argument(
        "--created-before", metavar="TIME", help="only memories created before (ISO-8601)"
    )
    sp.add_argument(
        "--valid-at", metavar="TIME", help="only memories that were true at this time (ISO-8601)"
    )
