"""The images section of the settings (GRAPHMEM_IMAGES_*): limits, OCR and thumbnails.

It lives beside the code it configures, like the guard's, and imports nothing from graphmem, so
the settings root can build it without an import cycle.
"""

from __future__ import annotations

from pydantic import Field
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


__all__ = ["ImageSettings"]
