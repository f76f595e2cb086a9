"""Writing an image as a memory, reading it back, and removing its files with its memories.

An image memory is an ordinary record of kind `image` whose content is the caption the agent
gave and the text OCR read in the image, so the firewall screens it (text in an image is
untrusted: an instruction rendered into a screenshot is held like a typed one), the extractor
links it to the people and places it names, and the keyword index and the vectors find it. Its
metadata says what graphmem measured: sha256, format, width and height, when it was taken, and
where (EXIF GPS, with the nearest populated place: graphmem.images.places), the place also
named in its content so that search finds it.

OCR, decoding and (with an image-text model, graphmem.images.channel) the image's vector run
before the write lock is taken; only the records commit holds it. The bytes are stored before
the records commit, so a memory never points at missing bytes; a failed write removes the
files again when no other memory of the tenant uses them.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphmem.domain.filters import MemoryFilter, MetaCondition
from graphmem.domain.model import Kind, Memory, check_user
from graphmem.domain.requests import WriteItem
from graphmem.domain.visibility import Viewer
from graphmem.errors import ImageError, InvalidInputError, NotFoundError
from graphmem.images import DecodedImage, ImageStore, OcrResult, decode, read_text
from graphmem.images.decode import SHA_KEY
from graphmem.images.fetch import fetch
from graphmem.images.pdf import PdfPage, is_pdf, pictures, read_page
from graphmem.images.places import nearest_place
from graphmem.stores.records import RecordQuery
from graphmem.usecases.ports import ImagePorts, ImageWritePorts, RecordsPorts
from graphmem.usecases.write import write_many

log = logging.getLogger("graphmem.images")

ImageSource = str | Path | bytes | bytearray | memoryview
"""A path to an image file, or its bytes."""

URL_KEY = "image_url"
SKIPPED = "skipped"
"""`image_ocr` of a PDF page whose text layer gave its text: OCR did not run."""
_EVERY = ("active", "archived", "quarantined", "superseded")


def store_of(ctx: ImagePorts) -> ImageStore:
    """Where the images' bytes live: the data directory, another one or a bucket
    (images.store, graphmem.images.port)."""
    return ctx.images


def load(source: ImageSource, max_bytes: int) -> bytes:
    """The bytes of `source`: read from a path (never more than max_bytes + 1) or as given."""
    if isinstance(source, bytes | bytearray | memoryview):
        return bytes(source)
    if not isinstance(source, str | Path) or not str(source).strip():
        raise ImageError("must be a path to an image file or its bytes")
    path = Path(source).expanduser()
    try:
        with path.open("rb") as f:
            data = f.read(max_bytes + 1)
    except FileNotFoundError:
        raise ImageError(f"no file {str(path)[:200]!r}") from None
    except IsADirectoryError:
        raise ImageError(f"{str(path)[:200]!r} is a folder, not an image file") from None
    except OSError as e:
        raise ImageError(f"could not read {str(path)[:200]!r}: {e.strerror}") from None
    return data


def source_bytes(ctx: RecordsPorts, image: ImageSource | None, url: str | None) -> bytes:
    """The image's bytes: read from a path, as given, or fetched from `url` under the rules of
    graphmem.images.fetch (checked addresses, redirects and bytes limited). Nothing is stored
    until they decoded and were written whole, so a failed fetch leaves nothing behind."""
    s = ctx.settings.images
    if image is not None and url is not None:
        raise InvalidInputError("url", "give the image or its url, not both")
    if url is not None:
        return fetch(
            url,
            max_bytes=s.max_bytes,
            timeout=s.url_timeout_seconds,
            max_redirects=s.url_max_redirects,
            allow_private=s.url_allow_private,
        ).data
    if image is None:
        raise ImageError("give an image (a path to the file or its bytes) or its url")
    return load(image, s.max_bytes)


def picture_of(
    ctx: RecordsPorts, data: bytes, page: int | None
) -> tuple[DecodedImage, PdfPage | None]:
    """The checked picture `data` holds: the image itself, or for a PDF the page's scanned
    picture (the only page, or `page`, 1-based), with the page's text layer
    (graphmem.images.pdf)."""
    s = ctx.settings.images
    if is_pdf(data):
        pdf = read_page(
            data, page, max_bytes=s.max_bytes, max_pixels=s.max_pixels, max_pages=s.pdf_max_pages
        )
        return pdf.image, pdf
    if page is not None:
        raise InvalidInputError("page", "is only for a PDF")
    return decode(data, max_bytes=s.max_bytes, max_pixels=s.max_pixels), None


def compose(
    caption: str, text: str, img: DecodedImage, max_chars: int, place: str = ""
) -> tuple[str, bool]:
    """The memory's content: the caption, the place the photo was taken ('Taken near ...'),
    then the text read in the image, cut to fit the content limit (the caption is never cut;
    the place is left out whole when the caption leaves no room for it). Returns the content
    and whether it was cut."""
    caption = caption.strip()
    if len(caption) > max_chars:
        raise InvalidInputError("caption", f"at most {max_chars} characters")
    head = [p for p in (caption, place.strip()) if p]
    text = text.strip()
    if not caption and not text:
        head.insert(0, f"An image ({img.format}, {img.width}x{img.height}) with no text.")
    fixed = "\n".join(head)
    if len(fixed) > max_chars:  # a caption near the limit leaves no room for the place
        fixed = caption
    content = "\n".join(p for p in (fixed, text) if p)
    if len(content) <= max_chars:
        return content, False
    return content[:max_chars].rstrip(), True


def locate(ctx: RecordsPorts, img: DecodedImage) -> tuple[str, dict[str, object]]:
    """Where the photo was taken, when it says so and images.places is on: the line its
    content carries ('Taken near Hangzhou, Zhejiang, China', empty when no populated place
    lies within images.place_max_km or graphmem[places] is missing) and its metadata (the
    position, and the place when one is named)."""
    s = ctx.settings.images
    if not s.places or img.gps is None:
        return "", {}
    lat, lon = img.gps
    meta: dict[str, object] = {"image_latitude": round(lat, 6), "image_longitude": round(lon, 6)}
    place = nearest_place(lat, lon, s.place_max_km)
    if place is None:
        return "", meta
    meta.update(
        {
            "image_place": place.name,
            "image_place_city": place.city,
            **({"image_place_town": place.town} if place.town else {}),
            **({"image_place_region": place.region} if place.region else {}),
            "image_place_country": place.country,
            "image_place_country_code": place.country_code,
            "image_place_km": place.km,
        }
    )
    return f"Taken near {place.name}", meta


def read_image_text(ctx: ImagePorts, user_id: str, img: DecodedImage) -> OcrResult:
    """The image's text: stored with an earlier copy of it, else read now (outside any lock)."""
    s = ctx.settings.images
    if not s.ocr:
        return OcrResult("", "off")
    cached = store_of(ctx).cached_ocr(user_id, img.sha256)
    if cached is not None:
        return cached
    return read_text(
        img.picture,
        command=s.tesseract,
        languages=s.ocr_languages,
        timeout=s.ocr_timeout_seconds,
        max_side=s.ocr_max_side,
    )


def write_image(
    ctx: ImageWritePorts,
    user_id: str,
    image: ImageSource | None = None,
    caption: str | None = None,
    memory_type: str = "fact",
    *,
    url: str | None = None,
    page: int | None = None,
    tool: str | None = None,
    **fields: Any,
) -> Memory:
    """Store an image (a file path or its bytes: PNG, JPEG, WebP, GIF's first frame, or a PDF;
    or, instead, an http(s) `url` to fetch it from, docs/images.md) as one memory of kind
    `image`: its content is `caption` and the text OCR reads in it (a PDF page's text layer
    when it has one: metadata `image_text_source`), screened and indexed like any memory;
    EXIF DateTimeOriginal becomes `created_at` unless given. A fetched image's URL is its
    provenance (metadata `image_url`). A PDF is one memory a page (`page`, 1-based, picks
    one); this returns the first, write_image_pages all of them. `fields` are write_many's
    (metadata, source, session_id, ...)."""
    pages = write_image_pages(
        ctx, user_id, image, caption, memory_type, url=url, page=page, tool=tool, **fields
    )
    return pages[0]


def write_image_pages(
    ctx: ImageWritePorts,
    user_id: str,
    image: ImageSource | None = None,
    caption: str | None = None,
    memory_type: str = "fact",
    *,
    url: str | None = None,
    page: int | None = None,
    tool: str | None = None,
    **fields: Any,
) -> list[Memory]:
    """write_image, returning every memory written: one for an image, one a page for a PDF
    (in page order; graphmem.images.pdf), all in one batch. Each page is read (rendered, OCR)
    and its files stored before the next is read, so one page's pixels are held at a time."""
    user_id = check_user(user_id)
    s = ctx.settings.images
    if caption is not None and not isinstance(caption, str):
        raise InvalidInputError("caption", "must be a string")
    data = source_bytes(ctx, image, url)
    store = store_of(ctx)
    channel = ctx.image_channel
    items: list[WriteItem | Mapping[str, Any]] = []
    marks: list[dict[str, object]] = []
    added: set[str] = set()
    prepared: list[str] = []
    try:
        for img, pdf in pictures(data, page, s):
            item, described, ocr = _item(ctx, user_id, img, pdf, caption, memory_type, fields)
            if url is not None:
                described[URL_KEY] = str(url).strip()
            # the sidecar keeps what OCR read; a text layer's words are not OCR's: none is kept
            if store.put(user_id, img, None if ocr.status == SKIPPED else ocr, s.thumbnail_side):
                added.add(img.sha256)
            if channel is not None:  # embedded like OCR, before the lock; the projection takes it
                prepared.append(img.sha256)
                channel.prepare(user_id, img)
            items.append(item)
            marks.append(described)
        stamps = iter(marks)

        def stamp(m: Memory) -> None:
            m.kind = Kind.IMAGE
            m.metadata = {**m.metadata, **next(stamps)}

        return write_many(ctx, user_id, items, tool=tool, stamp=stamp)
    except BaseException:
        if added:
            # The process's lock alone, as before, not Context.serialised: write_many released
            # the user's lock when it failed, and the sweep only removes files no record points
            # at, so it need not wait on other replicas before the error goes up.
            with ctx.write_lock:
                sweep(ctx, user_id, added)
        raise
    finally:
        for sha in prepared:
            channel.release(user_id, sha)  # type: ignore[union-attr]


def _item(
    ctx: ImageWritePorts,
    user_id: str,
    img: DecodedImage,
    pdf: PdfPage | None,
    caption: str | None,
    memory_type: str,
    fields: dict[str, Any],
) -> tuple[WriteItem, dict[str, object], OcrResult]:
    """One picture's write: its item (caption, place, text read), the metadata graphmem
    measured, and how its text was read."""
    if pdf is not None and pdf.text:
        ocr = OcrResult(pdf.text, SKIPPED)
    else:
        ocr = read_image_text(ctx, user_id, img)
    place, located = locate(ctx, img)
    content, cut = compose(
        caption or "", ocr.text, img, ctx.settings.writes.max_content_chars, place
    )
    fields = dict(fields)
    if fields.get("created_at") is None and img.taken_at is not None:
        fields["created_at"] = img.taken_at
    item = WriteItem.of({**fields, "content": content, "memory_type": memory_type})
    described = {
        **img.describe(),
        **(pdf.describe() if pdf is not None else {}),
        **located,
        "image_ocr": ocr.status,
        **({"image_text_cut": True} if cut else {}),
    }
    return item, described, ocr


def image_of(
    ctx: ImagePorts,
    user_id: str,
    memory_id: str,
    *,
    thumbnail: bool = False,
    viewer: Viewer = Viewer.AGENT,
) -> tuple[bytes, str]:
    """An image memory's bytes (or thumbnail) and MIME type, for its owner only: another
    user's id, a memory that is no image and a quarantined one are all not found."""
    from graphmem.usecases.read import get

    m = get(ctx, user_id, memory_id, viewer=viewer)
    sha = m.metadata.get(SHA_KEY) if m.kind == Kind.IMAGE else None
    if not isinstance(sha, str):
        raise NotFoundError(memory_id)
    try:
        return store_of(ctx).read(m.user_id, sha, thumbnail=thumbnail)
    except (FileNotFoundError, ValueError):
        raise NotFoundError(memory_id) from None


def save_image(
    ctx: ImagePorts, user_id: str, memory_id: str, path: str | Path, *, thumbnail: bool = False
) -> Path:
    """Write an image memory's bytes to `path` (a folder: named by its memory id)."""
    data, mime = image_of(ctx, user_id, memory_id, thumbnail=thumbnail)
    target = Path(path).expanduser()
    if target.is_dir():
        target = target / f"{memory_id}.{mime.split('/', 1)[1]}"
    target.write_bytes(data)
    return target


def shas_of(memories: list[Memory]) -> set[str]:
    """The images these memories point at."""
    return {
        str(m.metadata[SHA_KEY])
        for m in memories
        if m.kind == Kind.IMAGE and isinstance(m.metadata.get(SHA_KEY), str)
    }


def sweep(ctx: ImagePorts, user_id: str, shas: set[str]) -> int:
    """Remove the files of each image no record of the tenant points at any more (in any
    state: a superseded or held version still shows its image). Call it under the write
    lock, after the records changed; returns the files removed."""
    if not shas:
        return 0
    flt = MemoryFilter(
        kinds=(Kind.IMAGE.value,), metadata=(MetaCondition(SHA_KEY, tuple(sorted(shas))),)
    )
    used = shas_of(ctx.records.list(RecordQuery(user_id, None, _EVERY, None, filter=flt)))
    store = store_of(ctx)
    return sum(store.remove(user_id, sha) for sha in shas - used)


__all__ = [
    "SKIPPED",
    "URL_KEY",
    "ImageSource",
    "compose",
    "image_of",
    "load",
    "locate",
    "picture_of",
    "shas_of",
    "source_bytes",
    "sweep",
    "write_image",
    "write_image_pages",
]
