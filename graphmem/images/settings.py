"""The images section of the settings (GRAPHMEM_IMAGES_*): limits, OCR, thumbnails and where
the bytes are stored.

It lives beside the code it configures, like the guard's, and imports nothing from graphmem, so
the settings root can build it without an import cycle.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import Field, SecretStr, field_validator
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
