"""The port every image store implements, and what its adapters share.

An image store keeps, per tenant and content-addressed by sha256, three things for each image:

    <tenant>/<sha[:2]>/<sha256>.<png|jpeg|webp|gif>   the bytes exactly as written
                       <sha256>.thumb.png             a thumbnail
                       <sha256>.json                  format, size and the OCR text

`<tenant>` is a keyed hash of the user id (graphmem.stores.id_hash), so no name says whose
images these are. Addressing is per tenant: one user writing the same image twice stores it once
(and reads it once), while two users never share an object, so erasing one of them removes
everything of theirs without asking whether anyone else still needs it. The bytes are written
last, so a present original means a complete set.

Adapters: graphmem.images.store.FileImageStore (a directory: `<data_dir>/images` by default, or
any path, e.g. a volume the replicas share) and graphmem.images.s3.S3ImageStore (an
S3-compatible bucket). `open_image_store` (graphmem.images.store) picks one from the settings.
"""

from __future__ import annotations

import io
import json
import re
from typing import Protocol, runtime_checkable

from PIL import Image

from graphmem.images.decode import MIME, DecodedImage
from graphmem.images.ocr import OcrResult

SHA = re.compile(r"^[0-9a-f]{64}$")
THUMB_MIME = "image/png"
THUMB_SUFFIX = ".thumb.png"
SIDECAR_SUFFIX = ".json"
RETRY_OCR = (None, "unavailable", "failed", "off")
"""Sidecar OCR statuses a later write of the same image reads again instead of trusting."""


@runtime_checkable
class ImageStore(Protocol):
    """Where the bytes, thumbnail and OCR text of every tenant's images live."""

    def put(self, user_id: str, img: DecodedImage, ocr: OcrResult | None, thumb_side: int) -> bool:
        """Store the bytes, a thumbnail and the OCR text, unless already there; True if new.
        `ocr` None: the text was not read here (an image restored from an export, whose text
        is in its memory, screened): the sidecar says so, and a later write of the same image
        reads it instead of trusting an empty cache."""
        ...

    def cached_ocr(self, user_id: str, sha: str) -> OcrResult | None:
        """The OCR result stored with this image, if it is stored (a repeated write)."""
        ...

    def read(self, user_id: str, sha: str, *, thumbnail: bool = False) -> tuple[bytes, str]:
        """The image's bytes (or its thumbnail's) and MIME type; FileNotFoundError if gone,
        ValueError if `sha` is no sha256."""
        ...

    def shas(self, user_id: str) -> set[str]:
        """The images stored for a tenant, by sha256."""
        ...

    def remove(self, user_id: str, sha: str) -> int:
        """Delete an image's bytes, thumbnail and OCR text; the number of objects removed."""
        ...

    def purge_user(self, user_id: str) -> int:
        """Delete every image object of a tenant (erasure); the number removed."""
        ...

    def count_user(self, user_id: str) -> int:
        """Image objects left for a tenant: 0 after erasure."""
        ...


def check_sha(sha: str) -> str:
    if not isinstance(sha, str) or not SHA.match(sha):
        raise ValueError("not a sha256")
    return sha


def thumbnail(picture: Image.Image, side: int) -> bytes:
    """A PNG no larger than side x side, aspect kept."""
    small = picture.copy()
    small.thumbnail((side, side), Image.Resampling.LANCZOS)
    buf = io.BytesIO()
    small.save(buf, format="PNG", optimize=True)
    return buf.getvalue()


def sidecar(img: DecodedImage, ocr: OcrResult | None) -> bytes:
    """The `.json` kept beside the bytes: what was measured and the text OCR read."""
    data = {
        "format": img.format,
        "width": img.width,
        "height": img.height,
        "ocr_status": ocr.status if ocr else None,
        "ocr_text": ocr.text if ocr else "",
    }
    return json.dumps(data, ensure_ascii=False).encode()


def ocr_of(raw: bytes) -> OcrResult | None:
    """The OCR result a sidecar holds, or None when it is unreadable or worth reading again."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("ocr_status") in RETRY_OCR:
        return None
    return OcrResult(str(data.get("ocr_text", "")), str(data["ocr_status"]))


def suffixes(img: DecodedImage) -> tuple[str, ...]:
    """The three names of an image, in the order they are written: the original last."""
    return (THUMB_SUFFIX, SIDECAR_SUFFIX, f".{img.format}")


def original_suffixes() -> list[tuple[str, str]]:
    """(suffix, MIME type) of every format an original may have."""
    return [(f".{ext}", mime) for ext, mime in MIME.items()]


__all__ = [
    "SHA",
    "THUMB_MIME",
    "ImageStore",
    "check_sha",
    "ocr_of",
    "original_suffixes",
    "sidecar",
    "suffixes",
    "thumbnail",
]
