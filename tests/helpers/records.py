"""Memories written straight into a records store."""

from __future__ import annotations

from graphmem.domain.model import Memory, new_id
from graphmem.domain.text import search_text
from graphmem.stores.records import RecordsStore


def mem(user: str, content: str, **kw: object) -> Memory:
    return Memory(id=new_id(), user_id=user, content=content, **kw)  # type: ignore[arg-type]


def put(records: RecordsStore, *ms: Memory) -> list[Memory]:
    records.insert(list(ms), [search_text(m.content) for m in ms])
    return list(ms)
