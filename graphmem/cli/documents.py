"""The document commands: ingest, documents, document-delete, library."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from graphmem.cli.common import (
    AddCommand,
    data_dir_of,
    emit,
    open_file,
    open_service,
    to_int,
    user_of,
)
from graphmem.errors import InvalidInputError

if TYPE_CHECKING:
    from graphmem.domain.model import Memory

LIBRARY_HELP = "a shared library's documents instead of the user's own (operator)"


def document_line(m: Memory) -> str:
    """Where a document chunk comes from, for a search hit: '' for a memory."""
    if m.kind.value != "document":
        return ""
    trail = " › ".join(m.metadata.get("doc_headings") or [])
    from graphmem.usecases.libraries import name_of  # not at import: --help loads no numpy

    lib = name_of(m.user_id)
    return (
        f"\n      from {m.metadata.get('doc_uri', '?')}"
        + (f" § {trail}" if trail else "")
        + (f"  (library {lib})" if lib else "")
    )


def kind_weights(spec: str | None) -> Any:
    """--kind-weights: 'document=0.8,memory=1' or JSON. Only the flag's syntax is read here; the
    value is checked by the rule every interface shares (graphmem.domain.validation), in the
    service."""
    if not spec:
        return None
    if spec.lstrip()[:1] in ("{", "["):
        try:
            return json.loads(spec)
        except ValueError as e:
            raise InvalidInputError("kind_weights", f"is not valid JSON: {e}") from None
    out: dict[str, Any] = {}
    for part in spec.split(","):
        key, sep, value = part.partition("=")
        if not sep:
            raise InvalidInputError("kind_weights", f"{part!r} is not kind=weight")
        out[key.strip()] = value.strip()
    return out


def cmd_ingest(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from graphmem.usecases.documents import checkpoint_path, expand
    from graphmem.usecases.libraries import tenant

    sources = [*args.source, *_listed(args.from_file)]
    if not sources:
        raise InvalidInputError("source", "name files, folders or URLs, or --from-file LIST")
    items = expand(sources)  # a wrong source fails here, before the store opens
    bar = tqdm(
        total=len(items),
        unit="doc",
        desc="ingest",
        file=sys.stderr,
        disable=args.quiet or not sys.stderr.isatty(),
    )
    with open_service(args) as svc:
        owner = tenant(args.library) if args.library else user_of(args)
        ckpt = (
            None
            if args.dry_run or args.no_resume
            else checkpoint_path(data_dir_of(args), owner, sources)
        )
        try:
            report = svc.ingest(
                user_of(args),
                sources,
                library=args.library,
                dry_run=args.dry_run,
                progress=lambda _i, _n, _o: bar.update(1),
                checkpoint=ckpt,
                target_chars=args.chunk_chars,
                tool="cli:ingest",
            )
        finally:
            bar.close()
    lines = [
        f"{o.action}: {o.source}"
        + (f" ({o.chunks} chunks)" if o.chunks else "")
        + (f", {o.quarantined} quarantined" if o.quarantined else "")
        + (f", {o.rejected} refused by the firewall" if o.rejected else "")
        + (f" = {o.duplicate_of}" if o.duplicate_of else "")
        + (f": {o.error.removeprefix(o.source + ': ')}" if o.error else "")
        + (f", {o.ocr_pages} scanned page(s) read by OCR" if o.ocr_pages else "")
        + (f"; {o.note}" if o.note else "")
        for o in report.outcomes
    ]
    verb = "would store" if report.dry_run else "stored"
    lines.append(
        f"{len(report.outcomes)} documents in {report.seconds:.1f}s: {verb}"
        f" {report.documents or sum(o.action.startswith('would') for o in report.outcomes)}"
        f" ({report.chunks} chunks), {report.skipped} skipped, {report.failed} failed"
    )
    emit(args, report.to_dict(), "\n".join(lines))
    return 1 if report.failed else 0  # the others are stored; the output says which failed


def _listed(path: str | None) -> list[str]:
    """--from-file: one source (path or URL) per line; blank lines and # comments skipped."""
    if path is None:
        return []
    if path == "-":
        text = sys.stdin.read()
    else:
        with open_file(path, "r", encoding="utf-8") as f:
            text = f.read()
    return [s for s in (ln.strip() for ln in text.splitlines()) if s and not s.startswith("#")]


def cmd_documents(args: argparse.Namespace) -> None:
    with open_service(args) as svc:
        docs = svc.documents(user_of(args), library=args.library)
    lines = [
        f"{d['source']}  {d['title']!r}  {d['chunks']} chunks"
        + (f", {d['quarantined']} quarantined" if d["quarantined"] else "")
        for d in docs
    ]
    emit(args, {"documents": docs, "count": len(docs)}, "\n".join(lines) or "no documents")


def cmd_document_delete(args: argparse.Namespace) -> None:
    with open_service(args) as svc:
        deleted = svc.delete_document(user_of(args), args.source, library=args.library)
    emit(
        args,
        {"deleted": deleted, "count": len(deleted)},
        f"deleted {len(deleted)} chunks of {args.source} from every store",
    )


def cmd_library(args: argparse.Namespace) -> None:
    needs_user = args.action in ("grant", "revoke")
    if needs_user and not args.reader:
        raise InvalidInputError("user", f"library {args.action} NAME USER: name the user")
    with open_service(args) as svc:
        data: dict[str, Any]
        if args.action == "grant":
            new = svc.grant_library(args.name, args.reader)
            data = {"library": args.name, "user": args.reader, "granted": new}
            text = f"{args.reader} may read {args.name}" + ("" if new else " (already could)")
        elif args.action == "revoke":
            gone = svc.revoke_library(args.name, args.reader)
            data = {"library": args.name, "user": args.reader, "revoked": gone}
            text = f"{args.reader} no longer reads {args.name}" if gone else "there was no grant"
        elif args.action == "readers":
            readers = svc.library_readers(args.name)
            data = {"library": args.name, "readers": readers}
            text = "\n".join(readers) or "no readers"
        else:
            receipt = svc.delete_library(args.name, requested_by="cli:library delete")
            data = receipt.to_dict()
            text = f"library {args.name} erased: verified={receipt.verified}"
    emit(args, data, text)


def register(add: AddCommand) -> None:
    sp = add(
        "ingest",
        cmd_ingest,
        "ingest documents (.md .txt .html .pdf files, folders of them, http(s) URLs) into the"
        " user's memory or a shared library; unchanged documents are skipped, changed ones"
        " replace their chunks, an interrupted batch resumes when run again",
    )
    sp.add_argument("source", nargs="*", help="files, folders and URLs")
    sp.add_argument(
        "--from-file",
        metavar="LIST",
        help="also every source listed in LIST, one per line ('-': stdin)",
    )
    sp.add_argument("--library", help=LIBRARY_HELP)
    sp.add_argument("--dry-run", action="store_true", help="read and chunk, store nothing")
    sp.add_argument(
        "--no-resume", action="store_true", help="ignore and keep no checkpoint of this batch"
    )
    sp.add_argument(
        "--chunk-chars", type=to_int("chunk_chars"), help="target chunk size (default 700)"
    )
    sp.add_argument("-q", "--quiet", action="store_true", help="no progress bar")

    sp = add("documents", cmd_documents, "list the documents ingested (one line per source)")
    sp.add_argument("--library", help=LIBRARY_HELP)

    sp = add(
        "document-delete",
        cmd_document_delete,
        "delete a document (by the path or URL it was ingested from) from every store",
    )
    sp.add_argument("source")
    sp.add_argument("--library", help=LIBRARY_HELP)

    sp = add(
        "library",
        cmd_library,
        "shared document libraries: grant or revoke a user's read access, list readers,"
        " delete a library (its documents from every store)",
        user=None,
    )
    sp.add_argument("action", choices=("grant", "revoke", "readers", "delete"))
    sp.add_argument("name", help="the library")
    sp.add_argument("reader", nargs="?", help="the user (grant, revoke)")
