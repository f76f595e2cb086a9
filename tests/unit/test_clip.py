"""The image-text model (graphmem.images.clip) on a tiny two-tower ONNX model built here with the
`onnx` helper API (tests/helpers/clip.py): the settings' both-or-neither rule, every file
problem said in one line naming its setting, the preprocessing (crop or squash, RGB, [0, 1],
mean and std, NCHW), the towers' outputs normalised to unit length, shapes read from the
sessions (a fixed text length padded to, a dynamic one not; a fixed or a set image side)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from pydantic import ValidationError

from graphmem.errors import InvalidInputError
from graphmem.images import ImageSettings
from graphmem.images.clip import ClipModel, pixels
from tests.helpers import clip as tiny


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return tiny.write_model(tmp_path_factory.mktemp("clip"))


def settings(files: dict[str, Path], **more: object) -> ImageSettings:
    return ImageSettings(**{**files, **more})  # type: ignore[arg-type]


def normalised(rgb: tuple[int, int, int]) -> np.ndarray:
    return tiny.channel_means(rgb).astype(np.float32)


# ----------------------------------------------------------------------------- settings
def test_the_towers_go_together_with_a_tokenizer(files: dict[str, Path]) -> None:
    assert not ImageSettings().clip  # off by default
    with pytest.raises(ValidationError, match="go together"):
        ImageSettings(image_model=files["image_model"])
    with pytest.raises(ValidationError, match="go together"):
        ImageSettings(image_text_model=files["image_text_model"])
    with pytest.raises(ValidationError, match="image_tokenizer is required"):
        ImageSettings(image_model=files["image_model"], image_text_model=files["image_text_model"])
    with pytest.raises(ValidationError, match="above images.image_score_floor"):
        settings(files, image_score_floor=0.3, image_score_full=0.3)
    assert settings(files).clip


# ----------------------------------------------------------------------------- loading
def test_the_tiny_model_loads_with_its_shapes_read_from_the_sessions(
    files: dict[str, Path],
) -> None:
    model = ClipModel(settings(files))
    assert (model.dim, model.side, model.tokens) == (tiny.DIM, tiny.SIDE, 77)
    assert model.token_ids("Red door") == [2, 4, 1, 3]  # [CLS] red [UNK] [SEP]


@pytest.mark.parametrize(
    ("field", "make", "says"),
    [
        ("image_model", lambda d: d / "missing.onnx", "missing.onnx does not exist"),
        ("image_model", lambda d: d, "is a folder, not an ONNX file"),
        ("image_text_model", lambda d: _write(d / "junk.onnx", b"not a model"), "is not an ONNX"),
        ("image_text_model", lambda d: _write(d / "i.onnx", tiny.image_tower()), "not a text"),
        ("image_model", lambda d: _write(d / "t.onnx", tiny.text_tower()), "not an image tower"),
        ("image_text_model", lambda d: _write(d / "s.onnx", tiny.token_states()), "per-token"),
        ("image_text_model", lambda d: _write(d / "6.onnx", tiny.text_tower(dim=6)), "6-dim"),
        ("image_tokenizer", lambda d: _write(d / "tok.json", b"{}"), "not a tokenizer.json"),
        ("image_tokenizer", lambda d: d / "none.json", "none.json does not exist"),
    ],
)
def test_each_bad_file_is_one_line_naming_its_setting(
    files: dict[str, Path], tmp_path: Path, field: str, make: object, says: str
) -> None:
    bad = make(tmp_path)  # type: ignore[operator]
    with pytest.raises(InvalidInputError) as caught:
        ClipModel(settings(files, **{field: bad}))
    assert caught.value.field == f"images.{field}"
    assert says in caught.value.message and "\n" not in str(caught.value)


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_the_image_side_is_the_models_or_the_setting(
    files: dict[str, Path], tmp_path: Path
) -> None:
    with pytest.raises(InvalidInputError, match="takes 32x32 pixels"):
        ClipModel(settings(files, image_size=64))
    dynamic = _write(tmp_path / "dynamic.onnx", tiny.image_tower(side="side"))
    with pytest.raises(InvalidInputError, match="not fixed: set it"):
        ClipModel(settings(files, image_model=dynamic))
    model = ClipModel(settings(files, image_model=dynamic, image_size=16))
    assert model.side == 16
    red = model.image(Image.new("RGB", (20, 20), tiny.COLOURS["red"]))
    assert red is not None and np.allclose(red, tiny.unit(tiny.picture_vector((255, 0, 0))))


def test_a_half_precision_image_input_is_fed_half_precision(
    files: dict[str, Path], tmp_path: Path
) -> None:
    half = _write(tmp_path / "half.onnx", tiny.image_tower(half=True))
    model = ClipModel(settings(files, image_model=half))
    red = model.image(Image.new("RGB", (40, 40), tiny.COLOURS["red"]))
    assert red is not None
    assert np.allclose(red, tiny.unit(tiny.picture_vector((255, 0, 0))), atol=1e-3)


def test_a_fixed_length_text_tower_gets_its_length_padded(
    files: dict[str, Path], tmp_path: Path
) -> None:
    fixed = _write(tmp_path / "fixed.onnx", tiny.text_tower(fixed=16))
    model = ClipModel(settings(files, image_text_model=fixed))
    assert model.tokens == 16
    red = model.text("red")  # [CLS] red [SEP] and 13 pads, all of them zero vectors
    assert red is not None and np.allclose(red, tiny.unit(tiny.picture_vector((255, 0, 0))))
    long = " ".join(["blue"] * 40)
    assert len(model.token_ids(long)) == 16 and model.token_ids(long)[-1] == 3  # [SEP] kept
    with pytest.raises(InvalidInputError, match="takes exactly 16 tokens"):
        ClipModel(settings(files, image_text_model=fixed, image_text_tokens=20))


# ----------------------------------------------------------------------------- preprocessing
def test_crop_scales_the_shorter_side_and_cuts_the_centre() -> None:
    # 6 x 2: columns green green red blue green green; the centre 2 x 2 is red | blue
    picture = Image.new("RGB", (6, 2), tiny.COLOURS["green"])
    for y in range(2):
        picture.putpixel((2, y), tiny.COLOURS["red"])
        picture.putpixel((3, y), tiny.COLOURS["blue"])
    x = pixels(picture, 2, tiny.MEAN, tiny.STD, "crop")
    assert x.shape == (1, 3, 2, 2) and x.dtype == np.float32
    assert np.allclose(x[0, :, :, 0], normalised((255, 0, 0))[:, None], atol=1e-5)
    assert np.allclose(x[0, :, :, 1], normalised((0, 0, 255))[:, None], atol=1e-5)
    tall = picture.transpose(Image.Transpose.TRANSPOSE)  # 2 x 6: the same, cut by rows
    y = pixels(tall, 2, tiny.MEAN, tiny.STD, "crop")
    assert np.allclose(y[0, :, 0, :], normalised((255, 0, 0))[:, None], atol=1e-5)
    assert np.allclose(y[0, :, 1, :], normalised((0, 0, 255))[:, None], atol=1e-5)


def test_crop_resizes_before_cutting_and_squash_keeps_everything() -> None:
    # 64 x 32, red in columns 0..23: scaled to 32 x 16 (red 0..11), the centre is 8..23, so
    # its first column is red; cut from the unscaled picture it would be column 24, blue
    left_red = Image.new("RGB", (64, 32), tiny.COLOURS["blue"])
    left_red.paste(Image.new("RGB", (24, 32), tiny.COLOURS["red"]), (0, 0))
    cropped = pixels(left_red, 16, tiny.MEAN, tiny.STD, "crop")
    assert cropped.shape == (1, 3, 16, 16)
    assert np.allclose(cropped[0, :, :, 0], normalised((255, 0, 0))[:, None], atol=1e-5)
    assert np.allclose(cropped[0, :, :, 15], normalised((0, 0, 255))[:, None], atol=1e-5)
    squashed = pixels(left_red, 16, tiny.MEAN, tiny.STD, "squash")  # all of it, 16 x 16
    assert np.allclose(squashed[0, :, 8, 0], normalised((255, 0, 0)), atol=1e-5)
    assert np.allclose(squashed[0, :, 8, 15], normalised((0, 0, 255)), atol=1e-5)
    grey = Image.new("L", (5, 9), 128)  # any mode becomes RGB
    assert pixels(grey, 4, (0.5, 0.5, 0.5), (0.5, 0.5, 0.5)).shape == (1, 3, 4, 4)


# ----------------------------------------------------------------------------- normalisation
def test_both_towers_give_unit_vectors_in_one_space(files: dict[str, Path]) -> None:
    model = ClipModel(settings(files))
    raw = tiny.picture_vector((255, 0, 0))
    assert abs(float(np.linalg.norm(raw)) - 1.0) > 0.5  # the tower itself does not normalise
    for colour, rgb in tiny.COLOURS.items():
        image = model.image(Image.new("RGB", (50, 30), rgb))
        text = model.text(colour)
        assert image is not None and text is not None
        assert np.linalg.norm(image) == pytest.approx(1.0, abs=1e-6)
        assert np.linalg.norm(text) == pytest.approx(1.0, abs=1e-6)
        assert float(image @ text) == pytest.approx(1.0, abs=1e-5)
    red = model.image(Image.new("RGB", (50, 30), tiny.COLOURS["red"]))
    assert red is not None
    for word, cosine in (("violet", 0.0), ("reddish", tiny.WEAK), ("blue", None)):
        text = model.text(word)
        assert text is not None
        if cosine is None:
            assert float(red @ text) < 0
        else:
            assert float(red @ text) == pytest.approx(cosine, abs=1e-5)
    assert model.text("unknown words") is None  # all zero: no direction, so no vector
