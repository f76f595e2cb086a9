"""A two-tower image-text model (CLIP) exported to ONNX: images and texts into one vector space.

An operator who has such a model (open_clip's or Chinese-CLIP's, exported as two ONNX files,
docs/images.md) names its towers and its tokenizer in the images settings; nothing here ships
or downloads weights. Every shape is read from the ONNX sessions, not assumed:

- the image tower takes one float input, a batch of images [N, 3, H, W]; its side comes from
  that shape unless the export left it dynamic (then `images.image_size`);
- the text tower takes token ids, and an attention mask when the graph has an input named
  `attention_mask` (token type ids, when asked for, are zeros); a fixed sequence length in the
  input's shape is what the ids are padded to (Chinese-CLIP's export takes exactly 52);
- each tower's first output is one vector per input, L2-normalised here, since some exports
  leave that to the caller (Chinese-CLIP's `unnorm_*_features`).

One input per run: a vector depends on its input alone, and exports with a fixed batch of one
work too. Preprocessing follows the projects' own: the shorter side scaled to the input side
(bicubic) and the centre square cut (open_clip), or the whole image scaled to a square
(Chinese-CLIP), then pixels scaled to [0, 1] and normalised by the configured mean and std.

Every problem with the files is found when the model is opened, and said in one line naming
the setting (`ClipModel.open`): a missing file, a file ONNX Runtime cannot load, a graph whose
inputs are not a tower's, towers whose vectors differ in size.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from graphmem.errors import InvalidInputError
from graphmem.images.settings import ImageSettings

DEFAULT_TOKENS = 77
"""CLIP's context length: what a text tower with a dynamic input length is given at most."""
_MASK, _TYPES = "attention_mask", "token_type_ids"


def pixels(
    picture: Image.Image,
    side: int,
    mean: tuple[float, float, float],
    std: tuple[float, float, float],
    resize: str = "crop",
) -> np.ndarray:
    """The image tower's input for one picture: [1, 3, side, side] float32, RGB, normalised.

    `crop` scales the shorter side to `side` (the longer one truncated to whole pixels, as
    torchvision's Resize does) and cuts the centre square (CenterCrop's rounding); `squash`
    scales the whole picture to side x side. Bicubic, as both projects resize."""
    rgb = picture.convert("RGB")
    if resize == "crop":
        w, h = rgb.size
        if w <= h:
            size = (side, max(side, int(side * h / w)))
        else:
            size = (max(side, int(side * w / h)), side)
        rgb = rgb.resize(size, Image.Resampling.BICUBIC)
        left = int(round((size[0] - side) / 2.0))
        top = int(round((size[1] - side) / 2.0))
        rgb = rgb.crop((left, top, left + side, top + side))
    else:
        rgb = rgb.resize((side, side), Image.Resampling.BICUBIC)
    scaled: np.ndarray = np.asarray(rgb, dtype=np.float32) / np.float32(255.0)
    normal = (scaled - np.asarray(mean, np.float32)) / np.asarray(std, np.float32)
    return np.ascontiguousarray(normal.transpose(2, 0, 1)[None], dtype=np.float32)


def unit(vector: np.ndarray) -> np.ndarray | None:
    """`vector` scaled to length 1; None for a zero vector, which has no direction to compare."""
    v = np.asarray(vector, dtype=np.float32).reshape(-1)
    norm = float(np.linalg.norm(v))
    if not np.isfinite(norm) or norm < 1e-12:
        return None
    return (v / norm).astype(np.float32)


def fingerprint(path: Path) -> str:
    """Name, size and the sha256 of the first and last MiB: enough to tell one export from
    another without reading a file of hundreds of MB at every start."""
    size = path.stat().st_size
    h = hashlib.sha256()
    with path.open("rb") as f:
        h.update(f.read(1 << 20))
        if size > 1 << 20:
            f.seek(max(1 << 20, size - (1 << 20)))
            h.update(f.read(1 << 20))
    return f"{path.name}:{size}:{h.hexdigest()[:16]}"


def _dim(value: Any) -> int | None:
    """A fixed dimension of an ONNX shape, None for a symbolic or unknown one."""
    return value if isinstance(value, int) and value > 0 else None


def _session(setting: str, path: Path, threads: int) -> Any:
    """An ONNX Runtime session on the file a setting names, or one line saying why not."""
    from graphmem.embedding.onnx import cpu_session

    if not path.is_file():
        what = "is a folder, not an ONNX file" if path.is_dir() else "does not exist"
        raise InvalidInputError(setting, f"{str(path)[:200]} {what}")
    try:
        return cpu_session(str(path), threads)
    except Exception as e:  # noqa: BLE001 - ONNX Runtime's errors have no common type
        first = (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
        raise InvalidInputError(
            setting, f"{str(path)[:200]} is not an ONNX model ONNX Runtime can load: {first}"
        ) from None


def _tokenizer(path: Path, tokens: int) -> Any:
    from tokenizers import Tokenizer

    if not path.is_file():
        raise InvalidInputError("images.image_tokenizer", f"{str(path)[:200]} does not exist")
    try:
        tok = Tokenizer.from_file(str(path))
    except Exception as e:  # noqa: BLE001 - the tokenizers library raises plain Exceptions
        first = (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
        raise InvalidInputError(
            "images.image_tokenizer", f"{str(path)[:200]} is not a tokenizer.json: {first}"
        ) from None
    tok.no_padding()
    tok.enable_truncation(max_length=tokens)  # special tokens are kept, the text is cut
    return tok


@dataclass(frozen=True)
class _Tower:
    """One ONNX tower: its session, the input names it reads and its first output's name."""

    session: Any
    output: str

    def run(self, feeds: dict[str, np.ndarray]) -> np.ndarray:
        return np.asarray(self.session.run([self.output], feeds)[0])


class ClipModel:
    """The two towers and the tokenizer, opened and checked: `image` and `text` each give a
    unit vector in the shared space (None for an input the model maps to a zero vector)."""

    def __init__(self, settings: ImageSettings, threads: int = 1) -> None:
        if settings.image_model is None or settings.image_text_model is None:
            raise InvalidInputError("images.image_model", "no image-text model is configured")
        if settings.image_tokenizer is None:
            raise InvalidInputError("images.image_tokenizer", "is required with the two towers")
        self.settings = settings
        image_path = Path(settings.image_model).expanduser()
        text_path = Path(settings.image_text_model).expanduser()
        self._image = self._image_tower(_session("images.image_model", image_path, threads))
        self._text = self._text_tower(_session("images.image_text_model", text_path, threads))
        self._tok = _tokenizer(Path(settings.image_tokenizer).expanduser(), self.tokens)
        self._tok_lock = threading.Lock()  # one Rust object: serialise its calls
        self.dim = self._check_dims()
        self.identity = (
            f"{fingerprint(image_path)}+{fingerprint(text_path)}:{self.dim}"
            f":{self.side}:{settings.image_resize}"
        )

    # ------------------------------------------------------------------ opening
    def _image_tower(self, session: Any) -> _Tower:
        inputs = session.get_inputs()
        shape = list(inputs[0].shape) if len(inputs) == 1 else []
        if len(shape) != 4 or (_dim(shape[1]) not in (None, 3)) or "float" not in inputs[0].type:
            raise InvalidInputError(
                "images.image_model",
                "is not an image tower: it must take one float input, a batch of RGB images"
                f" [N, 3, H, W] (it takes {[(i.name, i.shape) for i in inputs]})",
            )
        self._image_input, self._image_half = inputs[0].name, "float16" in inputs[0].type
        side = self.settings.image_size
        fixed = [_dim(shape[2]), _dim(shape[3])]
        if fixed[0] is not None and fixed[0] == fixed[1]:
            if side and side != fixed[0]:
                raise InvalidInputError(
                    "images.image_size",
                    f"is {side}, but the image tower takes {fixed[0]}x{fixed[0]} pixels",
                )
            side = fixed[0]
        if not side:
            raise InvalidInputError(
                "images.image_size", "the image tower's input side is not fixed: set it"
            )
        self.side = side
        return _Tower(session, session.get_outputs()[0].name)

    def _text_tower(self, session: Any) -> _Tower:
        inputs = {i.name: i for i in session.get_inputs()}
        ids = [n for n in inputs if n not in (_MASK, _TYPES)]
        if len(ids) != 1 or len(inputs[ids[0]].shape) != 2 or "int" not in inputs[ids[0]].type:
            raise InvalidInputError(
                "images.image_text_model",
                "is not a text tower: it must take one input of token ids [N, tokens] (and"
                f" optionally {_MASK}, {_TYPES}); it takes"
                f" {[(i.name, i.shape, i.type) for i in inputs.values()]}",
            )
        self._ids_input = ids[0]
        self._int_types = {
            n: np.int32 if "int32" in i.type else np.int64 for n, i in inputs.items()
        }
        fixed = _dim(inputs[ids[0]].shape[1])
        wanted = self.settings.image_text_tokens
        if fixed is not None and wanted and wanted != fixed:
            raise InvalidInputError(
                "images.image_text_tokens",
                f"is {wanted}, but the text tower takes exactly {fixed} tokens",
            )
        self.tokens = fixed or wanted or DEFAULT_TOKENS
        self._padded = fixed is not None
        return _Tower(session, session.get_outputs()[0].name)

    def _check_dims(self) -> int:
        """Run each tower once (a grey picture, a short text): the graphs must run, give one
        vector per input, and give vectors of one size."""
        dims = {}
        for setting, run in (
            ("images.image_model", lambda: self._image_raw(Image.new("RGB", (8, 8), "grey"))),
            ("images.image_text_model", lambda: self._text_raw("a photo")),
        ):
            try:
                out = run()
            except InvalidInputError:
                raise
            except Exception as e:  # noqa: BLE001 - a graph that does not run: say so once
                first = (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
                raise InvalidInputError(setting, f"does not run on its input: {first}") from None
            if out.ndim == 2 and out.shape[0] == 1:
                out = out[0]
            if out.ndim != 1 or not out.size:
                raise InvalidInputError(
                    setting,
                    f"gives an output of shape {list(out.shape)}; a tower gives one vector per"
                    " input (the projected features, not per-token states)",
                )
            dims[setting] = out.size
        if len(set(dims.values())) != 1:
            image, text = dims.values()
            raise InvalidInputError(
                "images.image_text_model",
                f"gives {text}-dimension vectors and images.image_model {image}: the two towers"
                " must be of one model",
            )
        return int(next(iter(dims.values())))

    # ------------------------------------------------------------------ embedding
    def _image_raw(self, picture: Image.Image) -> np.ndarray:
        s = self.settings
        x = pixels(picture, self.side, s.image_mean, s.image_std, s.image_resize)
        if self._image_half:
            x = x.astype(np.float16)
        return self._image.run({self._image_input: x}).astype(np.float32)

    def token_ids(self, text: str) -> list[int]:
        """The text's token ids as the text tower reads them: special tokens added by the
        tokenizer, cut to the tower's length."""
        with self._tok_lock:
            return list(self._tok.encode(text).ids)[: self.tokens]

    def _text_raw(self, text: str) -> np.ndarray:
        ids = self.token_ids(text)
        width = self.tokens if self._padded else max(1, len(ids))
        pad = self.settings.image_text_pad_id
        row = np.full((1, width), pad, dtype=np.int64)
        row[0, : len(ids)] = ids
        mask = np.zeros((1, width), dtype=np.int64)
        mask[0, : len(ids)] = 1
        feeds = {}
        for name, kind in self._int_types.items():
            value = row if name == self._ids_input else mask if name == _MASK else mask * 0
            feeds[name] = value.astype(kind)
        return self._text.run(feeds).astype(np.float32)

    def image(self, picture: Image.Image) -> np.ndarray | None:
        """The picture's unit vector in the shared space."""
        return unit(self._image_raw(picture))

    def text(self, text: str) -> np.ndarray | None:
        """A text's (a query's) unit vector in the shared space."""
        return unit(self._text_raw(text))


__all__ = ["DEFAULT_TOKENS", "ClipModel", "fingerprint", "pixels", "unit"]
