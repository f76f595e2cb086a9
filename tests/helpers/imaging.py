"""Images the image tests render at run time with Pillow (nothing binary is committed): lines of
text in a font for their script, on a plain background, as PNG, JPEG, WebP or GIF bytes."""

from __future__ import annotations

import io
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from PIL import ExifTags, Image, ImageDraw, ImageFont
from PIL.TiffImagePlugin import IFDRational

if TYPE_CHECKING:
    from graphmem import MemoryService

LATIN_FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
CJK_FONT = Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")  # Debian fonts-wqy-microhei


def needs_ocr() -> None:
    """Skip nothing silently: the test command installs these (scripts/ocr.sh)."""
    missing = [
        what
        for what, ok in (
            ("tesseract", shutil.which("tesseract") is not None),
            ("the CJK font", CJK_FONT.exists()),
        )
        if not ok
    ]
    if missing:
        pytest.fail(f"run scripts/ocr.sh first: missing {', '.join(missing)}")


def image_files(svc: MemoryService) -> list[Path]:
    """The image files of an embedded service's default store (not its id-hash key)."""
    root = Path(svc.settings.data_dir) / "images"
    return sorted(p for p in root.rglob("*") if p.is_file() and p.name != "id-hash.key")


def font(cjk: bool, size: int) -> ImageFont.FreeTypeFont:
    path = CJK_FONT if cjk else LATIN_FONT
    if not path.exists():  # DejaVu comes with fontconfig on Debian; the CJK font with ocr.sh
        path = CJK_FONT
    return ImageFont.truetype(str(path), size)


def render(
    lines: list[str],
    *,
    cjk: bool = False,
    size: tuple[int, int] = (1000, 400),
    fmt: str = "PNG",
    text_px: int = 36,
    exif: Image.Exif | None = None,
) -> bytes:
    """`lines` drawn black on white, one under another, saved as `fmt`."""
    img = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(img)
    f = font(cjk, text_px)
    for i, line in enumerate(lines):
        draw.text((40, 40 + i * int(text_px * 1.7)), line, fill="black", font=f)
    buf = io.BytesIO()
    kwargs = {"exif": exif} if exif is not None else {}
    img.save(buf, format=fmt, **kwargs)
    return buf.getvalue()


def png_bomb(side: int = 20_000) -> bytes:
    """A small PNG that declares side x side pixels: a decompression bomb."""
    buf = io.BytesIO()
    Image.new("1", (side, side), 0).save(buf, format="PNG", optimize=True)
    return buf.getvalue()


def dms(degrees: float) -> tuple[IFDRational, IFDRational, IFDRational]:
    """Unsigned decimal degrees as EXIF's three rationals: degrees, minutes, seconds/100."""
    d = abs(degrees)
    whole = int(d)
    minutes = int((d - whole) * 60)
    hundredths = round(((d - whole) * 60 - minutes) * 60 * 100)
    return IFDRational(whole), IFDRational(minutes), IFDRational(hundredths, 100)


def gps_exif(lat: float, lon: float, **raw: object) -> Image.Exif:
    """EXIF with a GPS IFD (tag 0x8825) for signed decimal degrees, as a phone writes it:
    GPSLatitudeRef N/S, GPSLatitude, GPSLongitudeRef E/W, GPSLongitude. `raw` overrides a GPS
    tag by its name in Pillow's GPSTAGS (e.g. GPSLatitudeRef="X") to write a broken block."""
    exif = Image.Exif()
    gps = exif.get_ifd(ExifTags.IFD.GPSInfo)
    gps[ExifTags.GPS.GPSLatitudeRef] = "N" if lat >= 0 else "S"
    gps[ExifTags.GPS.GPSLatitude] = dms(lat)
    gps[ExifTags.GPS.GPSLongitudeRef] = "E" if lon >= 0 else "W"
    gps[ExifTags.GPS.GPSLongitude] = dms(lon)
    for name, value in raw.items():
        tag = ExifTags.GPS[name]
        if value is None:
            del gps[tag]
        else:
            gps[tag] = value
    return exif
