"""The image store on a file system, and the choice of store from the settings.

    <root>/<tenant>/<sha[:2]>/<sha256>.<ext>      the bytes exactly as written
                              <sha256>.thumb.png  a thumbnail
                              <sha256>.json       format, size and the OCR text
    <root>/id-hash.key                            the key of the tenant hash

`<root>` is `<data_dir>/images` unless `images.store` names another directory: a volume the
replicas share (NFS and the like) is the file system option for production. The layout and
its rules are graphmem.images.port's. Files are owner-only (0600, folders 0700) and written
atomically.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from graphmem.images.decode import DecodedImage
from graphmem.images.ocr import OcrResult
from graphmem.images.port import (
    THUMB_MIME,
    ImageStore,
    check_sha,
    ocr_of,
    original_suffixes,
    sidecar,
    thumbnail,
)
from graphmem.images.settings import ImageSettings
from graphmem.stores.id_hash import IdHasher
from graphmem.stores.private_files import FILE_MODE, private_dir


class FileImageStore:
    """The image files of every tenant under `root` (normally `<data_dir>/images`)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._hasher: IdHasher | None = None

    def __repr__(self) -> str:
        return f"FileImageStore({str(self.root)!r})"

    def _tenant(self, user_id: str) -> Path:
        if self._hasher is None:
            self._hasher = IdHasher.for_dir(self.root)
        return self.root / self._hasher(user_id).split(":", 1)[1]

    def _base(self, user_id: str, sha: str) -> Path:
        check_sha(sha)
        return self._tenant(user_id) / sha[:2] / sha

    # ------------------------------------------------------------------ write
    def put(self, user_id: str, img: DecodedImage, ocr: OcrResult | None, thumb_side: int) -> bool:
        base = self._base(user_id, img.sha256)
        original = _at(base, f".{img.format}")
        if original.exists():
            return False
        private_dir(base.parent)
        _write(_at(base, ".thumb.png"), thumbnail(img.picture, thumb_side))
        _write(_at(base, ".json"), sidecar(img, ocr))
        _write(original, img.data)  # last: its presence means the set is complete
        return True

    # ------------------------------------------------------------------ read
    def cached_ocr(self, user_id: str, sha: str) -> OcrResult | None:
        base = self._base(user_id, sha)
        if not any(_at(base, suffix).exists() for suffix, _ in original_suffixes()):
            return None
        try:
            return ocr_of(_at(base, ".json").read_bytes())
        except OSError:
            return None

    def read(self, user_id: str, sha: str, *, thumbnail: bool = False) -> tuple[bytes, str]:
        base = self._base(user_id, sha)
        if thumbnail:
            return _at(base, ".thumb.png").read_bytes(), THUMB_MIME
        for suffix, mime in original_suffixes():
            path = _at(base, suffix)
            if path.exists():
                return path.read_bytes(), mime
        raise FileNotFoundError(sha)

    def files(self, user_id: str) -> Iterator[Path]:
        """Every file stored for a tenant."""
        tenant = self._tenant(user_id)
        if tenant.exists():
            yield from (p for p in tenant.rglob("*") if p.is_file())

    def shas(self, user_id: str) -> set[str]:
        return {p.name.split(".", 1)[0] for p in self.files(user_id)}

    # ------------------------------------------------------------------ erase
    def remove(self, user_id: str, sha: str) -> int:
        base = self._base(user_id, sha)
        n = 0
        for path in base.parent.glob(f"{sha}.*"):
            path.unlink(missing_ok=True)
            n += 1
        if base.parent.exists() and not any(base.parent.iterdir()):
            base.parent.rmdir()
        return n

    def purge_user(self, user_id: str) -> int:
        n = sum(1 for _ in self.files(user_id))
        tenant = self._tenant(user_id)
        if tenant.exists():
            shutil.rmtree(tenant)
        return n

    def count_user(self, user_id: str) -> int:
        return sum(1 for _ in self.files(user_id))


def open_image_store(images: ImageSettings, data_dir: Path) -> ImageStore:
    """The store `images.store` names: `<data_dir>/images` (empty), a directory, or an
    S3-compatible bucket (`s3://BUCKET[/PREFIX]`, needs graphmem[s3])."""
    where = images.store.strip()
    if where.startswith("s3://"):
        from graphmem.images.s3 import S3ImageStore

        return S3ImageStore.from_settings(images)
    if not where:
        return FileImageStore(Path(data_dir) / "images")
    return FileImageStore(Path(where).expanduser())


def local_root(store: ImageStore, data_dir: Path) -> Path | None:
    """The store's directory when it lies outside the data directory (so an erasure's file
    scan reads it too); None for a store inside it or not on this file system."""
    if not isinstance(store, FileImageStore):
        return None
    root, data = store.root.resolve(), Path(data_dir).resolve()
    return None if root == data or data in root.parents else store.root


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


__all__ = ["THUMB_MIME", "FileImageStore", "ImageStore", "local_root", "open_image_store"]
