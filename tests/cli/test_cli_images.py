"""`graphmem add --image`, search hits of images and `graphmem image` saving one back, run
in-process through main() on a real embedded store with the real Tesseract."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.clip import write_model
from tests.helpers.imaging import needs_ocr, png_bomb, render
from tests.helpers.pdfs import scanned_pdf


def test_add_an_image_find_it_by_its_text_and_save_it(cli, tmp_path: Path) -> None:
    needs_ocr()
    shot = tmp_path / "receipt.png"
    shot.write_bytes(render(["Invoice 4471 from Hollis Bakery", "Total due: 38.50 EUR"]))
    code, out, err = cli(
        "add", "--image", str(shot), "--caption", "lunch receipt", "--user", "ann", "--json"
    )
    assert code == 0, err
    mid = json.loads(out)["id"]
    code, out, _ = cli("search", "Hollis Bakery invoice", "--user", "ann", "--json")
    hit = json.loads(out)["hits"][0]
    assert hit["id"] == mid and hit["kind"] == "image"
    assert hit["content"].startswith("lunch receipt\nInvoice 4471")
    code, out, _ = cli("search", "Hollis Bakery invoice", "--user", "ann")
    assert f"image png 1000x400  (graphmem image {mid} -o FILE)" in out

    code, out, err = cli("image", mid, "-o", str(tmp_path), "--user", "ann")
    assert code == 0, err
    assert Path(out.strip()) == tmp_path / f"{mid}.png"
    assert Path(out.strip()).read_bytes() == shot.read_bytes()
    code, out, _ = cli("image", mid, "--thumbnail", "-o", str(tmp_path / "t.png"), "--user", "ann")
    assert code == 0 and (tmp_path / "t.png").read_bytes()[:4] == b"\x89PNG"
    code, out, err = cli("image", mid, "-o", str(tmp_path / "x.png"), "--user", "ben")
    assert code != 0 and err.startswith("error: memory_id") and not (tmp_path / "x.png").exists()


@pytest.mark.parametrize(
    ("argv", "field"),
    [
        (["add"], "content"),
        (["add", "words", "--image", "x.png"], "content"),
        (["add", "words", "--caption", "c"], "caption"),
        (["add", "--image", "/nonexistent/x.png"], "image"),
        (["add", "--image", "BOMB"], "image"),
    ],
)
def test_bad_image_input_is_one_line_naming_the_field(
    cli, tmp_path: Path, argv: list[str], field: str
) -> None:
    if "BOMB" in argv:
        bomb = tmp_path / "bomb.png"
        bomb.write_bytes(png_bomb())
        argv = [str(bomb) if a == "BOMB" else a for a in argv]
    code, out, err = cli(*argv, "--user", "ann")
    assert code != 0 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"error: {field}"), err


def test_a_bad_image_text_model_is_one_line_at_start(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """images.image_model and its text tower (graphmem.images.clip): a missing file, or one
    tower without the other, stops the command with one line naming the setting."""
    model = write_model(tmp_path / "model")
    monkeypatch.setenv("GRAPHMEM_IMAGES_IMAGE_MODEL", str(model["image_model"]))
    code, out, err = cli("search", "red", "--user", "ann")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "image_model and images.image_text_model go together" in err
    monkeypatch.setenv("GRAPHMEM_IMAGES_IMAGE_TEXT_MODEL", str(tmp_path / "missing.onnx"))
    monkeypatch.setenv("GRAPHMEM_IMAGES_IMAGE_TOKENIZER", str(model["image_tokenizer"]))
    code, out, err = cli("search", "red", "--user", "ann")
    assert code == 2 and out == ""
    assert err == f"error: images.image_text_model: {tmp_path / 'missing.onnx'} does not exist\n"
    monkeypatch.setenv("GRAPHMEM_IMAGES_IMAGE_TEXT_MODEL", str(model["image_text_model"]))
    code, out, err = cli("search", "red", "--user", "ann", "--json")
    assert code == 0, err


def test_add_a_page_of_a_scanned_pdf(cli, tmp_path: Path) -> None:
    """`add --image FILE.pdf`: one image memory a page, one id a line (`--page N`: that page
    alone); a broken PDF and one over the byte limit are one line each."""
    needs_ocr()
    scan = tmp_path / "lease.pdf"
    scan.write_bytes(scanned_pdf(["Tenancy for Flat 3"], ["Monthly rent of 1450 EUR"]))
    code, out, err = cli("add", "--image", str(scan), "--user", "bob")
    assert code == 0, err
    ids = out.split()
    assert len(ids) == 2 and out.count("\n") == 2
    code, out, err = cli("add", "--image", str(scan), "--user", "bob", "--json")
    pages = json.loads(out)["pages"]
    assert [(p["page"], p["status"]) for p in pages] == [(1, "active"), (2, "active")]
    assert json.loads(out)["id"] == pages[0]["id"] and pages[0]["id"] not in ids

    code, out, err = cli("add", "--image", str(scan), "--page", "2", "--user", "ann", "--json")
    assert code == 0, err
    mid = json.loads(out)["id"]
    code, out, _ = cli("search", "monthly rent", "--user", "ann", "--json")
    hit = json.loads(out)["hits"][0]
    assert hit["id"] == mid and hit["kind"] == "image" and "1450 EUR" in hit["content"]
    assert hit["metadata"]["image_pdf_page"] == 2
    code, out, _ = cli("search", "monthly rent", "--user", "ann")
    assert f"image jpeg 1240x700, page 2 of a PDF  (graphmem image {mid} -o FILE)" in out
    code, out, err = cli("image", mid, "-o", str(tmp_path), "--user", "ann")
    assert code == 0 and Path(out.strip()) == tmp_path / f"{mid}.jpeg", err

    broken = tmp_path / "broken.pdf"
    broken.write_bytes(scan.read_bytes()[:3000])
    code, out, err = cli("add", "--image", str(broken), "--user", "ann")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith("error: image: is not a readable PDF")
    code, out, err = cli("add", "words", "--page", "2", "--user", "ann")
    assert code == 2 and err.startswith("error: page: only with --image"), err


def test_a_pdf_over_the_byte_limit_is_refused(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scan = tmp_path / "scan.pdf"
    scan.write_bytes(scanned_pdf(["Berth fee for the Aurora Borealis"]))
    monkeypatch.setenv("GRAPHMEM_IMAGES_MAX_BYTES", "5000")
    code, out, err = cli("add", "--image", str(scan), "--user", "ann")
    assert code == 2 and out == ""
    assert err == "error: image: is 5,001 bytes; at most 5,000 are accepted\n"
