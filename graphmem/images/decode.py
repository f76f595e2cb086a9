"""Bytes to a checked picture: format, dimensions, when and where it was taken, the first
frame.

Images come from agents and users, so every one is untrusted input: its size in bytes is checked
before Pillow sees it, its declared dimensions before a single pixel is decoded (a 50 kB PNG can
declare 100,000 x 100,000 pixels: a decompression bomb), and any decoding failure becomes one
`ImageError` line instead of a stack trace.
"""

from __future__ import annotations

import hashlib
import io
import warnings
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone

from PIL import Image, UnidentifiedImageError

from graphmem.errors import ImageError
from graphmem.images.places import gps_position

FORMATS = {"PNG": "png", "JPEG": "jpeg", "WEBP": "webp", "GIF": "gif"}
"""Pillow's format name to ours: what is accepted, and the stored file's extension."""

MIME = {"png": "image/png", "jpeg": "image/jpeg", "webp": "image/webp", "gif": "image/gif"}

SHA_KEY = "image_sha256"
"""The metadata key naming the image an image memory points at."""

_EXIF_IFD = 0x8769
_DATETIME_ORIGINAL = 36867
_OFFSET_TIME_ORIGINAL = 36881


@dataclass(frozen=True)
class DecodedImage:
    """One accepted image: its bytes as given, their sha256, and the first frame in RGB."""

    data: bytes
    sha256: str
    format: str  # png, jpeg, webp or gif
    width: int
    height: int
    taken_at: datetime | None  # EXIF DateTimeOriginal, when the image says so
    frames: int
    picture: Image.Image  # the first frame, decoded, RGB
    gps: tuple[float, float] | None = None  # EXIF GPS (latitude, longitude), when given

    @property
    def mime(self) -> str:
        return MIME[self.format]

    @property
    def megapixels(self) -> float:
        return self.width * self.height / 1e6

    def describe(self) -> dict[str, object]:
        """What a memory's metadata says about its image (never its bytes)."""
        return {
            SHA_KEY: self.sha256,
            "image_format": self.format,
            "image_width": self.width,
            "image_height": self.height,
            **({"image_frames": self.frames} if self.frames > 1 else {}),
            **({"image_taken_at": self.taken_at.isoformat()} if self.taken_at else {}),
        }


def decode(data: bytes, *, max_bytes: int, max_pixels: int) -> DecodedImage:
    """Check and decode `data`. Raises ImageError (field `image`) for anything refused."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise ImageError("must be the bytes of an image file")
    data = bytes(data)
    if not data:
        raise ImageError("is empty")
    if len(data) > max_bytes:
        raise ImageError(f"is {len(data):,} bytes; at most {max_bytes:,} are accepted")
    try:
        with warnings.catch_warnings():
            # Pillow warns above its own pixel limit and raises at twice it; our limit is
            # checked below, from the header, before anything is decoded.
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            img = Image.open(io.BytesIO(data))
            fmt = FORMATS.get(img.format or "")
            if fmt is None:
                raise ImageError(
                    f"{img.format or 'this'} images are not accepted (PNG, JPEG, WebP or GIF)"
                )
            width, height = img.size
            if width <= 0 or height <= 0:
                raise ImageError("declares no pixels")
            if width * height > max_pixels:
                raise ImageError(
                    f"declares {width}x{height} pixels ({width * height:,}); at most"
                    f" {max_pixels:,} are decoded (a decompression bomb is refused unread)"
                )
            frames = int(getattr(img, "n_frames", 1) or 1)
            taken = taken_at(img)
            position = gps_position(img)
            img.seek(0)
            picture = _rgb(img)
    except ImageError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise ImageError("is a decompression bomb (far more pixels than bytes); refused") from None
    except UnidentifiedImageError:
        raise ImageError("is not an image Pillow can read (PNG, JPEG, WebP or GIF)") from None
    except (OSError, ValueError, SyntaxError, EOFError) as e:
        raise ImageError(f"could not be decoded: {str(e)[:120]}") from None
    return DecodedImage(
        data=data,
        sha256=hashlib.sha256(data).hexdigest(),
        format=fmt,
        width=width,
        height=height,
        taken_at=taken,
        frames=frames,
        picture=picture,
        gps=position,
    )


def _rgb(img: Image.Image) -> Image.Image:
    """The frame as RGB; transparency over white, as a screenshot or a sticker is seen."""
    img.load()
    if img.mode in ("RGBA", "LA") or (img.mode == "P" and "transparency" in img.info):
        rgba = img.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        return Image.alpha_composite(white, rgba).convert("RGB")
    return img.convert("RGB")


def taken_at(img: Image.Image) -> datetime | None:
    """EXIF DateTimeOriginal (with OffsetTimeOriginal when given, else read as UTC): when the
    picture was taken, which is when the memory happened. Unreadable EXIF is no time."""
    try:
        exif = img.getexif().get_ifd(_EXIF_IFD)
    except Exception:  # noqa: BLE001 - broken EXIF is common and never fatal
        return None
    raw = exif.get(_DATETIME_ORIGINAL)
    if not isinstance(raw, str):
        return None
    try:
        when = datetime.strptime(raw.strip().rstrip("\x00"), "%Y:%m:%d %H:%M:%S")
    except ValueError:
        return None
    return when.replace(tzinfo=_offset(exif.get(_OFFSET_TIME_ORIGINAL)))


def _offset(raw: object) -> timezone:
    """'+08:00' as a timezone; anything else is UTC."""
    if isinstance(raw, str) and len(raw.strip()) == 6 and raw.strip()[0] in "+-":
        text = raw.strip()
        try:
            minutes = int(text[1:3]) * 60 + int(text[4:6])
        except ValueError:
            return UTC
        return timezone(timedelta(minutes=minutes if text[0] == "+" else -minutes))
    return UTC


__all__ = ["FORMATS", "MIME", "SHA_KEY", "DecodedImage", "decode", "taken_at"]
