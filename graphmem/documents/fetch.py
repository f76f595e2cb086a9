"""Documents that are not a single local file: http(s) URLs and folders of files.

Split from graphmem.documents.sources, which reads one file's bytes into a `Document`; this
module decides which bytes to read (a URL's response, every supported file under a folder) and
hands them over.
"""

from __future__ import annotations

import http.client
import os
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

from graphmem.documents.scanned import PageOcr
from graphmem.documents.sources import (
    _CONTENT_TYPES,
    SUPPORTED_SUFFIXES,
    Document,
    _error,
    _suffix,
    load_bytes,
)


def load_url(
    url: str,
    *,
    timeout: float = 20.0,
    max_bytes: int = 50_000_000,
    opener: urllib.request.OpenerDirector | None = None,
    ocr: PageOcr | None = None,
) -> Document:
    """A document from an http(s) URL (redirects followed); its format from the response's
    Content-Type, else the URL's suffix. At most `max_bytes` are read. `opener`: a urllib
    OpenerDirector to fetch with (e.g. one whose redirect handler refuses some hosts). `ocr`:
    how a PDF's scanned pages are read (graphmem.documents.scanned)."""
    scheme = urlsplit(url).scheme.lower()
    if scheme not in ("http", "https"):
        raise _error(url, f"is not an http or https URL (scheme {scheme or 'none'!r})")
    request = urllib.request.Request(url, headers={"User-Agent": "graphmem"})
    try:
        with (opener.open if opener else urllib.request.urlopen)(
            request, timeout=timeout
        ) as response:
            data = response.read(max_bytes + 1)
            content_type = response.headers.get("Content-Type")
            final = response.geturl()
    except urllib.error.HTTPError as exc:
        raise _error(url, f"returned HTTP {exc.code} {exc.reason}") from exc
    except (OSError, ValueError, http.client.HTTPException) as exc:
        reason = getattr(exc, "reason", exc)  # a URLError wraps the socket's error
        if isinstance(reason, TimeoutError):
            raise _error(url, f"did not answer within {timeout:g} s") from exc
        raise _error(url, f"could not be fetched: {reason}") from exc
    if len(data) > max_bytes:
        raise _error(url, f"is larger than the limit of {max_bytes:,} bytes")
    # no usable Content-Type: the suffix of the URL redirected to, else (in load_bytes) the URL's
    media = (content_type or "").split(";")[0].strip().lower()
    fmt = None if media in _CONTENT_TYPES else SUPPORTED_SUFFIXES.get(_suffix(final))
    return load_bytes(data, url, content_type=content_type, fmt=fmt, ocr=ocr)


def discover(folder: str | Path) -> list[Path]:
    """Every supported file under `folder`, recursively, sorted. Hidden files and folders
    (a name starting with ".") are skipped, and so is a symlink that leads outside `folder`:
    ingesting a folder never reads files the user did not put in it."""
    root = Path(folder).expanduser()
    if not root.is_dir():
        what = "no such folder" if not root.exists() else "is not a folder"
        raise _error(str(root.resolve()), what)
    real_root = root.resolve()
    found: list[Path] = []
    seen: set[Path] = set()
    for current, dirs, files in os.walk(root, followlinks=True):
        here = Path(current)
        real = here.resolve()
        if real in seen or not real.is_relative_to(real_root):
            dirs[:] = []  # a link cycle, or a link out of the folder
            continue
        seen.add(real)
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in files:
            file = here / name
            if name.startswith(".") or file.suffix.lower() not in SUPPORTED_SUFFIXES:
                continue
            if file.resolve().is_relative_to(real_root) and file.is_file():
                found.append(file)
    return sorted(found)
