"""The review commands: quarantine (what the firewall held back) and audit (a user's audit
trail summarised into anomalies)."""

from __future__ import annotations

import argparse
from typing import Any

from graphmem.cli.common import AddCommand, emit, memory_line, open_service, to_int, user_of
from graphmem.domain.actor import CLI
from graphmem.domain.visibility import Viewer
from graphmem.errors import InvalidInputError


def cmd_quarantine(args: argparse.Namespace) -> None:
    user = user_of(args)
    with open_service(args) as svc:
        if args.action == "list":
            items = svc.held_for_review(user, args.limit)
            emit(
                args,
                {"quarantined": [h.to_dict() for h in items], "count": len(items)},
                "\n".join(
                    f"{memory_line(h.memory)}\n    held for review: {h.reason}" for h in items
                )
                or "nothing is quarantined",
            )
            return
        if not args.memory_id:
            raise InvalidInputError("memory_id", f"give the ids to {args.action}")
        done = svc.review(user, args.memory_id, approve=args.action == "approve", reviewer=CLI)
    verb = "approved" if args.action == "approve" else "rejected and deleted"
    emit(
        args,
        {verb.split()[0]: done, "count": len(done)},
        "\n".join(f"{verb} {i}" for i in done) or "no quarantined memory matched",
    )


def cmd_audit(args: argparse.Namespace) -> None:
    from graphmem.guard.audit_report import anomalies

    user = user_of(args)
    with open_service(args) as svc:
        audit: list[dict[str, Any]] = svc.records.audit_rows(user, args.limit)
        contents = [m.content for m in svc.list(user, viewer=Viewer.OPERATOR)]
    rows = []
    for r in audit:  # one row per memory, so bursts and flags count memories, not batches
        details = r.get("details") or {}
        ids = r.get("memory_ids") or [None]
        flagged = details.get("flagged") or {}
        for mid in ids:
            rows.append(
                {
                    "user_id": user,
                    "action": r["action"],
                    "created_at": r["created_at"],
                    "details": flagged.get(mid, details),
                }
            )
    found = [vars(a) for a in anomalies(rows)]
    total = len(contents)
    dup = 1 - len(set(contents)) / total if total else 0.0
    actions: dict[str, int] = {}
    for r in audit:
        actions[r["action"]] = actions.get(r["action"], 0) + 1
    report = {
        "user_id": user,
        "audit_rows": len(audit),
        "actions": actions,
        "memories": total,
        "duplicate_ratio": round(dup, 4),
        "anomalies": found,
    }
    lines = [f"{k}: {v}" for k, v in report.items() if k != "anomalies"]
    lines += [f"ANOMALY {a['kind']}: {a['detail']}" for a in found] or ["no anomalies"]
    emit(args, report, "\n".join(lines))


def register(add: AddCommand) -> None:
    sp = add(
        "quarantine",
        cmd_quarantine,
        "review memories the firewall held back: list, approve or reject",
    )
    sp.add_argument("action", choices=["list", "approve", "reject"])
    sp.add_argument("memory_id", nargs="*")
    sp.add_argument("--limit", type=to_int("limit"), default=100)

    sp = add(
        "audit",
        cmd_audit,
        "a user's audit trail summarised: write bursts, duplicates, suspicious writes",
    )
    sp.add_argument("--limit", type=to_int("limit"), default=10_000, help="audit rows to read")
