"""Memories written straight into a records store."""

from __future__ import annotations

from graphmem.model import Memory, new_id
from graphmem.stores.records import RecordsStore
from graphmem.text import search_text


def mem(user: str, content: str, **kw: object) -> Memory:
    return Memory(id=new_id(), user_id=user, content=content, **kw)  # type: ignore[arg-type]


def put(records: RecordsStore, *ms: Memory) -> list[Memory]:
    records.insert(list(ms), [search_text(m.content) for m in ms])
    return list(ms)
