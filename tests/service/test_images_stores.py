"""Images kept outside the data directory (images.store): in an S3-compatible bucket on the real
test server (gofakes3, scripts/services.sh), and in a directory of their own (a volume replicas
share). Through MemoryService with the real Tesseract: a written image is served back, the same
image is stored once, forget and forget-user remove its bytes, thumbnail and OCR text (checked
by reading the bucket's objects and the directory's files, not by asking the store), and an
export carries the bytes. The S3 tests skip, saying so, when the server is not running.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.embedding import Embedder
from graphmem.errors import NotFoundError
from graphmem.images import ImageSettings
from graphmem.images.s3 import S3ImageStore
from graphmem.importers import graphmem_v1 as v1
from graphmem.usecases.erase import files_holding
from graphmem.usecases.export_v1 import export_v1
from tests.helpers.imaging import needs_ocr, render
from tests.helpers.s3 import bucket_names, s3_prefix

PLAN = render(["Quarterly plan for Northwind Traders", "Budget review moved to Friday"])
KEPT = render(["Kept team photo caption"], size=(700, 200))


@pytest.fixture
def bucket() -> Iterator[ImageSettings]:
    with s3_prefix() as settings:
        yield settings


@pytest.fixture
def on_s3(tmp_path: Path, embedder: Embedder, bucket: ImageSettings) -> Iterator[MemoryService]:
    needs_ocr()
    svc = MemoryService(Settings(data_dir=tmp_path / "data", images=bucket), embedder=embedder)
    yield svc
    svc.close()


def objects_holding(settings: ImageSettings, text: str) -> list[str]:
    """The objects under the settings' prefix whose bytes hold `text`: the bucket scanned."""
    store = S3ImageStore.from_settings(settings)
    found = []
    for name in bucket_names(settings):
        response = store.client.get_object(store.bucket, name)
        try:
            if text.encode() in response.read():
                found.append(name)
        finally:
            response.close()
            response.release_conn()
    return found


@pytest.mark.services
def test_an_image_memory_lives_in_the_bucket_and_forget_user_leaves_no_object(
    on_s3: MemoryService, bucket: ImageSettings
) -> None:
    m = on_s3.write_image("gone", PLAN, caption="planning slide")
    again = on_s3.write_image("gone", PLAN, caption="the same slide, sent again")
    kept = on_s3.write_image("kept", KEPT)
    assert again.metadata["image_sha256"] == m.metadata["image_sha256"]
    assert "Northwind" in again.content  # the OCR text kept in the bucket, not read again
    assert on_s3.image("gone", m.id) == (PLAN, "image/png")
    assert on_s3.image("gone", m.id, thumbnail=True)[0][:4] == b"\x89PNG"
    with pytest.raises(NotFoundError):
        on_s3.image("kept", m.id)
    local = Path(on_s3.settings.data_dir) / "images"
    assert not local.exists() or not any(p.is_file() for p in local.rglob("*"))
    names = bucket_names(bucket)
    assert len(names) == 1 + 3 + 3  # the tenant key, then bytes, thumbnail, OCR text of each
    ocr_line = m.content.splitlines()[1]
    assert any(n.endswith(".json") for n in objects_holding(bucket, ocr_line))

    receipt = on_s3.forget_user("gone")
    assert receipt.verified, receipt.to_dict()
    assert receipt.deleted["images"] == 3 and receipt.residue["images"] == 0
    assert objects_holding(bucket, ocr_line) == []
    left = bucket_names(bucket)
    kept_sha = kept.metadata["image_sha256"]
    assert sorted(n for n in left if not n.endswith("/id-hash.key")) == sorted(
        n for n in names if kept_sha in n
    )
    assert on_s3.image("kept", kept.id) == (KEPT, "image/png")


@pytest.mark.services
def test_forget_removes_the_objects_with_the_last_memory_showing_them(
    on_s3: MemoryService, bucket: ImageSettings
) -> None:
    a = on_s3.write_image("ann", PLAN, caption="first")
    b = on_s3.write_image("ann", PLAN, caption="second")
    sha = a.metadata["image_sha256"]
    on_s3.forget("ann", [a.id])
    assert len([n for n in bucket_names(bucket) if sha in n]) == 3  # b still shows it
    on_s3.forget("ann", [b.id])
    assert [n for n in bucket_names(bucket) if sha in n] == []


@pytest.mark.services
def test_an_export_carries_the_bytes_read_from_the_bucket(
    on_s3: MemoryService, tmp_path: Path
) -> None:
    on_s3.write_image("u", PLAN, caption="planning slide")
    manifest = export_v1(on_s3.context, "u", tmp_path / "x")
    ((name, entry),) = manifest["image_files"].items()
    assert (tmp_path / "x" / name).read_bytes() == PLAN
    assert v1.sha256_file(tmp_path / "x" / name) == entry["sha256"]


def test_a_directory_of_their_own_is_written_erased_and_scanned(
    tmp_path: Path, embedder: Embedder
) -> None:
    """images.store=PATH (a volume the replicas share): the files go there, not under the data
    directory, and the erasure's file scan reads that directory too."""
    needs_ocr()
    shared = tmp_path / "shared-volume" / "graphmem-images"
    svc = MemoryService(
        Settings(data_dir=tmp_path / "data", images=ImageSettings(store=str(shared))),
        embedder=embedder,
    )
    try:
        m = svc.write_image("gone", PLAN, caption="planning slide")
        kept = svc.write_image("kept", KEPT)
        files = sorted(p for p in shared.rglob("*") if p.is_file() and p.name != "id-hash.key")
        assert len(files) == 6
        assert not (tmp_path / "data" / "images").exists()
        ocr_line = m.content.splitlines()[1]
        assert any(p.endswith(".json") for p in files_holding(shared, {ocr_line}))
        receipt = svc.forget_user("gone")
        assert receipt.verified, receipt.to_dict()
        assert receipt.deleted["images"] == 3 and receipt.files_holding == []
        assert files_holding(shared, {ocr_line}) == []
        assert len([p for p in files if p.exists()]) == 3
        assert svc.image("kept", kept.id) == (KEPT, "image/png")
        # what the scan would report: a stray file naming a user, left in that directory
        svc.write_image("gone-again-user", KEPT)
        (shared / "stray.txt").write_text("a note about gone-again-user")
        receipt = svc.forget_user("gone-again-user")
        assert receipt.files_holding == [str(shared / "stray.txt")] and not receipt.verified
    finally:
        svc.close()
