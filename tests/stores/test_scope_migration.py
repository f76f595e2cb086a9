"""A store written before scopes and filters existed opens into one that has them: the
records gain agent_id and run_id (ALTER TABLE, in place), and the vector points gain the payload
a filtered search matches on, rewritten from the records once, without re-embedding."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.domain.filters import MemoryFilter
from graphmem.embedding import Embedder
from graphmem.stores.records.mysql import MySQLRecords
from graphmem.stores.vectors import VectorFilter, VectorPoint
from graphmem.usecases.backfill import PAYLOAD_META, PAYLOAD_VERSION


def _age_vectors(svc: MemoryService, user: str) -> None:
    """Rewrite the user's points as graphmem before payload version 2 wrote them."""
    rows = svc.records.list(svc_query(user))
    have = svc.vectors.vectors([m.id for m in rows])
    svc.vectors.upsert([
        VectorPoint(m.id, have[m.id], m.user_id, m.memory_type.value, m.status.value,
                    m.created_at.timestamp(), m.session_id)
        for m in rows
    ])
    with svc.records._tx() as cur:  # noqa: SLF001 - the store as an older version left it
        cur.execute(svc.records._q("DELETE FROM store_meta WHERE name = ?"), (PAYLOAD_META,))  # noqa: SLF001


def _by_source(svc: MemoryService, source: str) -> list[str]:
    """The vector channel alone, filtered by source."""
    vec = svc.embedder.encode_query("Lisbon flat", "ann")
    flt = VectorFilter("ann", None, ("active",)).narrowed(MemoryFilter.parse(source=source))
    return [h.memory_id for h in svc.vectors.search(vec, flt, 5)]


def svc_query(user: str):  # noqa: ANN201
    from graphmem.stores.records import RecordQuery

    return RecordQuery(user, statuses=("active",))


def _drop_scope_columns_sqlite(path: Path) -> None:
    db = sqlite3.connect(path)
    db.execute("DROP INDEX IF EXISTS ix_memories_user_agent_created")
    db.execute("ALTER TABLE memories DROP COLUMN agent_id")
    db.execute("ALTER TABLE memories DROP COLUMN run_id")
    db.commit()
    db.close()


def _drop_scope_columns_mysql(url: str) -> None:
    store = MySQLRecords(url)
    with store._tx() as cur:  # noqa: SLF001
        cur.execute("ALTER TABLE memories DROP INDEX ix_memories_user_agent_created")
        cur.execute("ALTER TABLE memories DROP COLUMN agent_id, DROP COLUMN run_id")
    store.close()


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("mysql", marks=pytest.mark.services)])
def test_an_old_store_gains_scopes_and_filterable_vectors_on_open(
    backend: str, tmp_path: Path, embedder: Embedder, request: pytest.FixtureRequest
) -> None:
    settings = Settings(data_dir=tmp_path / "data")

    def open_service() -> MemoryService:
        if backend == "sqlite":
            return MemoryService(settings, embedder=embedder)
        url = request.getfixturevalue("mysql_url")
        return MemoryService(settings, embedder=embedder, records=MySQLRecords(url))

    svc = open_service()
    doc = svc.write("ann", "The lease of the Lisbon flat ends in May", "fact", source="document")
    svc.write("ann", "Ann wants a flat with a balcony in Lisbon", "preference")
    svc.drain_outbox()
    _age_vectors(svc, "ann")
    # before the migration: the vector channel cannot see the old points' source
    assert _by_source(svc, "document") == []
    svc.close()
    if backend == "sqlite":
        _drop_scope_columns_sqlite(settings.data_dir / "graphmem.sqlite3")
    else:
        _drop_scope_columns_mysql(request.getfixturevalue("mysql_url"))

    svc = open_service()
    try:
        assert svc.records.meta(PAYLOAD_META) == PAYLOAD_VERSION
        got = svc.get("ann", doc.id)
        assert (got.agent_id, got.run_id) == (None, None)
        assert _by_source(svc, "document") == [doc.id]
        scoped = svc.write("ann", "Ann's agent booked a viewing on Friday", "event",
                           agent_id="scout", run_id="w1")
        assert svc.get("ann", scoped.id).agent_id == "scout"
    finally:
        svc.close()
