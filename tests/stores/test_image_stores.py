"""The image store port (graphmem.images.port) against each adapter: a directory (the data
directory's `images/` or any other path) and an S3-compatible bucket on the real test server
(gofakes3, started by scripts/services.sh; these skip, saying so, when it is not running).

The same contract for both: put once by sha256, bytes and thumbnail read back, the OCR text
kept beside them, tenants under keyed-hash names that never name the user, and remove and
purge_user leaving nothing of the user, checked by listing what is really there (the files on
disk, the objects in the bucket), not by asking the store.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PIL import Image

from graphmem.images import FileImageStore, ImageStore, OcrResult, decode, open_image_store
from graphmem.images.s3 import S3ImageStore
from tests.helpers.imaging import render
from tests.helpers.s3 import bucket_names, new_prefix, s3_prefix, s3_settings

LIMITS = {"max_bytes": 1 << 24, "max_pixels": 10**8}
A = decode(render(["Error 502 Bad Gateway"], size=(900, 200)), **LIMITS)
B = decode(render(["Room 4B at noon"], size=(600, 300), fmt="JPEG"), **LIMITS)
READ = OcrResult("Error 502 Bad Gateway", "read")

Listing = Callable[[], list[str]]
"""Every name the store holds, read from the disk or the bucket, not from the store."""


@pytest.fixture(params=["directory", pytest.param("s3", marks=pytest.mark.services)])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def store(kind: str, tmp_path: Path) -> Iterator[tuple[ImageStore, Listing]]:
    if kind == "directory":
        files = FileImageStore(tmp_path / "shared-volume" / "images")

        def on_disk() -> list[str]:
            root = files.root
            return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())

        yield files, on_disk
        return
    with s3_prefix() as settings:
        s3 = open_image_store(settings, tmp_path / "data")
        assert isinstance(s3, S3ImageStore)
        yield s3, lambda: [n.split("/", 1)[1] for n in bucket_names(settings)]


def test_the_same_image_put_twice_is_stored_once(store: tuple[ImageStore, Listing]) -> None:
    images, listing = store
    assert images.put("ann", A, READ, 128) is True
    first = listing()
    assert images.put("ann", A, OcrResult("", "failed"), 128) is False
    assert listing() == first
    mine = [n for n in first if A.sha256 in n]
    assert sorted(n.split(".", 1)[1] for n in mine) == ["json", "png", "thumb.png"]
    assert images.shas("ann") == {A.sha256} and images.count_user("ann") == 3
    assert images.cached_ocr("ann", A.sha256) == READ  # a second write reads no image again


def test_bytes_and_thumbnail_read_back(store: tuple[ImageStore, Listing]) -> None:
    images, _ = store
    images.put("ann", B, None, 64)
    assert images.read("ann", B.sha256) == (B.data, "image/jpeg")
    thumb, mime = images.read("ann", B.sha256, thumbnail=True)
    assert mime == "image/png"
    with Image.open(io.BytesIO(thumb)) as small:
        assert small.format == "PNG" and max(small.size) == 64 and small.size == (64, 32)
    # restored from an export: no OCR here, so a later write reads the image itself
    assert images.cached_ocr("ann", B.sha256) is None
    with pytest.raises(FileNotFoundError):
        images.read("ann", A.sha256)
    with pytest.raises(ValueError):
        images.read("ann", "../../etc/passwd")


def test_tenants_are_apart_and_no_name_says_whose(store: tuple[ImageStore, Listing]) -> None:
    images, listing = store
    images.put("alice@example.com", A, READ, 128)
    images.put("bob@example.com", A, READ, 128)
    images.put("bob@example.com", B, None, 128)
    names = listing()
    assert len([n for n in names if A.sha256 in n]) == 6  # one copy per tenant
    assert not any("alice" in n or "bob" in n for n in names)
    tenants = {n.split("/", 1)[0] for n in names if "/" in n}
    assert len(tenants) == 2 and all(len(t) == 40 for t in tenants)
    with pytest.raises(FileNotFoundError):
        images.read("alice@example.com", B.sha256)  # bob's image is not hers
    assert images.shas("alice@example.com") == {A.sha256}


def test_remove_and_purge_user_leave_no_object_of_the_user(
    store: tuple[ImageStore, Listing],
) -> None:
    images, listing = store
    for img in (A, B):
        images.put("carol", img, READ, 128)
    images.put("dave", A, READ, 128)
    assert images.remove("carol", A.sha256) == 3
    assert images.count_user("carol") == 3 and images.shas("carol") == {B.sha256}
    assert images.read("dave", A.sha256)[0] == A.data  # dave's copy is his own
    assert images.purge_user("carol") == 3
    assert images.count_user("carol") == 0 and images.purge_user("carol") == 0
    left = listing()
    assert [n for n in left if B.sha256 in n] == []
    assert sorted(n.split("/", 1)[1].split(".", 1)[1] for n in left if "/" in n) == [
        "json",
        "png",
        "thumb.png",
    ]  # dave's three, and the tenant key beside them
    assert "id-hash.key" in left


@pytest.mark.services
def test_every_replica_on_the_bucket_hashes_tenants_alike(tmp_path: Path) -> None:
    with s3_prefix() as settings:
        one = S3ImageStore.from_settings(settings)
        two = S3ImageStore.from_settings(settings)
        one.put("erin", A, READ, 128)
        assert two.read("erin", A.sha256) == (A.data, "image/png")
        assert two.put("erin", A, READ, 128) is False
        # the key object is made once: a second conditional put does not replace it
        key = f"{one.prefix}id-hash.key"
        assert two._put_new(key, b"00" * 32, "text/plain") is False
        assert S3ImageStore.from_settings(settings).shas("erin") == {A.sha256}


@pytest.mark.services
def test_a_prefix_keeps_stores_apart_in_one_bucket(tmp_path: Path) -> None:
    with s3_prefix() as first, s3_prefix() as second:
        S3ImageStore.from_settings(first).put("frank", A, READ, 128)
        assert S3ImageStore.from_settings(second).count_user("frank") == 0
        assert all(n.startswith(first.store.split("/", 3)[3] + "/") for n in bucket_names(first))


@pytest.mark.services
def test_the_server_refuses_another_access_key() -> None:
    from minio.error import S3Error

    settings = s3_settings(new_prefix(), s3_access_key="not-the-test-key")
    with pytest.raises(S3Error) as refused:
        S3ImageStore.from_settings(settings).put("gina", A, READ, 128)
    assert refused.value.code == "AccessDenied"
    secret = os.environ["GRAPHMEM_TEST_S3_SECRET_KEY"]
    shown = (repr(settings), str(settings.model_dump()), str(refused.value))
    assert not any(secret in s for s in shown)  # a SecretStr, never printed
