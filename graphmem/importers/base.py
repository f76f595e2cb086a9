"""The port every importer adapter implements, and the normalised records it yields.

An adapter only reads: it turns one peer's export (a file, a folder) into these records and
never touches a store. What becomes of them (screening, provenance, idempotency, versions,
relations) is decided once, in graphmem.usecases.imports, so every format is written the same
way. A record the adapter cannot make sense of is yielded as a `BadRecord` naming the record
and the field, and the import reports and skips it instead of stopping.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from graphmem.errors import InvalidInputError


@dataclass
class ImportedMemory:
    """One memory as the peer kept it. `import_id` is the peer's own id (unique within the
    format and the source user), the key that makes a second import find what the first wrote.
    `history` holds the earlier contents, oldest first, which become graphmem versions."""

    import_id: str
    content: str
    memory_type: str = "fact"
    user: str | None = None
    created_at: str | None = None
    valid_from: str | None = None
    valid_to: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    agent_id: str | None = None
    run_id: str | None = None
    session_id: str | None = None
    history: list[str] = field(default_factory=list)

    @property
    def fingerprint(self) -> str:
        """What decides that a record changed since the last import: its text, type, validity
        and the peer's metadata (not graphmem's own provenance keys, which are added later)."""
        return fingerprint(
            [self.content, self.memory_type, self.valid_from, self.valid_to, self.metadata]
        )


@dataclass
class ImportedRelation:
    """A typed relation between two imported memories, by their import ids. `relation_type`
    is one of graphmem's relation types; the peer's own label is kept on the memories."""

    source_id: str
    target_id: str
    relation_type: str = "explicit"
    user: str | None = None


@dataclass
class ImportedNote:
    """A file to ingest as a document (graphmem.usecases.documents), with the notes it links
    to by name (wikilinks), resolved by the use case once every note of the source is known."""

    path: Path
    name: str
    links: list[str] = field(default_factory=list)
    title: str = ""
    user: str | None = None


@dataclass
class ImportedTurn:
    """One message of a conversation, to be passed through the write policy of
    `memory_observe` (graphmem.usecases.turns) with the rest of its conversation."""

    import_id: str
    role: str
    text: str


@dataclass
class ImportedConversation:
    import_id: str
    turns: list[ImportedTurn]
    title: str = ""
    user: str | None = None


@dataclass
class BadRecord:
    """A record the adapter had to skip: where it is and which field is wrong."""

    where: str
    field: str
    message: str

    def line(self) -> str:
        return f"{self.where}: {self.field}: {self.message}"


Record = ImportedMemory | ImportedRelation | ImportedNote | ImportedConversation | BadRecord


class Importer(Protocol):
    """One format: `read` yields the normalised records of a source (a path, or for a
    `remote` format the address of a database), in an order in which every relation comes
    after the memories it joins."""

    name: str
    description: str
    remote: bool

    def read(self, location: str) -> Iterator[Record]: ...


def fingerprint(value: Any) -> str:
    """A short stable digest of JSON-able data."""
    raw = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:24]


MAX_SOURCE_BYTES = 256 << 20
"""The largest single export file read: the peers' exports are whole JSON documents, parsed at
once, so the bound keeps a wrong path (a disk image, /dev/zero) from filling memory."""


def read_text(path: Path) -> str:
    """A source file's text, or one clear InvalidInputError naming it."""
    try:
        if path.stat().st_size > MAX_SOURCE_BYTES:
            raise InvalidInputError(str(path), f"is larger than {MAX_SOURCE_BYTES} bytes")
        with path.open("rb") as f:
            raw = f.read(MAX_SOURCE_BYTES + 1)
    except OSError as e:
        raise InvalidInputError(str(path), f"cannot be read: {e.strerror or e}") from None
    if len(raw) > MAX_SOURCE_BYTES:
        raise InvalidInputError(str(path), f"is larger than {MAX_SOURCE_BYTES} bytes")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidInputError(str(path), "is not UTF-8") from None


def read_json(path: Path) -> Any:
    """A whole-file JSON document, or one clear InvalidInputError naming the file."""
    try:
        return json.loads(read_text(path))
    except json.JSONDecodeError as e:
        raise InvalidInputError(str(path), f"is not JSON (line {e.lineno}: {e.msg})") from None
    except (ValueError, RecursionError):
        raise InvalidInputError(str(path), "is not JSON graphmem can import") from None


def text_field(obj: Any, key: str, where: str) -> str | BadRecord:
    """obj[key] as a non-empty string, or the BadRecord saying why not."""
    if not isinstance(obj, dict):
        return BadRecord(where, "record", "must be a JSON object")
    value = obj.get(key)
    if not isinstance(value, str) or not value.strip():
        return BadRecord(where, key, "must be a non-empty string")
    return value.strip()


__all__ = [
    "BadRecord",
    "ImportedConversation",
    "ImportedMemory",
    "ImportedNote",
    "ImportedRelation",
    "ImportedTurn",
    "Importer",
    "Record",
    "fingerprint",
    "read_json",
    "read_text",
    "text_field",
]
