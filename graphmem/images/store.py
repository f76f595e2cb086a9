"""Where an image's bytes live: content-addressed files under the data directory.

    <data_dir>/images/<tenant>/<sha[:2]>/<sha256>.<ext>      the bytes exactly as written
                                         <sha256>.thumb.png  a thumbnail
                                         <sha256>.json       format, size and the OCR text

`<tenant>` is a keyed hash of the user id (graphmem.stores.id_hash), so no file name says whose
images these are. Addressing is per tenant: one user writing the same image twice stores it
once (and reads it once), while two users never share a file, so erasing one of them removes
every file of theirs without asking whether anyone else still needs it. The OCR text is kept
beside the bytes so a second write of the same image does not run OCR again; it goes when the
bytes go.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from PIL import Image

from graphmem.images.decode import MIME, DecodedImage
from graphmem.images.ocr import OcrResult
from graphmem.stores.id_hash import IdHasher
from graphmem.stores.private_files import FILE_MODE, private_dir

_SHA = re.compile(r"^[0-9a-f]{64}$")
THUMB_MIME = "image/png"


class ImageStore:
    """The image files of every tenant under `root` (normally `<data_dir>/images`)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._hasher: IdHasher | None = None

    def _tenant(self, user_id: str) -> Path:
        if self._hasher is None:
            self._hasher = IdHasher.for_dir(self.root)
        return self.root / self._hasher(user_id).split(":", 1)[1]

    def _base(self, user_id: str, sha: str) -> Path:
        if not _SHA.match(sha):
            raise ValueError("not a sha256")
        return self._tenant(user_id) / sha[:2] / sha

    # ------------------------------------------------------------------ write
    def put(self, user_id: str, img: DecodedImage, ocr: OcrResult | None, thumb_side: int) -> bool:
        """Store the bytes, a thumbnail and the OCR text, unless already there; True if new.
        `ocr` None: the text was not read here (an image restored from an export, whose text
        is in its memory, screened): the sidecar says so, and a later write of the same image
        reads it instead of trusting an empty cache."""
        base = self._base(user_id, img.sha256)
        original = _at(base, f".{img.format}")
        if original.exists():
            return False
        private_dir(base.parent)
        _write(_at(base, ".thumb.png"), thumbnail(img.picture, thumb_side))
        sidecar = {
            "format": img.format,
            "width": img.width,
            "height": img.height,
            "ocr_status": ocr.status if ocr else None,
            "ocr_text": ocr.text if ocr else "",
        }
        _write(_at(base, ".json"), json.dumps(sidecar, ensure_ascii=False).encode())
        _write(original, img.data)  # last: its presence means the set is complete
        return True

    # ------------------------------------------------------------------ read
    def cached_ocr(self, user_id: str, sha: str) -> OcrResult | None:
        """The OCR result stored with this image, if it is stored (a repeated write)."""
        base = self._base(user_id, sha)
        if not any(_at(base, f".{ext}").exists() for ext in MIME):
            return None
        try:
            data = json.loads(_at(base, ".json").read_text("utf-8"))
        except (OSError, ValueError):
            return None
        if data.get("ocr_status") in (None, "unavailable", "failed", "off"):
            return None  # worth trying again
        return OcrResult(str(data.get("ocr_text", "")), str(data["ocr_status"]))

    def read(self, user_id: str, sha: str, *, thumbnail: bool = False) -> tuple[bytes, str]:
        """The image's bytes (or its thumbnail's) and MIME type; FileNotFoundError if gone."""
        base = self._base(user_id, sha)
        if thumbnail:
            return _at(base, ".thumb.png").read_bytes(), THUMB_MIME
        for ext, mime in MIME.items():
            path = _at(base, f".{ext}")
            if path.exists():
                return path.read_bytes(), mime
        raise FileNotFoundError(sha)

    def files(self, user_id: str) -> Iterator[Path]:
        """Every file stored for a tenant."""
        tenant = self._tenant(user_id)
        if tenant.exists():
            yield from (p for p in tenant.rglob("*") if p.is_file())

    def shas(self, user_id: str) -> set[str]:
        """The images stored for a tenant, by sha256."""
        return {p.name.split(".", 1)[0] for p in self.files(user_id)}

    # ------------------------------------------------------------------ erase
    def remove(self, user_id: str, sha: str) -> int:
        """Delete an image's bytes, thumbnail and OCR text; the number of files removed."""
        base = self._base(user_id, sha)
        n = 0
        for path in base.parent.glob(f"{sha}.*"):
            path.unlink(missing_ok=True)
            n += 1
        if base.parent.exists() and not any(base.parent.iterdir()):
            base.parent.rmdir()
        return n

    def purge_user(self, user_id: str) -> int:
        """Delete every image file of a tenant (erasure); the number of files removed."""
        n = sum(1 for _ in self.files(user_id))
        tenant = self._tenant(user_id)
        if tenant.exists():
            shutil.rmtree(tenant)
        return n

    def count_user(self, user_id: str) -> int:
        """Image files left for a tenant: 0 after erasure."""
        return sum(1 for _ in self.files(user_id))


def thumbnail(picture: Image.Image, side: int) -> bytes:
    """A PNG no larger than side x side, aspect kept."""
    small = picture.copy()
    small.thumbnail((side, side), Image.Resampling.LANCZOS)
    buf = io.BytesIO()
    small.save(buf, format="PNG", optimize=True)
    return buf.getvalue()


def _at(base: Path, suffix: str) -> Path:
    """`<sha>` + suffix, beside `base` (with_suffix would take `.thumb.png` apart)."""
    return base.with_name(base.name + suffix)


def _write(path: Path, data: bytes) -> None:
    """Write atomically, owner-only from creation."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)  # mode 0600
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


__all__ = ["THUMB_MIME", "ImageStore", "thumbnail"]
