"""The image methods of the Python client: store an image as a memory, read its bytes back.

Embedded, the bytes go to MemoryService.write_image; remote, as base64 to the
memory_write_image tool, and they come back from the image://{memory_id} resource, whose
tenant check is the server's. An image given by URL is fetched where the store is (by the
embedded service, or by the server), under that side's URL rules. Like the document methods,
these are mixins of graphmem.client's MemoryClient and AsyncMemoryClient.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from graphmem.client.ops import Call, Op, R, resolve_user
from graphmem.errors import InvalidInputError

ImageInput = str | os.PathLike[str] | bytes


def _bytes_of(image: Any) -> bytes:
    """The image as bytes, read here from a local path, so a remote server never reads one of
    its own files for the caller. The server checks the limits again."""
    if isinstance(image, bytes | bytearray | memoryview):
        return bytes(image)
    if isinstance(image, str | os.PathLike):
        path = Path(image).expanduser()
        try:
            return path.read_bytes()
        except OSError as e:
            raise InvalidInputError("image", f"could not read {str(path)[:200]!r}: {e}") from None
    raise InvalidInputError("image", "must be a path to an image file or its bytes")


def add_image(
    image: Any,
    *,
    caption: str | None,
    user_id: str | None,
    memory_type: str | None,
    metadata: dict[str, Any] | None,
    session_id: str | None,
    url: str | None = None,
    page: int | None = None,
) -> Op[dict[str, Any]]:
    if (image is None) == (url is None):
        raise InvalidInputError("image", "give the image (a path or its bytes) or its url")
    ident = yield Call("identity")
    user = resolve_user(user_id, ident)
    args: dict[str, Any] = {
        "user_id": user,
        "image": _bytes_of(image) if image is not None else None,
        **({"url": url} if url is not None else {}),
        **({"page": page} if page is not None else {}),
        "caption": caption,
        "memory_type": memory_type or "fact",
        **({"metadata": metadata} if metadata is not None else {}),
        **({"session_id": session_id} if session_id is not None else {}),
    }
    rec = yield Call("write_image", args)
    return dict(rec)


def get_image(memory_id: str, *, user_id: str | None, thumbnail: bool) -> Op[tuple[bytes, str]]:
    ident = yield Call("identity")
    user = resolve_user(user_id, ident)
    if not isinstance(memory_id, str) or not memory_id.strip():
        raise InvalidInputError("memory_id", "must be a non-empty string")
    got = yield Call("image", {"user_id": user, "memory_id": memory_id, "thumbnail": thumbnail})
    return bytes(got[0]), str(got[1])


def _save(data: bytes, mime: str, memory_id: str, path: str | os.PathLike[str]) -> Path:
    target = Path(path).expanduser()
    if target.is_dir():
        target = target / f"{memory_id}.{mime.split('/', 1)[1]}"
    target.write_bytes(data)
    return target


class ImageMethods:
    """The image methods of graphmem.client.MemoryClient (see docs/images.md)."""

    def _run(self, op: Op[R]) -> R:
        raise NotImplementedError

    def add_image(
        self,
        image: ImageInput | None = None,
        caption: str | None = None,
        *,
        url: str | None = None,
        page: int | None = None,
        user_id: str | None = None,
        memory_type: str | None = None,
        metadata: dict[str, Any] | None = None,
        session_id: str | None = None,
    ) -> dict[str, Any]:
        """Store an image (a local path or its bytes, or `url`: an http(s) URL the store
        fetches) as one memory of kind image: the caption and the text read in it become
        searchable. A PDF is one image memory a page, or only `page` (1-based). Returns the
        memory as a dict (a PDF's first page, with `pages`: every page's memory_id, page,
        status and ocr, when it had several)."""
        return self._run(
            add_image(
                image,
                caption=caption,
                user_id=user_id,
                memory_type=memory_type,
                metadata=metadata,
                session_id=session_id,
                url=url,
                page=page,
            )
        )

    def get_image(
        self, memory_id: str, *, user_id: str | None = None, thumbnail: bool = False
    ) -> tuple[bytes, str]:
        """An image memory's bytes (or thumbnail) and MIME type."""
        return self._run(get_image(memory_id, user_id=user_id, thumbnail=thumbnail))

    def save_image(
        self,
        memory_id: str,
        path: str | os.PathLike[str],
        *,
        user_id: str | None = None,
        thumbnail: bool = False,
    ) -> Path:
        """Write an image memory's image to `path` (a folder: named by its id)."""
        data, mime = self.get_image(memory_id, user_id=user_id, thumbnail=thumbnail)
        return _save(data, mime, memory_id, path)


class AsyncImageMethods:
    """ImageMethods as coroutines, for graphmem.client.AsyncMemoryClient."""

    async def _run(self, op: Op[R]) -> R:
        raise NotImplementedError

    async def add_image(
        self,
        image: ImageInput | None = None,
        caption: str | None = None,
        *,
        url: str | None = None,
        page: int | None = None,
        user_id: str | None = None,
        memory_type: str | None = None,
        metadata: dict[str, Any] | None = None,
        session_id: str | None = None,
    ) -> dict[str, Any]:
        return await self._run(
            add_image(
                image,
                caption=caption,
                user_id=user_id,
                memory_type=memory_type,
                metadata=metadata,
                session_id=session_id,
                url=url,
                page=page,
            )
        )

    async def get_image(
        self, memory_id: str, *, user_id: str | None = None, thumbnail: bool = False
    ) -> tuple[bytes, str]:
        return await self._run(get_image(memory_id, user_id=user_id, thumbnail=thumbnail))


__all__ = ["AsyncImageMethods", "ImageMethods", "add_image", "get_image"]
