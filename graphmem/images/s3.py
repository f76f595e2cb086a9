"""The image store in an S3-compatible bucket (AWS S3, MinIO, Ceph RGW, ...): graphmem[s3].

    s3://BUCKET/PREFIX/<tenant>/<sha[:2]>/<sha256>.<ext>      the bytes exactly as written
                                          <sha256>.thumb.png  a thumbnail
                                          <sha256>.json       format, size and the OCR text
    s3://BUCKET/PREFIX/id-hash.key                            the key of the tenant hash

The same layout and rules as the file store (graphmem.images.port): per-tenant keyed-hash
prefixes, so no object name says whose image it is; put once by sha256; the original written
last. Every replica pointed at the bucket reads and writes the same objects, so the key of the
tenant hash lives in the bucket too (created once, with a conditional put where the server
supports it). Objects are private: nothing here sets an ACL or a policy, so the bucket's
(private by default) applies; restrict the credentials to the prefix.

Credentials come from the settings (images.s3_access_key, images.s3_secret_key); the secret is
a SecretStr and appears in no message, repr or log line.
"""

from __future__ import annotations

import io
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from graphmem.errors import InvalidInputError
from graphmem.images.decode import DecodedImage
from graphmem.images.ocr import OcrResult
from graphmem.images.port import (
    THUMB_MIME,
    THUMB_SUFFIX,
    check_sha,
    ocr_of,
    original_suffixes,
    sidecar,
    suffixes,
    thumbnail,
)
from graphmem.images.settings import ImageSettings
from graphmem.infra.extras import require_extra
from graphmem.stores.id_hash import KEY_FILE, IdHasher

if TYPE_CHECKING:
    from minio import Minio

WHAT = "the S3 image store"
_MISSING = ("NoSuchKey", "NoSuchObject", "ResourceNotFound")
_CONTENT_TYPE = {THUMB_SUFFIX: THUMB_MIME, ".json": "application/json"}
_CONTENT_TYPE.update(original_suffixes())


@dataclass(frozen=True)
class S3Location:
    """Where the images go: the endpoint, the bucket and the prefix inside it."""

    endpoint: str  # host[:port]
    secure: bool
    bucket: str
    prefix: str  # "" or "some/prefix/" (always ends with "/")

    @classmethod
    def parse(cls, store: str, endpoint: str) -> S3Location:
        """`s3://BUCKET[/PREFIX]` at `endpoint` (a URL; empty: AWS S3)."""
        bucket, _, prefix = store.strip()[len("s3://") :].partition("/")
        prefix = "/".join(p for p in prefix.split("/") if p)
        url = urlsplit(endpoint.strip() or "https://s3.amazonaws.com")
        if url.scheme not in ("http", "https") or not url.hostname:
            raise InvalidInputError("images.s3_endpoint", "must be an http(s) URL")
        if url.username or url.password or url.path.strip("/") or url.query:
            raise InvalidInputError(
                "images.s3_endpoint",
                "must be scheme://host[:port] only (credentials go in images.s3_access_key"
                " and images.s3_secret_key, the bucket in images.store)",
            )
        return cls(url.netloc, url.scheme == "https", bucket, f"{prefix}/" if prefix else "")


class S3ImageStore:
    """The image objects of every tenant in one bucket, under one prefix."""

    def __init__(self, client: Minio, location: S3Location) -> None:
        self.client = client
        self.location = location
        self.bucket = location.bucket
        self.prefix = location.prefix
        self._hasher: IdHasher | None = None

    @classmethod
    def from_settings(cls, s: ImageSettings) -> S3ImageStore:
        """The store `images.store` (`s3://...`) names, with the s3_* settings' client."""
        require_extra("minio", "s3", WHAT)
        import certifi
        import urllib3
        from minio import Minio

        location = S3Location.parse(s.store, s.s3_endpoint)
        secret = s.s3_secret_key.get_secret_value() if s.s3_secret_key else ""
        if not s.s3_access_key or not secret:
            raise InvalidInputError(
                "images.s3_access_key",
                "the S3 image store needs images.s3_access_key and images.s3_secret_key",
            )
        timeout = urllib3.Timeout(
            connect=min(10.0, s.s3_timeout_seconds), read=s.s3_timeout_seconds
        )
        http = urllib3.PoolManager(
            timeout=timeout,
            maxsize=10,
            cert_reqs="CERT_REQUIRED",
            ca_certs=str(s.s3_ca_file or certifi.where()),
            retries=urllib3.Retry(
                total=3, backoff_factor=0.2, status_forcelist=[500, 502, 503, 504]
            ),
        )
        client = Minio(
            location.endpoint,
            access_key=s.s3_access_key,
            secret_key=secret,
            secure=location.secure,
            region=s.s3_region or None,
            http_client=http,
        )
        return cls(client, location)

    def __repr__(self) -> str:
        scheme = "https" if self.location.secure else "http"
        return (
            f"S3ImageStore(s3://{self.bucket}/{self.prefix} at {scheme}://{self.location.endpoint})"
        )

    # ------------------------------------------------------------------ names
    def _tenant(self, user_id: str) -> str:
        if self._hasher is None:
            self._hasher = IdHasher(self._id_key())
        return f"{self.prefix}{self._hasher(user_id).split(':', 1)[1]}/"

    def _base(self, user_id: str, sha: str) -> str:
        check_sha(sha)
        return f"{self._tenant(user_id)}{sha[:2]}/{sha}"

    def _id_key(self) -> bytes:
        """The tenant hash's key, kept in the bucket so every replica hashes alike: made on
        first use with a conditional put (If-None-Match), so two replicas starting at once
        agree on the first one written; then read back, whoever wrote it."""
        name = f"{self.prefix}{KEY_FILE}"
        found = self._get(name)
        if found is None:
            fresh = (secrets.token_hex(32) + "\n").encode("ascii")
            self._put_new(name, fresh, "text/plain")
            found = self._get(name)
            if found is None:
                raise OSError(f"{WHAT}: could not keep the key object {name!r}")
        return bytes.fromhex(found.decode("ascii").strip())

    # ------------------------------------------------------------------ write
    def put(self, user_id: str, img: DecodedImage, ocr: OcrResult | None, thumb_side: int) -> bool:
        base = self._base(user_id, img.sha256)
        if self._exists(f"{base}.{img.format}"):
            return False
        thumb, side, original = suffixes(img)
        self._put(base + thumb, thumbnail(img.picture, thumb_side))
        self._put(base + side, sidecar(img, ocr))
        self._put(base + original, img.data)  # last: its presence means the set is complete
        return True

    # ------------------------------------------------------------------ read
    def cached_ocr(self, user_id: str, sha: str) -> OcrResult | None:
        base = self._base(user_id, sha)
        names = self._names(f"{base}.")
        if not any(base + suffix in names for suffix, _ in original_suffixes()):
            return None
        raw = self._get(f"{base}.json")
        return None if raw is None else ocr_of(raw)

    def read(self, user_id: str, sha: str, *, thumbnail: bool = False) -> tuple[bytes, str]:
        base = self._base(user_id, sha)
        if thumbnail:
            data = self._get(base + THUMB_SUFFIX)
            if data is None:
                raise FileNotFoundError(sha)
            return data, THUMB_MIME
        names = self._names(f"{base}.")
        for suffix, mime in original_suffixes():
            if base + suffix in names and (data := self._get(base + suffix)) is not None:
                return data, mime
        raise FileNotFoundError(sha)

    def objects(self, user_id: str) -> list[str]:
        """The names of every object stored for a tenant."""
        return sorted(self._names(self._tenant(user_id)))

    def shas(self, user_id: str) -> set[str]:
        return {name.rsplit("/", 1)[1].split(".", 1)[0] for name in self.objects(user_id)}

    # ------------------------------------------------------------------ erase
    def remove(self, user_id: str, sha: str) -> int:
        base = self._base(user_id, sha)
        return self._delete(sorted(self._names(f"{base}.")))

    def purge_user(self, user_id: str) -> int:
        return self._delete(self.objects(user_id))

    def count_user(self, user_id: str) -> int:
        return len(self.objects(user_id))

    # ------------------------------------------------------------------ S3 calls
    def _names(self, prefix: str) -> set[str]:
        listed = self.client.list_objects(self.bucket, prefix=prefix, recursive=True)
        return {str(o.object_name) for o in listed if o.object_name}

    def _exists(self, name: str) -> bool:
        from minio.error import S3Error

        try:
            self.client.stat_object(self.bucket, name)
        except S3Error as e:
            if e.code in _MISSING:
                return False
            raise
        return True

    def _get(self, name: str) -> bytes | None:
        from minio.error import S3Error

        try:
            response = self.client.get_object(self.bucket, name)
        except S3Error as e:
            if e.code in _MISSING:
                return None
            raise
        try:
            return bytes(response.read())
        finally:
            response.close()
            response.release_conn()

    def _put(self, name: str, data: bytes) -> None:
        suffix = name[name.index(".", name.rindex("/")) :]
        content_type = _CONTENT_TYPE.get(suffix, "application/octet-stream")
        self.client.put_object(self.bucket, name, io.BytesIO(data), len(data), content_type)

    def _put_new(self, name: str, data: bytes, content_type: str) -> bool:
        """Write `name` unless it exists (If-None-Match: *); False when it already did. A
        server that ignores the condition overwrites, and the caller reads back what won."""
        from minio.error import S3Error

        headers: dict[str, Any] = {"If-None-Match": "*", "Content-Type": content_type}
        try:  # minio's put_object would turn the header into user metadata
            self.client._put_object(self.bucket, name, data, headers=headers)
        except S3Error as e:
            if e.code in ("PreconditionFailed", "ConditionalRequestConflict"):
                return False
            raise
        return True

    def _delete(self, names: list[str]) -> int:
        """Delete these objects (1000 per request, as S3 allows); how many were deleted."""
        from minio.deleteobjects import DeleteObject

        for start in range(0, len(names), 1000):
            batch = [DeleteObject(n) for n in names[start : start + 1000]]
            failed = list(self.client.remove_objects(self.bucket, batch))
            if failed:
                first = failed[0]
                raise OSError(
                    f"{WHAT}: could not delete {len(failed)} object(s), e.g. {first.name!r}:"
                    f" {first.code} {first.message}"
                )
        return len(names)


__all__ = ["S3ImageStore", "S3Location"]
