"""bench/store_bytes.py: every byte of a store lands in one part, and per memory adds up."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.embedding import Embedder

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import store_bytes  # noqa: E402

from tests.helpers.bench import TEXTS as SAMPLE_TEXTS

TEXTS = SAMPLE_TEXTS[:6]  # the same real-sounding memories the build_store test writes


@pytest.fixture
def store(tmp_path: Path, embedder: Embedder) -> Path:
    data = tmp_path / "store"
    svc = MemoryService(Settings(data_dir=data), embedder=embedder)
    try:
        svc.write_many("u1", [{"content": t} for t in TEXTS])
    finally:
        svc.close()
    return data


def test_embedded_store_every_page_counted_once(store: Path) -> None:
    report = store_bytes.measure_embedded(store)
    con = sqlite3.connect(f"file:{store / store_bytes.DB}?mode=ro", uri=True)
    try:
        (n_mem,) = con.execute("SELECT count(*) FROM memories").fetchone()
        (n_rel,) = con.execute("SELECT count(*) FROM memory_relations").fetchone()
        (page_size,) = con.execute("PRAGMA page_size").fetchone()
        (pages,) = con.execute("PRAGMA page_count").fetchone()
        (free,) = con.execute("PRAGMA freelist_count").fetchone()
    finally:
        con.close()
    assert (report.memories, report.relations) == (n_mem, n_rel) == (len(TEXTS), n_rel)
    sqlite_bytes = sum(i.bytes for i in report.items if i.part != "vectors")
    assert sqlite_bytes == (pages - free) * page_size
    by_name = {i.name: i for i in report.items}
    # the full-text index's shadow tables are the keyword part, not "other"
    assert by_name["memories_fts_data"].part == "keyword"
    assert by_name["ix_relations_source_rank"].part == "relations"
    assert by_name["ix_memories_user_status_created"].part == "records"
    assert by_name["memories"].rows == len(TEXTS)
    assert by_name["vector_storage"].part == "vectors"
    assert by_name["vector_storage"].bytes > 0
    out = store_bytes.render(report)
    assert f"{len(TEXTS)} memories" in out
    assert "| **keyword** |" in out


def test_cli_prints_the_table(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    json_out = store.parent / "bytes.json"
    assert store_bytes.main([str(store), "--json", str(json_out)]) == 0
    printed = capsys.readouterr().out
    assert "| part | object | kind |" in printed
    assert '"memories": 6' in json_out.read_text()


def test_not_a_store_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="not an embedded graphmem store"):
        store_bytes.measure_embedded(tmp_path)


@pytest.mark.services
def test_copy_into_mysql_keeps_rows_and_measures_them(store: Path) -> None:
    from tests.helpers.services import fresh_mysql_database

    with fresh_mysql_database() as url:
        copied = store_bytes.copy_to_mysql(store, url, limit=4)
        assert copied["memories"] == 4
        report = store_bytes.measure_mysql(url, analyze=True, datadir=None)
        assert report.memories == 4
        src = sqlite3.connect(f"file:{store / store_bytes.DB}?mode=ro", uri=True)
        try:
            (kept_rel,) = src.execute(
                "SELECT count(*) FROM memory_relations WHERE source_memory_id IN (SELECT id FROM"
                " memories ORDER BY doc_id LIMIT 4) AND target_memory_id IN (SELECT id FROM"
                " memories ORDER BY doc_id LIMIT 4)"
            ).fetchone()
        finally:
            src.close()
        assert report.relations == copied["memory_relations"] == kept_rel
        assert copied["keyword_df"] > 0
        mem = [i for i in report.items if i.name == "memories"]
        assert {i.kind for i in mem} == {"rows (clustered index)", "secondary indexes"}
        assert all(i.bytes > 0 for i in mem)


@pytest.mark.services
def test_redis_keys_by_kind() -> None:
    import uuid

    import redis

    from tests.helpers.services import service_url

    url = service_url("GRAPHMEM_TEST_REDIS_URL")
    prefix = f"graphmem-test:{uuid.uuid4().hex[:8]}:"
    client = redis.Redis.from_url(url)
    try:
        client.hset(f"{prefix}sc:u1", mapping={"q1": "x" * 1000, "q2": "y" * 1000})
        client.set(f"{prefix}wm:u1:s1", "z" * 300)
        client.set(f"{prefix}wm:u2:s1", "z" * 300)
        report = store_bytes.measure_redis(url, prefix)
    finally:
        for key in client.scan_iter(match=f"{prefix}*"):
            client.delete(key)
        client.close()
    by_kind = {i.kind: i for i in report.items}
    assert set(by_kind) == {"search cache", "working memory"}
    assert by_kind["working memory"].rows == 2
    assert by_kind["search cache"].rows == 1
    assert by_kind["search cache"].bytes > 2000
    assert "| redis |" in store_bytes.render(report)
