"""Images on the command line: `graphmem add --image PATH` (or `--image-url URL`; a PDF is one
image memory a page, or `--page N`'s) stores one (graphmem.cli.memory hands it here),
`graphmem image MEMORY_ID` saves it back to a file."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphmem.cli.common import AddCommand, emit, open_service, user_of
from graphmem.domain.model import Memory
from graphmem.errors import InvalidInputError

if TYPE_CHECKING:
    from graphmem.service.facade import MemoryService


def check_image_args(args: argparse.Namespace) -> None:
    """`add` takes either the memory's text, `--image PATH` or `--image-url URL` (with an
    optional --caption)."""
    image = args.image is not None or args.image_url is not None
    if args.image is not None and args.image_url is not None:
        raise InvalidInputError("image_url", "give --image or --image-url, not both")
    if image and args.content is not None:
        raise InvalidInputError("content", "with --image, give the words as --caption")
    if not image and args.content is None:
        raise InvalidInputError("content", "give the memory's text (or --image PATH)")
    if not image and args.caption is not None:
        raise InvalidInputError("caption", "only with --image or --image-url")
    if not image and args.page is not None:
        raise InvalidInputError("page", "only with --image or --image-url (a PDF)")


def add_image(svc: MemoryService, args: argparse.Namespace, fields: dict[str, Any]) -> list[Memory]:
    """`add --image PATH | --image-url URL [--caption TEXT] [--page N]`: the caption is the
    memory's own words; the text read in the image follows it. A URL is fetched by this
    process, under the images settings' URL rules. A PDF is one image memory a page (or the
    page --page names), in page order."""
    given = {k: v for k, v in fields.items() if v}
    return svc.write_image_pages(
        user_of(args),
        args.image,
        args.caption,
        args.type,
        url=args.image_url,
        page=args.page,
        **given,
    )


def image_line(m: Memory) -> str:
    """For a search hit of an image: its format, size and how to save it; '' otherwise."""
    if m.kind.value != "image":
        return ""
    md = m.metadata
    page = md.get("image_pdf_page")
    of_pdf = f", page {page} of a PDF" if page else ""
    return (
        f"\n      image {md.get('image_format', '?')} {md.get('image_width')}x"
        f"{md.get('image_height')}{of_pdf}  (graphmem image {m.id} -o FILE)"
    )


def cmd_image(args: argparse.Namespace) -> None:
    with open_service(args) as svc:
        data, mime = svc.image(user_of(args), args.memory_id, thumbnail=args.thumbnail)
    target = Path(args.output or ".").expanduser()
    if target.is_dir():
        suffix = "thumb.png" if args.thumbnail else mime.split("/", 1)[1]
        target = target / f"{args.memory_id}.{suffix}"
    try:
        target.write_bytes(data)
    except OSError as e:
        why = f"could not write {str(target)!r}: {e.strerror}"
        raise InvalidInputError("output", why) from None
    emit(args, {"path": str(target), "mime": mime, "bytes": len(data)}, str(target))


def register(add: AddCommand) -> None:
    sp = add("image", cmd_image, "save an image memory's image (or thumbnail) to a file")
    sp.add_argument("memory_id")
    sp.add_argument("-o", "--output", help="a file, or a folder (default: here, named by its id)")
    sp.add_argument("--thumbnail", action="store_true", help="the small PNG instead")
