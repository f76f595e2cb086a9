"""`mem0`: the JSON of mem0's `Memory.get_all()`, and optionally its SQLite history.

`get_all()` returns `{"results": [...]}` (mem0 1.x and 2.x; a bare list in 0.x) of
`{"id", "memory", "hash", "metadata", "created_at", "updated_at", "user_id", "agent_id",
"run_id"}`. mem0 keeps each change of a memory in the `history` table of its SQLite file
(`~/.mem0/history.db`: `memory_id`, `old_memory`, `new_memory`, `event` ADD / UPDATE / DELETE,
`created_at`); given with `--history`, the contents a memory had before its current one become
graphmem versions of it, oldest first. mem0's `user_id` is the source user (`--map-user`),
its `agent_id` and `run_id` graphmem's scopes of the same names.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from graphmem.errors import InvalidInputError
from graphmem.importers.base import BadRecord, ImportedMemory, Record, read_json, text_field

_SCALARS = (str, int, float, bool)


def history_of(path: Path) -> dict[str, list[str]]:
    """memory id -> its contents before the current one, oldest first, from mem0's history."""
    if not path.is_file():
        raise InvalidInputError(str(path), "is not a file (mem0's history.db was expected)")
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            rows = con.execute(
                "SELECT memory_id, old_memory, new_memory, event FROM history"
                " ORDER BY created_at, rowid"
            ).fetchall()
        finally:
            con.close()
    except sqlite3.Error as e:
        raise InvalidInputError(str(path), f"has no mem0 history table ({e})") from None
    out: dict[str, list[str]] = {}
    for memory_id, old, new, event in rows:
        seen = out.setdefault(str(memory_id), [])
        if str(event).upper() == "UPDATE" and isinstance(old, str) and old.strip():
            if not seen or seen[-1] != old.strip():
                seen.append(old.strip())
        elif str(event).upper() == "ADD" and isinstance(new, str) and not seen:
            seen.append(new.strip())
    return out


class Mem0Importer:
    name = "mem0"
    description = "mem0's get_all() JSON (and its history.db with --history)"
    remote = False

    def __init__(self, history: Path | None = None) -> None:
        self.history = history

    def read(self, location: str) -> Iterator[Record]:
        source = Path(location)
        data = read_json(source)
        rows = data.get("results") if isinstance(data, dict) else data
        if not isinstance(rows, list):
            raise InvalidInputError(
                str(source), "must be mem0's get_all() result: a list or {results}"
            )
        versions = history_of(self.history) if self.history else {}
        for i, row in enumerate(rows):
            yield self._memory(f"results[{i}]", row, versions)

    def _memory(self, where: str, row: Any, versions: dict[str, list[str]]) -> Record:
        mid = text_field(row, "id", where)
        if isinstance(mid, BadRecord):
            return mid
        where = f"{where} (id {mid})"
        content = text_field(row, "memory", where)
        if isinstance(content, BadRecord):
            return content
        meta = row.get("metadata") or {}
        if not isinstance(meta, dict):
            return BadRecord(where, "metadata", "must be an object")
        scopes: dict[str, str | None] = {}
        for key in ("user_id", "agent_id", "run_id"):
            value = row.get(key)
            if value is not None and not isinstance(value, _SCALARS):
                return BadRecord(where, key, "must be a string")
            scopes[key] = str(value) if value not in (None, "") else None
        # mem0 keeps its scopes and its hash in the metadata too; they are fields here
        meta = {k: v for k, v in meta.items() if k not in ("user_id", "agent_id", "run_id")}
        earlier = [v for v in versions.get(mid, []) if v != content]
        return ImportedMemory(
            mid,
            content,
            user=scopes["user_id"],
            created_at=row.get("created_at") or None,
            metadata=meta,
            agent_id=scopes["agent_id"],
            run_id=scopes["run_id"],
            history=earlier,
        )
