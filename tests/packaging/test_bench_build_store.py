"""bench/build_store.py: copies of a store that real writes built, each with exactly its graph."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.embedding import Embedder

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import build_store  # noqa: E402

from tests.helpers.bench import TEXTS


@pytest.fixture
def source(tmp_path: Path, embedder: Embedder) -> Path:
    """Two users' memories, written through the service: the graph real writes make."""
    src = tmp_path / "src"
    svc = MemoryService(Settings(data_dir=src), embedder=embedder)
    try:
        for user in ("u1", "u2"):
            svc.write_many(user, [{"content": t} for t in TEXTS])
    finally:
        svc.close()
    return src


def rows(store: Path, sql: str) -> list[tuple]:
    con = sqlite3.connect(f"file:{store / 'graphmem.sqlite3'}?mode=ro", uri=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_copies_under_new_users_keep_each_copys_graph(
    source: Path, tmp_path: Path, embedder: Embedder
) -> None:
    out = tmp_path / "out"
    build_store.main(
        ["--source", str(source), "--out", str(out), "--copies", "3", "--shape", "users"]
        + ["--no-progress", "--optimize-every", "1000"]
    )
    n_mem = rows(source, "SELECT count(*) FROM memories")[0][0]
    n_rel = rows(source, "SELECT count(*) FROM memory_relations")[0][0]
    assert n_rel > 0, "the source's writes made no edges"
    assert rows(out, "SELECT count(*) FROM memories")[0][0] == 3 * n_mem
    assert rows(out, "SELECT count(*) FROM memory_relations")[0][0] == 3 * n_rel
    users = {u for (u,) in rows(out, "SELECT DISTINCT user_id FROM memories")}
    assert users == {"u1", "u2", "u1~c1", "u2~c1", "u1~c2", "u2~c2"}
    # every edge joins two memories of its own user, i.e. of its own copy
    crossing = rows(
        out,
        "SELECT count(*) FROM memory_relations r JOIN memories s ON s.id = r.source_memory_id"
        " JOIN memories t ON t.id = r.target_memory_id"
        " WHERE s.user_id != r.user_id OR t.user_id != r.user_id",
    )[0][0]
    assert crossing == 0
    dangling = rows(
        out,
        "SELECT count(*) FROM memory_relations WHERE source_memory_id NOT IN"
        " (SELECT id FROM memories) OR target_memory_id NOT IN (SELECT id FROM memories)",
    )[0][0]
    assert dangling == 0
    wrong_entity = rows(
        out,
        "SELECT count(*) FROM memory_entities me JOIN entities e ON e.id = me.entity_id"
        " WHERE e.user_id != me.user_id",
    )[0][0]
    assert wrong_entity == 0
    df = dict(rows(source, "SELECT term, df FROM keyword_df WHERE user_id = 'u1'"))
    assert dict(rows(out, "SELECT term, df FROM keyword_df WHERE user_id = 'u1~c2'")) == df
    assert (out.parent / "out.build.json").exists()

    svc = MemoryService(Settings(data_dir=out), embedder=embedder)
    try:
        assert svc.vectors.count() == 3 * n_mem
        hits = svc.search("u2~c2", "red bicycle", 3).hits
        assert hits and all(h.memory.user_id == "u2~c2" for h in hits)
        assert all(h.memory.id.endswith("0002") for h in hits)
        assert "bicycle" in hits[0].memory.content
    finally:
        svc.close()


def test_one_user_copies_share_the_users_entities(source: Path, tmp_path: Path) -> None:
    out = tmp_path / "one"
    build_store.main(
        ["--source", str(source), "--out", str(out), "--copies", "2", "--shape", "one-user"]
        + ["--take-per-user", "5", "--no-progress"]
    )
    assert rows(out, "SELECT user_id, count(*) FROM memories GROUP BY 1") == [
        ("u1", 10),
        ("u2", 10),
    ]
    assert (
        rows(out, "SELECT count(*) FROM entities")[0][0]
        == rows(out, "SELECT count(DISTINCT entity_id) FROM memory_entities")[0][0]
    )
    # the statistics of a subset are recounted: a term of a later memory is not there
    terms = {t for (t,) in rows(out, "SELECT term FROM keyword_df WHERE user_id = 'u1'")}
    assert "guitar" not in terms and "lisbon" in terms


def test_bad_arguments_are_refused_plainly(source: Path, tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="at least 1"):
        build_store.main(
            ["--source", str(source), "--out", str(tmp_path / "x")]
            + ["--copies", "0", "--shape", "users"]
        )
    with pytest.raises(SystemExit, match="not an embedded store"):
        build_store.main(
            ["--source", str(tmp_path), "--out", str(tmp_path / "y")]
            + ["--copies", "2", "--shape", "users"]
        )
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "f").write_text("x")
    with pytest.raises(SystemExit, match="not empty"):
        build_store.main(
            ["--source", str(source), "--out", str(tmp_path / "full")]
            + ["--copies", "2", "--shape", "users"]
        )
