"""A records row becomes a Memory through fast paths (graphmem.stores.records.base): the text
SQLite's datetimes are written as, empty metadata, enum members from a dict. Each gives what
the plain decoding gives, and anything else still goes the plain way, errors included."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from graphmem import MemoryService
from graphmem.domain.model import MemoryType
from graphmem.stores.records.base import SQLBase, _member

TEXTS = [
    "2025-03-01 12:34:56.123456",  # what the SQLite adapter writes
    "2025-03-01 12:34:56.000000",
    "2025-03-01 12:34:56",
    "2025-03-01T12:34:56.123456",
    "2025-03-01 12:34:56+02:00",
    "2025-03-01 12:34:56.1+02:00",
    "2025-03-01 12:34:56.12345 ",  # 26 characters, not a time
    "2025-03-01 24:00:00.000000",
    "2025-02-30 10:00:00.000000",
    "2025-03-01",
    "2025-03-01T10:00:00Z",
    "not a date at all, though 26",
]


def _plain(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value.replace(tzinfo=UTC)


def _outcome(fn: Any, value: Any) -> Any:
    try:
        out = fn(value)
    except ValueError as e:
        return ("ValueError", str(e))
    return out if out is None else (out, out.isoformat(), out.tzinfo)


@pytest.mark.parametrize("text", TEXTS)
def test_datetimes_decode_as_they_always_did(text: str) -> None:
    assert _outcome(SQLBase()._dt_out, text) == _outcome(_plain, text)


def test_datetime_objects_and_none_pass_as_before() -> None:
    base = SQLBase()
    naive = datetime(2025, 3, 1, 12, 0)
    assert base._dt_out(naive) == naive.replace(tzinfo=UTC)
    aware = datetime(2025, 3, 1, 12, 0, tzinfo=timezone(timedelta(hours=2)))
    assert base._dt_out(aware).isoformat() == "2025-03-01T12:00:00+00:00"  # type: ignore[union-attr]
    assert base._dt_out(None) is None


def test_metadata_and_enums() -> None:
    base = SQLBase()
    first, second = base._json_out("{}"), base._json_out("{}")
    assert first == {} and first is not second  # a fresh dict each time, as json.loads gives
    assert base._json_out('{"a": [1, "b"]}') == {"a": [1, "b"]}
    assert base._json_out(None) is None
    members = {m.value: m for m in MemoryType}
    assert _member(members, MemoryType, "event") is MemoryType.EVENT
    with pytest.raises(ValueError):
        _member(members, MemoryType, "no such type")


def test_a_stored_memory_reads_back_the_same(svc: MemoryService) -> None:
    plain = svc.write("u", "I moved to Lisbon in May.")
    tagged = svc.write("u", "My cat is called Miso.", metadata={"source": "chat", "n": 2})
    got = svc.records.get("u", [plain.id, tagged.id])
    for m in (plain, tagged):
        row = svc.records._fetch(
            "SELECT created_at, updated_at, metadata FROM memories WHERE id = ?", (m.id,)
        )[0]
        assert got[m.id].created_at == _plain(row[0]) and got[m.id].updated_at == _plain(row[1])
        assert got[m.id].created_at.tzinfo is UTC
        assert got[m.id].metadata == json.loads(row[2])
    assert got[tagged.id].metadata == {"source": "chat", "n": 2}
