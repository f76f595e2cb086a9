"""Text in an image, read by Tesseract (Debian's `tesseract-ocr` with the eng and chi_sim data).

Tesseract runs as a child process fed a PNG on stdin: no Python binding to build, the same
binary the operator can run by hand, and a timeout that really stops it. It is called before the
write lock is taken (graphmem.usecases.images), so a slow page never holds up other writes.

OpenMP inside Tesseract spreads one page over every core and spends more CPU than it saves on
small pages, so it runs with OMP_THREAD_LIMIT=1: concurrent writes use the cores instead.
"""

from __future__ import annotations

import io
import logging
import os
import re
import shutil
import subprocess
from dataclasses import dataclass

from PIL import Image, ImageOps, ImageStat

log = logging.getLogger("graphmem.images")

# Tesseract's chi_sim puts a space between most Chinese characters; Chinese text has none.
_CJK = r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]"
_CJK_GAP = re.compile(rf"(?<={_CJK})[ \t]+(?={_CJK})")
_BLANKS = re.compile(r"\n\s*\n+")


@dataclass(frozen=True)
class OcrResult:
    """The text read (possibly empty) and why there is none, when OCR did not run."""

    text: str
    status: str  # "read", "empty", "off", "unavailable", "failed"


def available(command: str) -> bool:
    """Whether the Tesseract command can be found."""
    return shutil.which(command) is not None


def read_text(
    picture: Image.Image, *, command: str, languages: str, timeout: float, max_side: int
) -> OcrResult:
    """The text Tesseract reads in `picture` (RGB), tidied. Never raises: an image without
    readable text, or a machine without Tesseract, is still stored with its caption."""
    if shutil.which(command) is None:
        log.warning("OCR skipped: %r not found (install tesseract-ocr)", command)
        return OcrResult("", "unavailable")
    page = prepare(picture, max_side)
    buf = io.BytesIO()
    page.save(buf, format="PNG", compress_level=1)
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    try:
        done = subprocess.run(
            [command, "stdin", "stdout", "-l", languages, "--psm", "3"],
            input=buf.getvalue(),
            capture_output=True,
            timeout=timeout,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        log.warning("OCR stopped after %.0f s", timeout)
        return OcrResult("", "failed")
    except OSError as e:
        log.warning("OCR could not run: %s", e)
        return OcrResult("", "unavailable")
    if done.returncode != 0:
        log.warning("OCR failed: %s", done.stderr.decode("utf-8", "replace")[-200:].strip())
        return OcrResult("", "failed")
    text = tidy(done.stdout.decode("utf-8", "replace"))
    return OcrResult(text, "read" if text else "empty")


DARK = 110
"""A page whose mean grey is below this is light text on a dark background (a dark-mode
screenshot, a photo of a screen): it is inverted, since Tesseract reads dark text on light."""


def prepare(picture: Image.Image, max_side: int) -> Image.Image:
    """Grayscale, dark pages inverted, scaled down to `max_side` on the longer side, and
    scaled up when small: Tesseract reads glyphs about 20-30 px tall best, and a small
    screenshot's are smaller."""
    page = ImageOps.grayscale(picture)
    if ImageStat.Stat(page).mean[0] < DARK:
        page = ImageOps.invert(page)
    w, h = page.size
    longer = max(w, h)
    if longer > max_side:
        scale = max_side / longer
        page = page.resize(
            (max(1, round(w * scale)), max(1, round(h * scale))), Image.Resampling.LANCZOS
        )
    elif longer < 1000:
        scale = min(2.0, 1000 / longer)
        page = page.resize((round(w * scale), round(h * scale)), Image.Resampling.LANCZOS)
    return page


def tidy(text: str) -> str:
    """Tesseract's output as text: no form feeds, no spaces inside Chinese, no blank runs,
    no lines of stray marks."""
    text = text.replace("\f", "\n")
    lines = []
    for line in text.splitlines():
        line = _CJK_GAP.sub("", line.strip())
        if sum(ch.isalnum() for ch in line) >= 1:
            lines.append(line)
    return _BLANKS.sub("\n", "\n".join(lines)).strip()


__all__ = ["OcrResult", "available", "prepare", "read_text", "tidy"]
