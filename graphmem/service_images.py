"""The images half of MemoryService: write an image as a memory, read its bytes back.

Kept apart from graphmem.service only for size, like service_documents; MemoryService inherits
it, so callers see one API (`svc.write_image(...)`, `svc.image(...)`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graphmem.context import Context
from graphmem.domain.model import Memory
from graphmem.domain.visibility import Viewer
from graphmem.usecases import images
from graphmem.usecases.images import ImageSource


class ImagesAPI:
    context: Context

    def write_image(
        self,
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
        """Store an image (a file path or its bytes: PNG, JPEG, WebP, GIF's first frame, or a
        scanned PDF page; or, instead, an http(s) `url` to fetch it from, docs/images.md) as
        one memory of kind `image`: its content is `caption` and the text OCR reads in it (a
        PDF page's text layer when it has one), screened and indexed like any memory; EXIF
        DateTimeOriginal becomes `created_at` unless given. A PDF of several pages needs
        `page` (1-based): one page is one memory. `fields` are write_many's (metadata,
        source, session_id, ...)."""
        return images.write_image(
            self.context,
            user_id,
            image,
            url=url,
            caption=caption,
            memory_type=memory_type,
            page=page,
            tool=tool,
            **fields,
        )

    def image(
        self,
        user_id: str,
        memory_id: str,
        *,
        thumbnail: bool = False,
        viewer: Viewer = Viewer.AGENT,
    ) -> tuple[bytes, str]:
        """An image memory's bytes (or its thumbnail's) and MIME type; NotFoundError for
        another user's memory, a memory that is no image, or a quarantined one."""
        return images.image_of(self.context, user_id, memory_id, thumbnail=thumbnail, viewer=viewer)

    def save_image(
        self, user_id: str, memory_id: str, path: str | Path, *, thumbnail: bool = False
    ) -> Path:
        """Write an image memory's bytes to `path` (a folder: named by its memory id)."""
        data, mime = self.image(user_id, memory_id, thumbnail=thumbnail)
        target = Path(path).expanduser()
        if target.is_dir():
            target = target / f"{memory_id}.{mime.split('/', 1)[1]}"
        target.write_bytes(data)
        return target
