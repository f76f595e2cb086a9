"""The checkpoint of an import: how far an interrupted `graphmem import` got, so the next run
of the same import starts there instead of at the first record.

One file per (format, user, source) under `<data_dir>/import/`, named by a hash of the three:
the source's own digest (graphmem-v1's manifest, the bytes of a peer's export file), so a
source that changed since starts afresh instead of skipping records that are not the ones
done. It holds that key, then one line per committed batch: a part of the source (a file of
the export, or `records`) and how many of its records are done. A line is appended after its
batch is committed, so a run killed between the two redoes one batch at most, and an import
is idempotent (ids, import ids), so a batch redone writes nothing twice. The file holds no
text of the user's; it is removed when the import completes.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any


def source_digest(location: str | Path) -> str:
    """What names a source for its checkpoint: the sha256 of a file's bytes, of a folder's
    files (relative names and contents, in name order), or of an address (a database read
    over Bolt has no bytes to hash; its checkpoint is kept per address)."""
    path = Path(location)
    h = hashlib.sha256()
    if path.is_file():
        _feed(h, path)
    elif path.is_dir():
        for f in sorted(p for p in path.rglob("*") if p.is_file()):
            h.update(str(f.relative_to(path)).encode("utf-8", "surrogatepass") + b"\0")
            _feed(h, f)
    else:
        h.update(str(location).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _feed(h: Any, path: Path) -> None:
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)


class Checkpoint:
    """How many records of each part of one source earlier runs finished."""

    def __init__(self, path: Path, key: str, done: dict[str, int]) -> None:
        self.path = path
        self.key = key
        self._done = done

    @classmethod
    def open(
        cls, data_dir: Path, fmt: str, user_id: str, digest: str, *, restart: bool = False
    ) -> Checkpoint:
        """The checkpoint of this import, or a fresh one (with `restart`, or when none was
        left, or when the one found is of another source: the key on its first line)."""
        key = hashlib.sha256(json.dumps([fmt, user_id, digest]).encode("utf-8")).hexdigest()
        path = Path(data_dir) / "import" / f"{key[:24]}.ckpt"
        done: dict[str, int] = {}
        try:
            lines = [] if restart else path.read_text("utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            lines = []
        if lines and lines[0] == key:
            for ln in lines[1:]:
                part, _, n = ln.rpartition(" ")
                if part and n.isdigit():  # a torn last line is ignored: that batch is redone
                    done[part] = max(done.get(part, 0), int(n))
            return cls(path, key, done)
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        path.write_text(key + "\n", "utf-8")
        return cls(path, key, {})

    def done(self, part: str) -> int:
        """How many records of `part` are finished (0: none)."""
        return self._done.get(part, 0)

    @property
    def resumed(self) -> int:
        """Records an earlier run finished, all parts together."""
        return sum(self._done.values())

    def advance(self, part: str, upto: int) -> None:
        """The first `upto` records of `part` are committed."""
        if upto <= self._done.get(part, 0):
            return
        self._done[part] = upto
        with self.path.open("a", encoding="utf-8") as f:
            f.write(f"{part} {upto}\n")

    def finish(self) -> None:
        """The import completed: nothing is left to resume."""
        self.path.unlink(missing_ok=True)


__all__ = ["Checkpoint", "source_digest"]
