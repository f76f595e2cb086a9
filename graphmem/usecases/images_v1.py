"""Image memories in a graphmem-v1 export: their bytes written out beside the records, and
checked and stored back on import.

An image memory's record (caption and the text read in it, screened) goes in images.jsonl like
any record; its bytes go in `images/<sha256>.<ext>`, named by their own digest and listed with
it in the manifest, so an import can check them before it writes anything. What the store
derives from the bytes is not exported: the thumbnail is made again by the importing store
(with its own thumbnail size), and the OCR text kept beside the bytes stays behind, since it is
the text as read, before the firewall masked and vaulted it. The memory's content carries the
screened text instead.

With --redact an image's pixels cannot be masked, so an image whose text shows contact details
or personal data, or a secret, is exported without its bytes (docs/export-format.md).
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Any

from graphmem.domain.model import Memory, parse_datetime
from graphmem.errors import ImageError, InvalidInputError
from graphmem.guard.policy import REF_RE
from graphmem.guard.policy import redact as redact_text
from graphmem.images import MIME, decode
from graphmem.images.port import ImageStore
from graphmem.images.render import NOT_INSTALLED
from graphmem.importers import graphmem_v1 as v1
from graphmem.usecases.images import SHA_KEY, SKIPPED, store_of
from graphmem.usecases.ports import ImagePorts

SHA = re.compile(r"^[0-9a-f]{64}$")
MEASURED = frozenset(
    (
        SHA_KEY,
        "image_format",
        "image_width",
        "image_height",
        "image_frames",
        "image_taken_at",
        "image_ocr",
        "image_text_cut",
        "image_pdf_page",
        "image_pdf_pages",
        "image_pdf_sha256",
        "image_pdf_picture",
        "image_pdf_dpi",
        "image_pdf_note",
        "image_text_source",
    )
)
"""The metadata graphmem measured from an image's bytes (graphmem.images.decode). Not
personal data and not the caller's words: neither redacted on export nor screened on import,
but checked on import to be what graphmem itself writes (check_measured)."""
OCR_STATUSES = ("read", "empty", "off", "unavailable", "failed", SKIPPED)


# ------------------------------------------------------------------ export


def _shareable(store: ImageStore, user_id: str, sha: str, records: list[Memory]) -> bool:
    """Whether --redact may export this image's bytes: only when this store read its text and
    neither that text (as read, before any masking) nor the records showing the image hold
    anything --redact masks or a secret. An image whose text was never read here (OCR off or
    missing, or restored from an export) may show anything, so it is withheld."""
    ocr = store.cached_ocr(user_id, sha)
    if ocr is None:
        return False
    texts = [ocr.text, *(m.content for m in records)]
    return not any(REF_RE.search(t) or redact_text(t) != t for t in texts)


def export_images(
    ctx: ImagePorts, user_id: str, images: list[Memory], root: Path, *, redact: bool
) -> tuple[dict[str, dict[str, Any]], int]:
    """Write the bytes of every image these records show into `root/images/`; returns the
    manifest's `image_files` entries and how many images --redact withheld. An image whose
    bytes are gone from the store is left out: its record still says what it was. Image files
    of an earlier export into the same folder that this one does not list are removed."""
    store = store_of(ctx)
    by_sha: dict[str, list[Memory]] = {}
    for m in images:
        sha = m.metadata.get(SHA_KEY)
        if isinstance(sha, str) and SHA.match(sha):
            by_sha.setdefault(sha, []).append(m)
    folder = root / v1.IMAGE_DIR
    entries: dict[str, dict[str, Any]] = {}
    withheld = 0
    for sha, records in sorted(by_sha.items()):
        if redact and not _shareable(store, user_id, sha, records):
            withheld += 1
            continue
        try:
            data, mime = store.read(user_id, sha)
        except (FileNotFoundError, ValueError):
            continue
        if hashlib.sha256(data).hexdigest() != sha:
            continue  # a damaged file is not passed on as the image
        name = f"{v1.IMAGE_DIR}/{sha}.{mime.split('/', 1)[1]}"
        folder.mkdir(exist_ok=True)
        tmp = root / f".{sha}.tmp"
        tmp.write_bytes(data)
        os.replace(tmp, root / name)
        entries[name] = {"bytes": len(data), "sha256": sha}
    if folder.is_dir():
        for path in folder.iterdir():
            name = f"{v1.IMAGE_DIR}/{path.name}"
            if v1.IMAGE_FILE.match(name) and name not in entries:
                path.unlink()
    return entries, withheld


# ------------------------------------------------------------------ import


def check_measured(metadata: dict[str, Any]) -> None:
    """An imported image record's measured metadata is of the form graphmem writes, so it can
    be left out of the screen: a hand-edited export cannot smuggle words through it."""
    sha = metadata.get(SHA_KEY)
    if not isinstance(sha, str) or not SHA.match(sha):
        raise InvalidInputError(SHA_KEY, "must be the image's sha256 (64 hex digits)")
    if metadata.get("image_format") not in MIME:
        raise InvalidInputError("image_format", f"must be one of {', '.join(MIME)}")
    for key in (
        "image_width",
        "image_height",
        "image_frames",
        "image_pdf_page",
        "image_pdf_pages",
        "image_pdf_dpi",
    ):
        value = metadata.get(key)
        if key not in ("image_width", "image_height") and value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidInputError(key, "must be a whole number >= 1")
    if metadata.get("image_taken_at") is not None:
        parse_datetime(metadata["image_taken_at"], "image_taken_at")
    if metadata.get("image_ocr") not in (None, *OCR_STATUSES):
        raise InvalidInputError("image_ocr", f"must be one of {', '.join(OCR_STATUSES)}")
    pdf_sha = metadata.get("image_pdf_sha256")
    if pdf_sha is not None and not (isinstance(pdf_sha, str) and SHA.match(pdf_sha)):
        raise InvalidInputError("image_pdf_sha256", "must be the PDF's sha256 (64 hex digits)")
    if metadata.get("image_pdf_picture") not in (None, "scan", "page", "largest"):
        raise InvalidInputError("image_pdf_picture", "must be scan, page or largest")
    if metadata.get("image_pdf_note") not in (None, NOT_INSTALLED):
        raise InvalidInputError("image_pdf_note", "must be the note graphmem writes")
    if metadata.get("image_text_source") not in (None, "ocr", "text_layer"):
        raise InvalidInputError("image_text_source", "must be ocr or text_layer")
    if metadata.get("image_text_cut") not in (None, True):
        raise InvalidInputError("image_text_cut", "must be true when given")


def restore_image(
    ctx: ImagePorts, user_id: str, src: v1.Source, m: Memory, *, dry_run: bool
) -> str | None:
    """Check the bytes the export carries for image record `m` as a write checks an image
    (size, pixels, format), and store them with a new thumbnail, unless `dry_run`. Returns the
    sha256 when this call added the files (for the caller to remove if the record is not
    stored), else None. No bytes in the export (withheld by --redact, or gone at export): the
    record is restored alone, as it was exported. Raises InvalidInputError for bytes refused."""
    sha = str(m.metadata[SHA_KEY])
    path = src.image_path(sha)
    if path is None:
        return None
    s = ctx.settings.images
    try:
        with path.open("rb") as f:
            data = f.read(s.max_bytes + 1)
    except OSError as e:
        raise ImageError(f"could not read {path.name}: {e.strerror}") from None
    img = decode(data, max_bytes=s.max_bytes, max_pixels=s.max_pixels)
    if img.sha256 != sha:
        raise ImageError(f"{path.name} changed since the import checked it")
    measured = img.describe()
    for key in ("image_format", "image_width", "image_height"):
        if m.metadata.get(key) != measured[key]:
            raise InvalidInputError(key, "does not match the image's bytes")
    if dry_run:
        return None
    return sha if store_of(ctx).put(user_id, img, None, s.thumbnail_side) else None


__all__ = ["MEASURED", "check_measured", "export_images", "restore_image"]
