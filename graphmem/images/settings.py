"""The images section of the settings (GRAPHMEM_IMAGES_*): limits, OCR, thumbnails, where
the bytes are stored, and the optional image-text model that puts images and queries in one
vector space (graphmem.images.clip).

It lives beside the code it configures, like the guard's, and imports nothing from graphmem, so
the settings root can build it without an import cycle.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class ImageSettings(BaseSettings):
    """Images as memories (docs/images.md): what is accepted, how text is read from them."""

    model_config = SettingsConfigDict(
        env_prefix="GRAPHMEM_IMAGES_", env_file=".env", extra="ignore"
    )

    max_bytes: int = Field(
        20 * 1024 * 1024,
        gt=0,
        description="an image file larger than this many bytes is refused before it is decoded",
    )
    max_pixels: int = Field(
        40_000_000,
        gt=0,
        description="an image whose header declares more pixels (width x height) is refused"
        " before it is decoded: a decompression bomb never reaches memory",
    )
    pdf_max_pages: int = Field(
        100,
        gt=0,
        le=100_000,
        description="a PDF written as an image (one of its pages) may have at most this many"
        " pages; a longer one is refused before its pages are read (`graphmem ingest` stores"
        " documents)",
    )
    pdf_pages_per_write: int = Field(
        20,
        gt=0,
        le=1000,
        description="a PDF written as an image without a page becomes one image memory a page;"
        " one write stores at most this many pages (each rendered and read by OCR), a longer"
        " PDF is refused unread (give a page, or ingest it as a document)",
    )
    pdf_dpi: int = Field(
        200,
        ge=72,
        le=600,
        description="a PDF page that is not one scanned picture (vectors, strips, inline"
        " images) is rendered at this resolution for OCR and storage, or less to fit"
        " max_pixels; 200 dpi makes an A4 page 1654x2339, about ocr_max_side",
    )
    ocr: bool = Field(
        True, description="read the text in an image with Tesseract; off: caption and metadata only"
    )
    ocr_languages: str = Field(
        "chi_sim+eng",
        pattern=r"^[a-z_]+(\+[a-z_]+)*$",
        description="Tesseract languages, '+'-joined, the first one primary (Debian:"
        " tesseract-ocr-chi-sim, -eng); Chinese first reads Chinese far better and English"
        " as well (bench/images.py)",
    )
    ocr_timeout_seconds: float = Field(
        60.0, gt=0, description="Tesseract is stopped after this long; the image keeps no text"
    )
    ocr_max_side: int = Field(
        2400,
        ge=200,
        description="an image is scaled down to this many pixels on its longer side before OCR"
        " (the text stays legible, the time stays bounded)",
    )
    tesseract: str = Field("tesseract", description="the Tesseract command (a name or a path)")
    places: bool = Field(
        True,
        description="read the EXIF GPS position of a photo into its metadata and name the"
        " nearest populated place in its content ('Taken near Lisbon, Lisbon, Portugal'), looked"
        " up offline in GeoNames data (graphmem[places]); off: neither is stored",
    )
    place_max_km: float = Field(
        50.0,
        gt=0,
        le=20_000,
        description="a place is named only when the nearest populated place (1,000 inhabitants"
        " or more) lies within this many km of the photo's position; the position is kept",
    )
    thumbnail_side: int = Field(
        256, ge=16, le=2048, description="thumbnails fit in a square of this many pixels"
    )
    url_timeout_seconds: float = Field(
        20.0,
        gt=0,
        le=600,
        description="an image URL must be fetched within this long, redirects included",
    )
    url_max_redirects: int = Field(
        3, ge=0, le=10, description="an image URL may redirect at most this many times"
    )
    url_allow_private: bool = Field(
        False,
        description="fetch image URLs whose host is a loopback, private, link-local or other"
        " non-public address; off, they are refused, so a URL cannot make the server reach"
        " inside its own network (SSRF). It applies to every caller, agents over MCP too",
    )
    store: str = Field(
        "",
        description="where the bytes, thumbnails and OCR text are kept: empty (default) for"
        " <data_dir>/images; a directory path (e.g. a volume the replicas share); or"
        " s3://BUCKET[/PREFIX] for an S3-compatible bucket (graphmem[s3], the s3_* settings)",
    )
    s3_endpoint: str = Field(
        "",
        description="the S3 API's URL, e.g. https://s3.eu-west-1.amazonaws.com or"
        " http://127.0.0.1:9000 for a MinIO; empty: https://s3.amazonaws.com",
    )
    s3_region: str = Field(
        "", description="the bucket's region (SigV4 signs with it); empty: asked of the server"
    )
    s3_access_key: str = Field("", description="the S3 access key id")
    s3_secret_key: SecretStr | None = Field(None, description="the S3 secret access key")
    s3_ca_file: Path | None = Field(
        None,
        description="a PEM file of the CAs an https endpoint's certificate is checked against"
        " (a private MinIO); unset: the certifi bundle",
    )
    s3_timeout_seconds: float = Field(
        30.0, gt=0, le=600, description="each S3 request (connect, then read) times out after this"
    )

    image_model: Path | None = Field(
        None,
        description="the image tower of a two-tower image-text model (CLIP: open_clip or"
        " Chinese-CLIP, exported to ONNX; docs/images.md): with image_text_model, images and"
        " queries are embedded into one space, searched as a channel of its own. Unset (the"
        " default): no such channel, search unchanged",
    )
    image_text_model: Path | None = Field(
        None, description="the same model's text tower (ONNX); set with image_model or not at all"
    )
    image_tokenizer: Path | None = Field(
        None,
        description="the text tower's tokenizer, a tokenizer.json of the Hugging Face"
        " `tokenizers` library; required with the two towers",
    )
    image_size: int = Field(
        0,
        ge=0,
        le=4096,
        description="the image tower's input side in pixels; 0: read from the model (set it when"
        " the export left the side dynamic)",
    )
    image_resize: Literal["crop", "squash"] = Field(
        "crop",
        description="crop: scale the shorter side to image_size, then cut the centre square"
        " (open_clip's preprocessing); squash: scale to a square, ignoring the aspect ratio"
        " (Chinese-CLIP's)",
    )
    image_mean: tuple[float, float, float] = Field(
        (0.48145466, 0.4578275, 0.40821073),
        description="per-channel (R, G, B) mean subtracted from pixels scaled to [0, 1]; the"
        " default is OpenAI CLIP's, which open_clip's CLIP models and Chinese-CLIP use",
    )
    image_std: tuple[float, float, float] = Field(
        (0.26862954, 0.26130258, 0.27577711),
        description="per-channel (R, G, B) standard deviation the pixels are divided by",
    )
    image_text_tokens: int = Field(
        0,
        ge=0,
        le=4096,
        description="tokens the text tower reads, special tokens included; 0: the model's fixed"
        " input length, else 77 (CLIP's)",
    )
    image_text_pad_id: int = Field(
        0, ge=0, description="the token id a fixed-length text input is padded with"
    )
    image_weight: float = Field(
        0.4,
        ge=0.0,
        le=1.0,
        description="weight of the image channel, fused as the graph's is: final = 1 - (1 -"
        " hybrid)(1 - w * image); a search may set it (weights image=...)",
    )
    image_score_floor: float = Field(
        0.2,
        ge=-1.0,
        lt=1.0,
        description="a query-image cosine at or below this is noise and adds nothing (the"
        " channel is not divided by its best hit); not measured here, set it for the model",
    )
    image_score_full: float = Field(
        0.35,
        gt=-1.0,
        le=1.0,
        description="the cosine at which the image channel is full (1.0); image-text cosines of"
        " CLIP models sit far below text-text ones. Not measured here, set it for the model",
    )

    @model_validator(mode="after")
    def _two_towers(self) -> ImageSettings:
        """Both towers or neither, with a tokenizer; files are checked when a service opens
        them (graphmem.images.clip), so the message can say what is wrong with each."""
        if (self.image_model is None) != (self.image_text_model is None):
            raise ValueError(
                "images.image_model and images.image_text_model go together: set both (the"
                " image and the text tower of one model) or neither"
            )
        if self.image_model is not None and self.image_tokenizer is None:
            raise ValueError(
                "images.image_tokenizer is required with images.image_model: the tokenizer.json"
                " of the text tower"
            )
        if self.image_score_full <= self.image_score_floor:
            raise ValueError("images.image_score_full must be above images.image_score_floor")
        return self

    @property
    def clip(self) -> bool:
        """Is an image-text model configured (the image channel on)?"""
        return self.image_model is not None

    @field_validator("store")
    @classmethod
    def _store_form(cls, value: str) -> str:
        value = value.strip()
        if value.startswith("s3://"):
            bucket = value[len("s3://") :].split("/", 1)[0]
            if not re.fullmatch(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]", bucket):
                raise ValueError("s3://BUCKET[/PREFIX]: BUCKET must be an S3 bucket name")
        elif "://" in value:
            raise ValueError("must be empty, a directory path or s3://BUCKET[/PREFIX]")
        return value


__all__ = ["ImageSettings"]
