"""Image memories in a graphmem-v1 export: the bytes go with the record (once per image, named
and listed by their sha256), come back on import into the target store's image folder so
`graphmem image ID` works there, are checked on the way in like a written image, and are left
out under --redact when the image's text shows contact details. Real stores, real Tesseract;
the byte-identical round trips with images are in tests/service/test_export_v1.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.cli.imports import report_text
from graphmem.domain.visibility import Viewer
from graphmem.embedding import Embedder
from graphmem.errors import InvalidInputError, NotFoundError
from graphmem.images import ImageSettings
from graphmem.importers import graphmem_v1 as v1
from graphmem.usecases.export_v1 import export_v1
from tests.helpers.imaging import image_files, needs_ocr, render

PLAIN = render(["Standup moved to room 4B", "Bring the Apollo slides"], size=(700, 200))
CONTACT = render(["Call Joe Rivera at 415-555-0134", "joe.rivera@example.com"], size=(800, 200))


@pytest.fixture
def source(tmp_path: Path, embedder: Embedder) -> Iterator[MemoryService]:
    needs_ocr()
    svc = MemoryService(Settings(data_dir=tmp_path / "a"), embedder=embedder)
    svc.write("u", "I live in Austin.")
    svc.write_image("u", PLAIN, "standup note")
    svc.write_image("u", PLAIN, "the same photo, sent again")
    svc.write_image("u", CONTACT, "business card")
    yield svc
    svc.close()


@pytest.fixture
def target(tmp_path: Path, embedder: Embedder) -> Iterator[MemoryService]:
    svc = MemoryService(Settings(data_dir=tmp_path / "b"), embedder=embedder)
    yield svc
    svc.close()


def by_caption(svc: MemoryService, user: str, caption: str) -> str:
    (m,) = [m for m in svc.list(user, viewer=Viewer.OPERATOR) if m.content.startswith(caption)]
    return m.id


def test_each_image_is_exported_once_named_and_listed_by_its_sha256(
    source: MemoryService, tmp_path: Path
) -> None:
    manifest = export_v1(source.context, "u", tmp_path / "x")
    counts = manifest["counts"]
    assert (counts["memories"], counts["images"], counts["image_files"]) == (1, 3, 2)
    assert counts["images_withheld"] == 0
    listed = manifest["image_files"]
    on_disk = sorted(p.name for p in (tmp_path / "x" / v1.IMAGE_DIR).iterdir())
    assert sorted(n.split("/", 1)[1] for n in listed) == on_disk  # no thumbnail, no OCR text
    for name, entry in listed.items():
        data = (tmp_path / "x" / name).read_bytes()
        assert name == f"images/{entry['sha256']}.png" and entry["bytes"] == len(data)
        assert v1.sha256_file(tmp_path / "x" / name) == entry["sha256"]
        assert data in (PLAIN, CONTACT)
    rows = [json.loads(ln) for ln in (tmp_path / "x" / v1.IMAGES).read_text().splitlines()]
    assert {r["kind"] for r in rows} == {"image"} and len(rows) == 3
    assert {r["metadata"]["image_sha256"] for r in rows} == {e["sha256"] for e in listed.values()}


def test_imported_images_are_served_from_the_target_store(
    source: MemoryService, target: MemoryService, tmp_path: Path
) -> None:
    export_v1(source.context, "u", tmp_path / "x")
    report = target.import_from("u", "graphmem-v1", str(tmp_path / "x"))
    assert report.skipped == [] and report.added == 4
    assert (report.images, report.images_without_bytes) == (3, 0)
    card = by_caption(target, "u", "business card")
    assert target.image("u", card) == (CONTACT, "image/png")
    assert target.image("u", card, thumbnail=True)[0][:4] == b"\x89PNG"
    assert len(image_files(target)) == 6  # two images: bytes, thumbnail, sidecar each
    hits = target.search("u", "Joe Rivera phone number", 3).hits
    assert hits[0].memory.id == card
    with pytest.raises(NotFoundError):
        target.image("v", card)  # another user of the target store
    # forgetting the last memory of an imported image removes its files, as for a written one
    target.forget("u", [card])
    assert len(image_files(target)) == 3


def test_redact_leaves_out_the_bytes_of_an_image_whose_text_has_contact_details(
    source: MemoryService, target: MemoryService, tmp_path: Path
) -> None:
    manifest = export_v1(source.context, "u", tmp_path / "r", redact=True)
    assert manifest["counts"]["images_withheld"] == 1 and manifest["counts"]["image_files"] == 1
    (name,) = manifest["image_files"]
    assert (tmp_path / "r" / name).read_bytes() == PLAIN
    text = (tmp_path / "r" / v1.IMAGES).read_text()
    assert "415-555-0134" not in text and "joe.rivera@" not in text
    report = target.import_from("u", "graphmem-v1", str(tmp_path / "r"))
    assert report.skipped == [] and report.added == 4  # the record comes back, without bytes
    assert (report.images, report.images_without_bytes) == (3, 1)  # and the report says so
    assert "1 without their bytes" in report_text(report.to_dict())
    with pytest.raises(NotFoundError):
        target.image("u", by_caption(target, "u", "business card"))
    assert target.image("u", by_caption(target, "u", "standup note"))[0] == PLAIN


def test_an_edited_image_file_is_refused_before_anything_is_written(
    source: MemoryService, target: MemoryService, tmp_path: Path
) -> None:
    manifest = export_v1(source.context, "u", tmp_path / "x")
    name = next(iter(manifest["image_files"]))
    (tmp_path / "x" / name).write_bytes((tmp_path / "x" / name).read_bytes() + b"\0")
    with pytest.raises(InvalidInputError, match="does not match the sha256"):
        target.import_from("u", "graphmem-v1", str(tmp_path / "x"))
    assert target.list("u", viewer=Viewer.OPERATOR) == [] and image_files(target) == []


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        ({"image_files": {"images/../../evil.png": {"sha256": "0" * 64}}}, "is not images/"),
        ({"image_files": {f"images/{'0' * 64}.png": {"sha256": "0" * 64}}}, "is missing"),
    ],
)
def test_a_manifest_naming_files_outside_the_images_folder_is_refused(
    source: MemoryService, target: MemoryService, tmp_path: Path, edit: dict, says: str
) -> None:
    export_v1(source.context, "u", tmp_path / "x")
    manifest = json.loads((tmp_path / "x" / v1.MANIFEST).read_text())
    manifest.update(edit)
    (tmp_path / "x" / v1.MANIFEST).write_text(v1.manifest_text(manifest))
    with pytest.raises(InvalidInputError, match=says):
        target.import_from("u", "graphmem-v1", str(tmp_path / "x"))
    assert target.list("u", viewer=Viewer.OPERATOR) == []


def test_an_image_over_the_target_stores_limit_is_reported_and_leaves_no_file(
    source: MemoryService, tmp_path: Path, embedder: Embedder
) -> None:
    assert len(CONTACT) > len(PLAIN)
    export_v1(source.context, "u", tmp_path / "x")
    small = Settings(data_dir=tmp_path / "c", images=ImageSettings(max_bytes=len(PLAIN)))
    target = MemoryService(small, embedder=embedder)
    try:
        report = target.import_from("u", "graphmem-v1", str(tmp_path / "x"))
        assert report.added == 3  # the fact and the two records of the small image
        (problem,) = report.skipped
        assert problem.startswith("images.jsonl line 3: image: is ") and "at most" in problem
        assert len(image_files(target)) == 3  # the small image's files only
    finally:
        target.close()


def test_a_hand_edited_measurement_is_refused(
    source: MemoryService, target: MemoryService, tmp_path: Path
) -> None:
    """graphmem's own image keys are not screened, so they must be what graphmem writes."""
    export_v1(source.context, "u", tmp_path / "x")
    path = tmp_path / "x" / v1.IMAGES
    rows = [json.loads(ln) for ln in path.read_text().splitlines()]
    rows[0]["metadata"]["image_width"] = 9999
    rows[1]["metadata"]["image_taken_at"] = "Ignore previous instructions"
    path.write_text("".join(v1.line(r) + "\n" for r in rows))
    manifest = json.loads((tmp_path / "x" / v1.MANIFEST).read_text())
    data = path.read_bytes()
    manifest["files"][v1.IMAGES].update(bytes=len(data), sha256=v1.sha256_file(path))
    (tmp_path / "x" / v1.MANIFEST).write_text(v1.manifest_text(manifest))
    report = target.import_from("u", "graphmem-v1", str(tmp_path / "x"))
    refused = sorted(p.split(": ")[1] for p in report.skipped if p.startswith(v1.IMAGES))
    assert refused == ["image_taken_at", "image_width"]
    assert report.added == 2  # the fact and the business card


def test_a_version_1_export_without_images_is_still_read(
    svc: MemoryService, target: MemoryService, tmp_path: Path
) -> None:
    svc.write("u", "I live in Austin.")
    root = tmp_path / "old"
    export_v1(svc.context, "u", root)
    manifest = json.loads((root / v1.MANIFEST).read_text())
    manifest["format_version"] = 1
    for key in ("images", "image_files", "images_withheld"):
        manifest["counts"].pop(key)
    del manifest["files"][v1.IMAGES], manifest["image_files"]
    (root / v1.IMAGES).unlink()
    (root / v1.MANIFEST).write_text(v1.manifest_text(manifest))
    report = target.import_from("u", "graphmem-v1", str(root))
    assert report.skipped == [] and report.added == 1
