"""The `graphmem` command: every MemoryService operation from a shell.

Every command takes --user and --json. Bad input exits with status 2 and one line naming the
field; a store that cannot be reached exits with status 3.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

from graphmem import logs
from graphmem.actor import CLI, current_actor
from graphmem.errors import GraphmemError, StoreUnavailableError, ValidationError
from graphmem.model import Memory, MemoryType, utcnow
from graphmem.settings import Settings
from graphmem.visibility import Viewer

IMPORT_BATCH = 256
MAX_IMPORT_LINE_BYTES = 1 << 20
"""One JSONL line of `import`: far above a memory's own limits (content, 16 KiB metadata)."""
MAX_IMPORT_BYTES = 128 << 20
"""One `import` run: every line is validated before any is written, so all of it is held in
memory at once; larger exports are split and imported in parts."""
MAX_STDIN_CHARS = 1 << 20
"""`add -` reads at most this much of stdin; the content limit then applies as usual."""


def _service(args: argparse.Namespace) -> Any:
    from graphmem.service import MemoryService

    overrides: dict[str, Any] = {}
    if args.data_dir:
        overrides["data_dir"] = args.data_dir
    return MemoryService(Settings(**overrides))


def _user(args: argparse.Namespace) -> str:
    return args.user or os.environ.get("GRAPHMEM_USER_ID") or Settings().user_id


def _emit(args: argparse.Namespace, data: Any, text: str) -> None:
    if args.json:
        print(json.dumps(data, ensure_ascii=False, default=str))
    else:
        print(text)


def _line(m: Memory) -> str:
    return f"{m.id}  [{m.memory_type.value}]  {m.content}"


# ---------------------------------------------------------------------------- commands
def cmd_add(args: argparse.Namespace) -> None:
    fields: dict[str, Any] = {
        "source": args.source,
        "session_id": args.session,
        "metadata": args.metadata,
        "created_at": args.created_at,
        "valid_from": args.valid_from,
        "valid_to": args.valid_to,
    }
    content = args.content if args.content != "-" else sys.stdin.read(MAX_STDIN_CHARS + 1)
    with _service(args) as svc:
        m = svc.write(_user(args), content, args.type, **{k: v for k, v in fields.items() if v})
    _emit(args, {"id": m.id}, m.id)


def cmd_search(args: argparse.Namespace) -> None:
    with _service(args) as svc:
        res = svc.search(
            _user(args),
            args.query,
            args.top_k,
            memory_type=args.type,
            time_range=args.time_range,
            session_id=args.session,
            weights=args.weights,
            profile=args.profile,
            include_archived=args.include_archived,
            expand_hops=args.expand_hops,
            relation_types=args.relation_types,
            as_of=args.as_of,
            include_history=args.include_history,
        )
    lines = [
        f"{i}. {h.score:.3f}  {h.memory.id}  [{h.memory.memory_type.value}]  {h.memory.content}"
        f"{_validity(h.memory)}\n"
        "      "
        + "  ".join(f"{k}={v:.3f}" for k, v in h.scores.items())
        + "".join(
            f"\n      via {s.source} -[{s.relation_type}]-> {s.target}"
            for s in getattr(h, "path", [])
        )
        for i, h in enumerate(res.hits, 1)
    ]
    if res.degraded:
        lines.append(f"(degraded: {', '.join(res.degraded)} unavailable)")
    _emit(args, res.to_dict(), "\n".join(lines) or "no matching memories")


def _validity(m: Memory) -> str:
    """' (valid 2023-01-10 → 2024-03-01)' for a closed memory, '' for a current one."""
    if m.valid_to is None:
        return ""
    return f"  (valid {m.valid_since.date()} → {m.valid_to.date()})"


def cmd_history(args: argparse.Namespace) -> None:
    with _service(args) as svc:
        versions = svc.history(_user(args), args.memory_id, viewer=Viewer.OPERATOR)
    lines = [
        f"{m.valid_since.isoformat(timespec='seconds')} → "
        f"{m.valid_to.isoformat(timespec='seconds') if m.valid_to else 'now':25}  "
        f"{m.id}  [{m.status.value}]  {m.content}"
        for m in versions
    ]
    _emit(
        args,
        {"memory_id": args.memory_id, "versions": [m.to_dict() for m in versions]},
        "\n".join(lines),
    )


def cmd_get(args: argparse.Namespace) -> None:
    with _service(args) as svc:
        m = svc.get(_user(args), args.memory_id, viewer=Viewer.OPERATOR)
    _emit(args, m.to_dict(), json.dumps(m.to_dict(), ensure_ascii=False, indent=2))


def cmd_update(args: argparse.Namespace) -> None:
    with _service(args) as svc:
        m = svc.update(
            _user(args),
            args.memory_id,
            args.content,
            memory_type=args.type,
            metadata=json.loads(args.metadata) if args.metadata else None,
        )
    _emit(args, {"id": m.id, "updated": True}, f"updated {m.id}")


def cmd_forget(args: argparse.Namespace) -> None:
    if bool(args.memory_id) == bool(args.query):
        raise ValidationError("memory_id", "give either memory ids or --query, not both or neither")
    with _service(args) as svc:
        if args.memory_id:
            deleted = svc.forget(_user(args), args.memory_id)
            data = {"deleted": deleted, "count": len(deleted)}
            text = "\n".join(f"deleted {i}" for i in deleted) or "nothing deleted"
        else:
            ms = svc.forget_by_query(
                _user(args),
                args.query,
                threshold=args.threshold,
                limit=args.limit,
                dry_run=args.dry_run,
            )
            verb = "would delete" if args.dry_run else "deleted"
            data = {
                "deleted": [] if args.dry_run else [m.id for m in ms],
                "matched": [{"id": m.id, "content": m.content} for m in ms],
                "count": len(ms),
                "dry_run": args.dry_run,
            }
            text = "\n".join(f"{verb} {_line(m)}" for m in ms) or "nothing matched"
    _emit(args, data, text)


def cmd_forget_user(args: argparse.Namespace) -> int:
    user = _user(args)
    if args.confirm != user:
        raise ValidationError("confirm", f"erasing a user is final: repeat it as --confirm {user}")
    with _service(args) as svc:
        receipt = svc.forget_user(user, requested_by=args.requested_by)
    data = receipt.to_dict()
    lines = [
        f"erased user {user}: "
        + (
            "verified, zero residue"
            if receipt.verified
            else f"NOT yet complete (pending: {receipt.pending})"
        )
    ]
    lines += [f"  deleted {k}: {v}" for k, v in data["deleted"].items()]
    lines += [f"  residue {k}: {v}" for k, v in data["residue"].items() if v]
    _emit(args, data, "\n".join(lines))
    return 0 if receipt.verified else 4


def cmd_doctor(args: argparse.Namespace) -> int:
    from graphmem.doctor import diagnose

    overrides: dict[str, Any] = {"data_dir": args.data_dir} if args.data_dir else {}
    report = diagnose(Settings(**overrides))
    lines = []
    for name, st in report["stores"].items():
        detail = st.get("version") or st.get("error") or ""
        lines.append(
            f"{'ok ' if st.get('ok') else 'DOWN'}  {name:8} {st.get('backend', '')}"
            f"  {detail}".rstrip()
        )
    drift = report.get("drift")
    if drift:
        lines.append("drift: " + ", ".join(f"{k}={v}" for k, v in drift.items() if k != "ok"))
    emb = report.get("embeddings")
    if emb and emb["checked"]:
        lines.append(
            f"embeddings: median cosine {emb['median_cosine']} to the stored vectors of"
            f" {emb['checked']} memories" + (f" - {emb['hint']}" if emb.get("hint") else "")
        )
    outbox = report.get("outbox")
    if outbox and outbox.get("hint"):
        lines.append(f"outbox: {outbox['hint']}")
    lines.append("healthy" if report["ok"] else "NOT healthy")
    _emit(args, report, "\n".join(lines))
    return 0 if report["ok"] else 1


def cmd_quarantine(args: argparse.Namespace) -> None:
    user = _user(args)
    with _service(args) as svc:
        if args.action == "list":
            items = svc.quarantined(user, args.limit)
            _emit(
                args,
                {"quarantined": [m.to_dict() for m in items], "count": len(items)},
                "\n".join(_line(m) for m in items) or "nothing is quarantined",
            )
            return
        if not args.memory_id:
            raise ValidationError("memory_id", f"give the ids to {args.action}")
        done = svc.review(user, args.memory_id, approve=args.action == "approve", reviewer=CLI)
    verb = "approved" if args.action == "approve" else "rejected and deleted"
    _emit(
        args,
        {verb.split()[0]: done, "count": len(done)},
        "\n".join(f"{verb} {i}" for i in done) or "no quarantined memory matched",
    )


def cmd_audit(args: argparse.Namespace) -> None:
    from graphmem.guard.audit_report import anomalies

    user = _user(args)
    with _service(args) as svc:
        audit = svc.records.audit_rows(user, args.limit)
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
    _emit(args, report, "\n".join(lines))


def cmd_stats(args: argparse.Namespace) -> None:
    with _service(args) as svc:
        st = svc.stats(_user(args))
    text = "\n".join(f"{k}: {v}" for k, v in st.items() if k != "stores")
    _emit(args, st, text)


def _read_jsonl(stream: BinaryIO) -> Iterator[tuple[int, dict[str, Any]]]:
    """Objects of a JSONL stream, read line by line with a bounded buffer: a line over
    MAX_IMPORT_LINE_BYTES or a stream over MAX_IMPORT_BYTES is refused as soon as it is seen,
    so `graphmem import /dev/zero` fails at once instead of filling memory."""
    total = 0
    n = 0
    while True:
        raw = stream.readline(MAX_IMPORT_LINE_BYTES + 1)
        if not raw:
            return
        n += 1
        total += len(raw)
        if len(raw) > MAX_IMPORT_LINE_BYTES:
            raise ValidationError(
                f"line {n}", f"is longer than the limit of {MAX_IMPORT_LINE_BYTES} bytes per line"
            )
        if total > MAX_IMPORT_BYTES:
            raise ValidationError(
                f"line {n}",
                f"the file is larger than the import limit of {MAX_IMPORT_BYTES} bytes;"
                " split it (e.g. with split -l) and import the parts",
            )
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ValidationError(f"line {n}", "is not UTF-8") from None
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as e:
            raise ValidationError(f"line {n}", f"is not JSON: {e.msg}") from None
        except (ValueError, RecursionError):  # an integer of thousands of digits, deep nesting
            raise ValidationError(f"line {n}", "is not JSON graphmem can import") from None
        if not isinstance(obj, dict):
            raise ValidationError(f"line {n}", "must be a JSON object")
        yield n, obj


def cmd_import(args: argparse.Namespace) -> None:
    from tqdm import tqdm

    stream = sys.stdin.buffer if args.file == "-" else open(args.file, "rb")  # noqa: SIM115
    with stream:
        rows = list(_read_jsonl(stream))
    keys = (
        "content",
        "memory_type",
        "metadata",
        "source",
        "session_id",
        "created_at",
        "summary",
        "confidence",
    )
    written = 0
    with _service(args) as svc:
        # Validate everything before writing anything: an import never stops half-way on bad data.
        for n, obj in rows:
            try:
                svc._prepare(_user(args), obj, utcnow())
            except ValidationError as e:
                raise ValidationError(f"line {n}: {e.field}", e.message) from None
        bar = tqdm(
            total=len(rows),
            unit="mem",
            disable=args.quiet or not sys.stderr.isatty(),
            file=sys.stderr,
            desc="import",
        )
        for i in range(0, len(rows), IMPORT_BATCH):
            batch = [{k: o[k] for k in keys if k in o} for _, o in rows[i : i + IMPORT_BATCH]]
            written += len(svc.write_many(_user(args), batch))
            bar.update(len(batch))
        bar.close()
    _emit(args, {"imported": written}, f"imported {written} memories")


def cmd_export(args: argparse.Namespace) -> None:
    out = sys.stdout if args.file == "-" else open(args.file, "w", encoding="utf-8")  # noqa: SIM115
    n = 0
    with _service(args) as svc:
        for m in svc.list(_user(args), include_archived=True, viewer=Viewer.OPERATOR):
            out.write(json.dumps(m.to_dict(), ensure_ascii=False) + "\n")
            n += 1
    if out is not sys.stdout:
        out.close()
        _emit(args, {"exported": n, "file": args.file}, f"exported {n} memories to {args.file}")


def cmd_serve(args: argparse.Namespace) -> None:
    from graphmem.mcp_server import serve_command

    serve_command(args)


# ---------------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--user", help="user id (default: $GRAPHMEM_USER_ID or 'default')")
    common.add_argument("--json", action="store_true", help="machine-readable JSON output")
    common.add_argument("--data-dir", help="data directory (default: $GRAPHMEM_DATA_DIR or ./data)")

    p = argparse.ArgumentParser(prog="graphmem", description="Long-term memory for LLM agents.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    types = [t.value for t in MemoryType]

    def add(
        name: str, fn: Callable[[argparse.Namespace], int | None], help_: str
    ) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, parents=[common], help=help_, description=help_)
        sp.set_defaults(fn=fn)
        return sp

    sp = add("add", cmd_add, "store a memory ('-' reads it from stdin)")
    sp.add_argument("content")
    sp.add_argument("--type", default="fact", help=f"one of {', '.join(types)} (default fact)")
    sp.add_argument("--source", help="user | agent | document | system (default user)")
    sp.add_argument("--session", help="session id")
    sp.add_argument("--metadata", help="a JSON object")
    sp.add_argument("--created-at", help="ISO-8601 time the memory is from (default now)")
    sp.add_argument("--valid-from", help="ISO-8601 time it became true (default --created-at)")
    sp.add_argument("--valid-to", help="ISO-8601 time it stopped being true (default: open)")

    sp = add(
        "search",
        cmd_search,
        "hybrid recall over the memory graph: vector + keyword +"
        " recency + frequency, expanded over related memories",
    )
    sp.add_argument("query")
    sp.add_argument("-k", "--top-k", type=_int("top_k"), default=5)
    sp.add_argument("--type", help=f"only this memory type: {', '.join(types)}")
    sp.add_argument("--time-range", help="only memories from the last 24h, 7d, 30d, ...")
    sp.add_argument("--session", help="only this session")
    sp.add_argument("--weights", help="e.g. vector=0.7,keyword=0.3 or a JSON object")
    sp.add_argument("--profile", help="a named weight profile: default, support, knowledge, ...")
    sp.add_argument("--include-archived", action="store_true")
    sp.add_argument(
        "--expand-hops",
        type=_int("expand_hops"),
        help="graph expansion hops (default 2; 0 disables)",
    )
    sp.add_argument("--relation-types", help="expand only over these, e.g. causal,temporal")
    sp.add_argument("--as-of", help="what was true then (ISO-8601 date or time), history included")
    sp.add_argument(
        "--include-history", action="store_true", help="superseded memories too (default: current)"
    )

    sp = add("get", cmd_get, "show one memory")
    sp.add_argument("memory_id")

    sp = add("history", cmd_history, "a memory's versions: what it superseded and what replaced it")
    sp.add_argument("memory_id")

    sp = add(
        "update",
        cmd_update,
        "change a memory's content (re-embeds it; the old one is kept as a superseded version)",
    )
    sp.add_argument("memory_id")
    sp.add_argument("content", nargs="?")
    sp.add_argument("--type", help="new memory type")
    sp.add_argument("--metadata", help="JSON object merged into the metadata")

    sp = add("forget", cmd_forget, "delete memories from every store, by id or by query")
    sp.add_argument("memory_id", nargs="*")
    sp.add_argument("--query", help="delete memories similar to this text")
    sp.add_argument("--threshold", type=float, help="cosine similarity needed (default 0.75)")
    sp.add_argument("--limit", type=_int("limit"), default=10)
    sp.add_argument("--dry-run", action="store_true", help="list what would be deleted")

    add("stats", cmd_stats, "counts, latency and store status for a user")

    sp = add(
        "quarantine",
        cmd_quarantine,
        "review memories the firewall held back: list, approve or reject",
    )
    sp.add_argument("action", choices=["list", "approve", "reject"])
    sp.add_argument("memory_id", nargs="*")
    sp.add_argument("--limit", type=_int("limit"), default=100)

    sp = add(
        "audit",
        cmd_audit,
        "a user's audit trail summarised: write bursts, duplicates, suspicious writes",
    )
    sp.add_argument("--limit", type=_int("limit"), default=10_000, help="audit rows to read")

    add(
        "doctor",
        cmd_doctor,
        "check every configured store: reachable, version, and projection drift",
    )

    sp = add(
        "forget-user",
        cmd_forget_user,
        "erase everything about a user from every store, with a verified receipt",
    )
    sp.add_argument("--confirm", required=True, help="the user id again, to confirm")
    sp.add_argument("--requested-by", default="cli", help="who asked (kept in the audit log)")

    sp = add("import", cmd_import, "write memories from JSONL (one object per line)")
    sp.add_argument("file", help="a .jsonl file, or - for stdin")
    sp.add_argument("-q", "--quiet", action="store_true", help="no progress bar")

    sp = add("export", cmd_export, "write a user's memories as JSONL")
    sp.add_argument("file", nargs="?", default="-", help="output file (default stdout)")

    from graphmem.graph_cli import add_graph_commands

    add_graph_commands(add, _int)

    from graphmem.lifecycle_cli import add_lifecycle_commands

    add_lifecycle_commands(add)

    sp = add("serve", cmd_serve, "run the MCP server: streamable HTTP on 127.0.0.1, or --stdio")
    sp.add_argument("--stdio", action="store_true", help="serve one local agent on stdin/stdout")
    sp.add_argument("--host", help="HTTP bind address (default $GRAPHMEM_HOST or 127.0.0.1)")
    sp.add_argument("--port", type=_int("port"), help="HTTP port (default $GRAPHMEM_PORT or 8765)")
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
    return p


def _int(field: str) -> Callable[[str], int]:
    def conv(value: str) -> int:
        try:
            return int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{field}: {value!r} is not an integer") from None

    return conv


def main(argv: list[str] | None = None) -> int:
    try:
        logs.configure()  # GRAPHMEM_LOG_LEVEL, GRAPHMEM_LOG_FORMAT=text|json
    except ValidationError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    args = build_parser().parse_args(argv)
    token = current_actor.set(CLI)  # whoever runs the command owns the data: an operator
    try:
        code = args.fn(args) or 0
    except ValidationError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except StoreUnavailableError as e:
        print(f"error: {e}", file=sys.stderr)
        return 3
    except GraphmemError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except (OSError, json.JSONDecodeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    finally:
        current_actor.reset(token)
    return code


if __name__ == "__main__":
    sys.exit(main())
