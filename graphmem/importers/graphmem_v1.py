"""graphmem-v1: graphmem's open export format, a folder of JSON-lines files and a manifest.

Kept apart from the peer adapters because it is not read into normalised records and written
as new memories: it is a restore, ids, versions and timestamps kept, so that export -> import
-> export gives the same bytes (graphmem.usecases.export_v1 writes it,
graphmem.usecases.restore_v1 reads it back). This module is the format alone: the file names,
how a line is encoded, and reading a folder back with its manifest checked, so the writer and
the reader cannot disagree. docs/export-format.md describes every field.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphmem.errors import InvalidInputError

NAME = "graphmem-v1"
VERSION = 2
"""2 added images.jsonl and the images/ folder; a version-1 folder (no images) is still read."""
MANIFEST = "manifest.json"
MEMORIES = "memories.jsonl"
CHUNKS = "chunks.jsonl"
DOCUMENTS = "documents.jsonl"
ENTITIES = "entities.jsonl"
RELATIONS = "relations.jsonl"
QUARANTINE = "quarantine.jsonl"
IMAGES = "images.jsonl"
FILES = (MEMORIES, CHUNKS, IMAGES, DOCUMENTS, ENTITIES, RELATIONS, QUARANTINE)
"""Every data file, in the order an import reads them: records before the entities and
relations that point at them. documents.jsonl and quarantine.jsonl are indexes derived from
the records (a reader may skip them); the import checks them and writes nothing from them."""
OPTIONAL = frozenset((IMAGES,))
"""Files a version-1 export does not have: read as empty when its manifest does not name them."""
IMAGE_DIR = "images"
IMAGE_FILE = re.compile(r"^images/([0-9a-f]{64})\.(png|jpeg|webp|gif)$")
"""An image's bytes in an export: `images/<sha256>.<ext>`, named by their own digest. A name
in the manifest that is not of this form is refused, so no entry can point outside the folder."""
MAX_LINE_BYTES = 4 << 20
"""One record: a memory is at most 8000 characters and 16 KiB of metadata, a chunk a little
more; an entity line lists the ids of every memory naming it, so it gets the most room."""


def line(obj: dict[str, Any]) -> str:
    """One record as the format writes it: compact JSON, keys sorted, UTF-8 unescaped, so the
    same record is always the same bytes whatever order its dict was built in."""
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def manifest_text(manifest: dict[str, Any]) -> str:
    return json.dumps(manifest, ensure_ascii=False, sort_keys=True, indent=2) + "\n"


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@dataclass(frozen=True)
class Source:
    """An export folder whose manifest was read and whose files match it."""

    root: Path
    manifest: dict[str, Any]
    digest: str
    """sha256 of the manifest's bytes: it names every file's digest, so it names the whole
    export (what an import's checkpoint is keyed by)."""

    def records(self, name: str) -> int:
        entry = self.manifest["files"].get(name)
        return int(entry["records"]) if entry else 0

    def image_path(self, sha: str) -> Path | None:
        """The checked file holding the image with this sha256, if the export carries it (an
        export with --redact may leave an image's bytes out: docs/export-format.md)."""
        for name in self.manifest.get("image_files") or {}:
            match = IMAGE_FILE.match(name)
            if match and match.group(1) == sha:
                return self.root / name
        return None

    def read(self, name: str, after: int = 0) -> Iterator[tuple[int, dict[str, Any] | str]]:
        """(line number, object) of one file, from line `after + 1`; a line that is not a JSON
        object comes back as the message saying why, for the caller to report. A file the
        manifest does not name (images.jsonl of a version-1 export) has no lines."""
        if name not in self.manifest["files"]:
            return
        with (self.root / name).open("rb") as f:
            for n, raw in enumerate(f, 1):
                if n <= after:
                    continue
                yield n, _decode(raw)


def _decode(raw: bytes) -> dict[str, Any] | str:
    if len(raw) > MAX_LINE_BYTES:
        return f"is longer than the limit of {MAX_LINE_BYTES} bytes"
    try:
        obj = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return "is not UTF-8"
    except (ValueError, RecursionError):
        return "is not JSON"
    return obj if isinstance(obj, dict) else "must be a JSON object"


def open_source(location: str | Path) -> Source:
    """The export folder at `location`, its manifest and every file's sha256 checked first: a
    truncated copy or an edited file is refused before anything is written."""
    root = Path(location)
    path = root / MANIFEST
    if not path.is_file():
        raise InvalidInputError("source", f"{str(root)[:200]} has no {MANIFEST}: not a {NAME}")
    raw = path.read_bytes()
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise InvalidInputError(MANIFEST, "is not JSON") from None
    if not isinstance(manifest, dict) or manifest.get("format") != NAME:
        raise InvalidInputError(MANIFEST, f"format: is not {NAME}")
    version = manifest.get("format_version")
    if not isinstance(version, int) or not 1 <= version <= VERSION:
        raise InvalidInputError(
            MANIFEST, f"format_version: {version!r} is not one this graphmem reads (1..{VERSION})"
        )
    files = manifest.get("files")
    if not isinstance(files, dict):
        raise InvalidInputError(MANIFEST, "files: must be an object")
    for name in FILES:
        entry = files.get(name)
        if entry is None and name in OPTIONAL:
            continue
        if not isinstance(entry, dict) or not isinstance(entry.get("records"), int):
            raise InvalidInputError(MANIFEST, f"files.{name}: is missing")
        if not (root / name).is_file():
            raise InvalidInputError(name, "is missing from the export folder")
        if sha256_file(root / name) != entry.get("sha256"):
            raise InvalidInputError(
                name, "does not match the sha256 in the manifest: the file changed since export"
            )
    _check_images(root, manifest.get("image_files"))
    return Source(root, manifest, hashlib.sha256(raw).hexdigest())


def _check_images(root: Path, entries: Any) -> None:
    """Every image file the manifest names: a name of the form images/<sha256>.<ext>, present,
    and its bytes hashing to that sha256 (checked before anything is written, as the data
    files are)."""
    if entries is None:
        return
    if not isinstance(entries, dict):
        raise InvalidInputError(MANIFEST, "image_files: must be an object")
    for name, entry in entries.items():
        match = IMAGE_FILE.match(str(name))
        if match is None:
            raise InvalidInputError(
                MANIFEST, f"image_files: {str(name)[:100]!r} is not images/<sha256>.<ext>"
            )
        if not isinstance(entry, dict) or entry.get("sha256") != match.group(1):
            raise InvalidInputError(MANIFEST, f"image_files.{name}: sha256 is not its name's")
        path = root / name
        if not path.is_file():
            raise InvalidInputError(name, "is missing from the export folder")
        if sha256_file(path) != match.group(1):
            raise InvalidInputError(
                name, "does not match the sha256 in the manifest: the file changed since export"
            )


__all__ = [
    "CHUNKS",
    "DOCUMENTS",
    "ENTITIES",
    "FILES",
    "IMAGES",
    "IMAGE_DIR",
    "IMAGE_FILE",
    "MANIFEST",
    "MEMORIES",
    "NAME",
    "OPTIONAL",
    "QUARANTINE",
    "RELATIONS",
    "VERSION",
    "Source",
    "line",
    "manifest_text",
    "open_source",
    "sha256_file",
]
