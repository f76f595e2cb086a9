"""A tiny two-tower image-text model built at test time with the `onnx` helper API, and a tiny
tokenizer.json built with the `tokenizers` library: nothing binary is committed, and no real
CLIP weights are needed (none can be installed here).

The image tower averages the normalised pixels of each colour channel and projects the three
means by a fixed matrix (`PROJECTION`); the text tower looks each token up in an embedding table
and averages them (over the attention mask when it takes one). The table's rows for the colour
words are the image tower's vectors of a pure red, green and blue picture, so "red" lands on a
red picture's vector, cosine 1; "violet" is orthogonal to every picture; "reddish" leans a
little towards red (cosine WEAK), less than any image-text model's noise floor.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
from PIL import Image

DIM = 8
SIDE = 32
MEAN = (0.48145466, 0.4578275, 0.40821073)
STD = (0.26862954, 0.26130258, 0.27577711)
WORDS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "red", "green", "blue", "violet", "reddish"]
COLOURS = {"red": (255, 0, 0), "green": (0, 255, 0), "blue": (0, 0, 255)}
WEAK = 0.15
"""The cosine of "reddish" to a red picture: below the default floor (images.image_score_floor)."""

PROJECTION = np.zeros((3, DIM), dtype=np.float32)
PROJECTION[0, 0] = PROJECTION[1, 1] = PROJECTION[2, 2] = 1.0
PROJECTION[0, 3], PROJECTION[1, 4], PROJECTION[2, 3] = 0.5, 0.25, -0.5


def channel_means(rgb: tuple[int, int, int]) -> np.ndarray:
    """What a picture of one colour is, after scaling to [0, 1] and the CLIP normalisation."""
    return (np.asarray(rgb, np.float32) / 255.0 - np.asarray(MEAN)) / np.asarray(STD)


def picture_vector(rgb: tuple[int, int, int]) -> np.ndarray:
    """The image tower's (unnormalised) vector of a picture of one colour."""
    return (channel_means(rgb) @ PROJECTION).astype(np.float32)


def unit(v: np.ndarray) -> np.ndarray:
    return (v / np.linalg.norm(v)).astype(np.float32)


def embeddings() -> np.ndarray:
    """The text tower's table: special tokens are zero (they add no direction), colour words
    are their pictures' vectors, violet is orthogonal to every picture, reddish weakly red."""
    table = np.zeros((len(WORDS), DIM), dtype=np.float32)
    for word, rgb in COLOURS.items():
        table[WORDS.index(word)] = unit(picture_vector(rgb))
    table[WORDS.index("violet"), DIM - 1] = 1.0
    lean = WEAK * unit(picture_vector(COLOURS["red"]))
    table[WORDS.index("reddish")] = lean + np.sqrt(1 - WEAK**2) * np.eye(DIM)[DIM - 2]
    return table


def image_tower(side: int | str = SIDE, *, half: bool = False) -> bytes:
    """[N, 3, side, side] float -> [N, DIM]: per-channel mean, then PROJECTION. `side` a name
    leaves the input side dynamic."""
    from onnx import TensorProto, helper, numpy_helper

    kind = TensorProto.FLOAT16 if half else TensorProto.FLOAT
    nodes = []
    source = "pixel_values"
    if half:
        nodes.append(helper.make_node("Cast", ["pixel_values"], ["pixels32"], to=1))
        source = "pixels32"
    nodes += [
        helper.make_node("ReduceMean", [source], ["means"], axes=[2, 3], keepdims=0),
        helper.make_node("MatMul", ["means", "projection"], ["image_embeds"]),
    ]
    graph = helper.make_graph(
        nodes,
        "image_tower",
        [helper.make_tensor_value_info("pixel_values", kind, ["batch", 3, side, side])],
        [helper.make_tensor_value_info("image_embeds", TensorProto.FLOAT, ["batch", DIM])],
        [numpy_helper.from_array(PROJECTION, "projection")],
    )
    return _model(graph)


def text_tower(*, fixed: int | None = None, dim: int = DIM) -> bytes:
    """Token ids -> [N, dim]. `fixed` None: ids and an attention mask of dynamic length, the
    mean over the mask (an open_clip-like export); a number: one input `text` of exactly that
    many ids, padded with 0, the mean over all of them (Chinese-CLIP's export takes 52)."""
    from onnx import TensorProto, helper, numpy_helper

    table = embeddings() if dim == DIM else np.ones((len(WORDS), dim), np.float32)
    inits = [numpy_helper.from_array(table, "table")]
    if fixed is not None:
        nodes = [
            helper.make_node("Gather", ["table", "text"], ["tokens"]),
            helper.make_node("ReduceMean", ["tokens"], ["text_embeds"], axes=[1], keepdims=0),
        ]
        inputs = [helper.make_tensor_value_info("text", TensorProto.INT64, [1, fixed])]
    else:
        inits.append(numpy_helper.from_array(np.asarray([1], np.int64), "axis1"))
        inits.append(numpy_helper.from_array(np.asarray([-1], np.int64), "last"))
        nodes = [
            helper.make_node("Gather", ["table", "input_ids"], ["tokens"]),
            helper.make_node("Cast", ["attention_mask"], ["maskf"], to=1),
            helper.make_node("Unsqueeze", ["maskf", "last"], ["mask3"]),
            helper.make_node("Mul", ["tokens", "mask3"], ["kept"]),
            helper.make_node("ReduceSum", ["kept", "axis1"], ["total"], keepdims=0),
            helper.make_node("ReduceSum", ["mask3", "axis1"], ["count"], keepdims=0),
            helper.make_node("Div", ["total", "count"], ["text_embeds"]),
        ]
        inputs = [
            helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "tokens"])
            for name in ("input_ids", "attention_mask")
        ]
    graph = helper.make_graph(
        nodes,
        "text_tower",
        inputs,
        [helper.make_tensor_value_info("text_embeds", TensorProto.FLOAT, ["batch", dim])],
        inits,
    )
    return _model(graph)


def token_states() -> bytes:
    """A text tower that was exported wrong: per-token states [N, tokens, DIM], not one vector."""
    from onnx import TensorProto, helper, numpy_helper

    graph = helper.make_graph(
        [helper.make_node("Gather", ["table", "input_ids"], ["states"])],
        "states",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "tokens"])],
        [helper.make_tensor_value_info("states", TensorProto.FLOAT, ["batch", "tokens", DIM])],
        [numpy_helper.from_array(embeddings(), "table")],
    )
    return _model(graph)


def _model(graph: object) -> bytes:
    import onnx
    from onnx import helper

    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8  # what every onnxruntime this project allows reads
    onnx.checker.check_model(model)
    return bytes(model.SerializeToString())


def tokenizer_json() -> str:
    """A word-level tokenizer over WORDS: lower-cased, split on whitespace and punctuation,
    wrapped in [CLS] ... [SEP] (as Chinese-CLIP's BERT tokenizer wraps a text)."""
    from tokenizers import Tokenizer, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordLevel

    tok = Tokenizer(WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)]
    )
    return str(tok.to_str())


def write_model(folder: Path, *, fixed: int | None = None) -> dict[str, Path]:
    """The two towers and the tokenizer as files in `folder`: the images settings' three paths."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {
        "image_model": folder / "image.onnx",
        "image_text_model": folder / "text.onnx",
        "image_tokenizer": folder / "tokenizer.json",
    }
    paths["image_model"].write_bytes(image_tower())
    paths["image_text_model"].write_bytes(text_tower(fixed=fixed))
    paths["image_tokenizer"].write_text(tokenizer_json(), encoding="utf-8")
    return paths


def solid(colour: str, size: tuple[int, int] = (48, 40), fmt: str = "PNG") -> bytes:
    """A picture of one colour, as a file's bytes."""
    buf = io.BytesIO()
    Image.new("RGB", size, COLOURS[colour]).save(buf, format=fmt)
    return buf.getvalue()
