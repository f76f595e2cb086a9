"""The commands on single memories: add, search, get, history, update, forget, stats."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from graphmem.cli import listing
from graphmem.cli.common import (
    AddCommand,
    emit,
    err,
    memory_line,
    open_service,
    to_int,
    user_of,
)
from graphmem.cli.documents import document_line, kind_weights
from graphmem.cli.filters import add_filter_flags, metadata_filter, sources
from graphmem.cli.images import add_image, check_image_args, image_line
from graphmem.domain.model import Memory, MemoryType, check_metadata
from graphmem.domain.visibility import Viewer
from graphmem.errors import InvalidInputError, NotFoundError

MAX_STDIN_CHARS = 1 << 20
"""`add -` reads at most this much of stdin; the content limit then applies as usual."""


def cmd_add(args: argparse.Namespace) -> None:
    fields: dict[str, Any] = {
        "source": args.source,
        "session_id": args.session,
        "metadata": args.metadata,
        "created_at": args.created_at,
        "valid_from": args.valid_from,
        "valid_to": args.valid_to,
        "agent_id": args.agent,
        "run_id": args.run,
    }
    from graphmem.domain.requests import WriteItem

    check_image_args(args)
    content = args.content if args.content != "-" else sys.stdin.read(MAX_STDIN_CHARS + 1)
    with open_service(args) as svc:
        if args.image is not None or args.image_url is not None:
            written = add_image(svc, args, fields)
        else:
            item = WriteItem(
                content=content, memory_type=args.type, **{k: v for k, v in fields.items() if v}
            )
            written = svc.write_many(user_of(args), [item])
        held = [m.id for m in written if m.status.value == "quarantined"]
        why = svc.hold_reasons(user_of(args), held) if held else {}
    m = written[0]
    if len(written) > 1:  # a PDF written whole: one image memory a page, one id a line
        pages = [
            {"id": w.id, "page": w.metadata.get("image_pdf_page"), "status": w.status.value}
            | ({"held_for_review": why[w.id]} if w.id in why else {})
            for w in written
        ]
        emit(args, {"id": m.id, "pages": pages}, "\n".join(w.id for w in written))
        if not args.json:
            for p in pages:
                if "held_for_review" in p:
                    print(f"page {p['page']} held for review: {p['held_for_review']}", file=err())
        return
    if m.id not in why:
        emit(args, {"id": m.id}, m.id)
        return
    # Stored (exit 0) but not recalled until an operator approves it: say so and why, on
    # stderr, so `id=$(graphmem add ...)` still reads just the id.
    emit(args, {"id": m.id, "status": "quarantined", "held_for_review": why[m.id]}, m.id)
    if not args.json:
        print(f"held for review: {why[m.id]}", file=err())


def cmd_search(args: argparse.Namespace) -> None:
    from graphmem.domain.requests import SearchRequest

    with open_service(args) as svc:
        request = SearchRequest(
            query=args.query,
            top_k=args.top_k,
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
            source=sources(args),
            min_confidence=args.min_confidence,
            metadata=metadata_filter(args),
            agent_id=args.agent,
            run_id=args.run,
            kinds=args.kinds,
            kind_weights=kind_weights(args.kind_weights),
        )
        res = svc.search_request(user_of(args), request)
    lines = [
        f"{i}. {h.score:.3f}  {h.memory.id}  [{h.memory.memory_type.value}]  {h.memory.content}"
        f"{validity(h.memory)}{document_line(h.memory)}{image_line(h.memory)}\n"
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
    emit(args, res.to_dict(), "\n".join(lines) or "no matching memories")


def validity(m: Memory) -> str:
    """' (valid 2023-01-10 → 2024-03-01)' for a closed memory, '' for a current one."""
    if m.valid_to is None:
        return ""
    return f"  (valid {m.valid_since.date()} → {m.valid_to.date()})"


def cmd_history(args: argparse.Namespace) -> None:
    with open_service(args) as svc:
        versions = svc.history(user_of(args), args.memory_id, viewer=Viewer.OPERATOR)
    lines = [
        f"{m.valid_since.isoformat(timespec='seconds')} → "
        f"{m.valid_to.isoformat(timespec='seconds') if m.valid_to else 'now':25}  "
        f"{m.id}  [{m.status.value}]  {m.content}"
        for m in versions
    ]
    emit(
        args,
        {"memory_id": args.memory_id, "versions": [m.to_dict() for m in versions]},
        "\n".join(lines),
    )


def cmd_get(args: argparse.Namespace) -> None:
    """One id: the memory (not found is exit 1, as always). Several: those found, in the
    order asked, and the ids that were not; exit 1 only when none was found."""
    ids = list(dict.fromkeys(args.memory_id))
    with open_service(args) as svc:
        if len(ids) == 1:
            m = svc.get(user_of(args), ids[0], viewer=Viewer.OPERATOR)
            emit(args, m.to_dict(), json.dumps(m.to_dict(), ensure_ascii=False, indent=2))
            return
        found = svc.records.get(user_of(args), ids)
    if not found:
        raise NotFoundError(", ".join(ids))
    memories = [found[i].to_dict() for i in ids if i in found]
    missing = [i for i in ids if i not in found]
    text = "\n".join(json.dumps(m, ensure_ascii=False, indent=2) for m in memories)
    if missing:
        text += f"\nnot found: {', '.join(missing)}"
    emit(args, {"memories": memories, "missing": missing}, text)


def cmd_update(args: argparse.Namespace) -> None:
    with open_service(args) as svc:
        m = svc.update(
            user_of(args),
            args.memory_id,
            args.content,
            memory_type=args.type,
            metadata=check_metadata(args.metadata) if args.metadata else None,
        )
    emit(args, {"id": m.id, "updated": True}, f"updated {m.id}")


def cmd_forget(args: argparse.Namespace) -> None:
    if bool(args.memory_id) == bool(args.query):
        raise InvalidInputError(
            "memory_id", "give either memory ids or --query, not both or neither"
        )
    with open_service(args) as svc:
        if args.memory_id:
            deleted = svc.forget(user_of(args), args.memory_id)
            data = {"deleted": deleted, "count": len(deleted)}
            text = "\n".join(f"deleted {i}" for i in deleted) or "nothing deleted"
        else:
            ms = svc.forget_by_query(
                user_of(args),
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
            text = "\n".join(f"{verb} {memory_line(m)}" for m in ms) or "nothing matched"
    emit(args, data, text)


def cmd_stats(args: argparse.Namespace) -> None:
    with open_service(args) as svc:
        st = svc.stats(user_of(args))
    text = "\n".join(f"{k}: {v}" for k, v in st.items() if k != "stores")
    emit(args, st, text)


def register(add: AddCommand) -> None:
    types = [t.value for t in MemoryType]

    sp = add("add", cmd_add, "store a memory ('-' reads it from stdin), or an image (--image)")
    sp.add_argument("content", nargs="?")
    sp.add_argument(
        "--image",
        help="store this image file (PNG, JPEG, WebP, GIF, or a PDF: one image memory a page,"
        " each id on a line); its text is read by OCR",
    )
    sp.add_argument(
        "--image-url", help="fetch the image from this http(s) URL instead (docs/images.md)"
    )
    sp.add_argument("--caption", help="with --image: what it is and why it matters")
    sp.add_argument("--page", type=int, help="with a PDF: store only this page (1 = the first)")
    sp.add_argument("--type", default="fact", help=f"one of {', '.join(types)} (default fact)")
    sp.add_argument("--source", help="user | agent | document | system (default user)")
    sp.add_argument("--session", help="session id")
    sp.add_argument("--metadata", help="a JSON object")
    sp.add_argument("--created-at", help="ISO-8601 time the memory is from (default now)")
    sp.add_argument("--valid-from", help="ISO-8601 time it became true (default --created-at)")
    sp.add_argument("--valid-to", help="ISO-8601 time it stopped being true (default: open)")
    sp.add_argument("--agent", help="the agent the memory belongs to (default: none, the user's)")
    sp.add_argument("--run", help="the run (one task or conversation of an agent) it belongs to")

    sp = add(
        "search",
        cmd_search,
        "hybrid recall over the memory graph: vector + keyword +"
        " recency + frequency, expanded over related memories",
    )
    sp.add_argument("query")
    sp.add_argument("-k", "--top-k", type=to_int("top_k"), default=5)
    sp.add_argument("--type", help=f"only this memory type: {', '.join(types)}")
    sp.add_argument("--time-range", help="only memories from the last 24h, 7d, 30d, ...")
    sp.add_argument("--session", help="only this session")
    sp.add_argument("--weights", help="e.g. vector=0.7,keyword=0.3 or a JSON object")
    sp.add_argument("--profile", help="a named weight profile: default, support, knowledge, ...")
    sp.add_argument("--include-archived", action="store_true")
    sp.add_argument(
        "--expand-hops",
        type=to_int("expand_hops"),
        help="graph expansion hops (default 2; 0 disables)",
    )
    sp.add_argument("--relation-types", help="expand only over these, e.g. causal,temporal")
    sp.add_argument("--as-of", help="what was true then (ISO-8601 date or time), history included")
    sp.add_argument(
        "--include-history", action="store_true", help="superseded memories too (default: current)"
    )
    sp.add_argument("--kinds", help="memory, document, image or both (default both: every kind)")
    sp.add_argument(
        "--kind-weights", help="a score factor per kind, e.g. document=0.8 or a JSON object"
    )
    add_filter_flags(sp)

    sp = add("get", cmd_get, "show memories by id (one or several)")
    sp.add_argument("memory_id", nargs="+")

    listing.register(add)

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
    sp.add_argument("--limit", type=to_int("limit"), default=10)
    sp.add_argument("--dry-run", action="store_true", help="list what would be deleted")

    add("stats", cmd_stats, "counts, latency and store status for a user")
