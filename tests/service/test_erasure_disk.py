"""Erasing a user leaves nothing of theirs in any file under the data directory.

Query results going empty is not enough: SQLite keeps deleted rows in free pages, full-text
segments and the write-ahead log, and a vector shard keeps deleted points' payloads in its
segments and WAL. These tests read every byte of every file after the service is closed.
"""

from __future__ import annotations

import stat
import uuid
from pathlib import Path

from graphmem import MemoryService, Settings
from graphmem.domain.text import tokens
from graphmem.embedding import Embedder


def _needles(marker: str) -> list[bytes]:
    """The byte spellings a marker could take on disk: as written, lower-cased, as the keyword
    index's tokens, and in UTF-16 (either byte order)."""
    forms = {marker.lower(), *tokens(marker)}
    out: list[bytes] = []
    for form in forms:
        out += [form.encode(), form.encode("utf-16-le"), form.encode("utf-16-be")]
    return out


def _files_holding(data_dir: Path, marker: str) -> list[str]:
    needles = _needles(marker)
    found = []
    for path in sorted(p for p in data_dir.rglob("*") if p.is_file()):
        blob = path.read_bytes().lower()
        if any(n in blob for n in needles):
            found.append(str(path.relative_to(data_dir)))
    return found


def _marker(prefix: str) -> str:
    # letters only after the prefix, so stemming and tokenising keep it one recognisable word
    return prefix + "".join(chr(ord("a") + int(c, 16)) for c in uuid.uuid4().hex[:12])


def test_erase_leaves_no_byte_of_the_user_in_any_file(tmp_path: Path, embedder: Embedder) -> None:
    data = tmp_path / "data"
    settings = Settings(data_dir=data)
    gone_user = _marker("Eraseduser")
    body, meta_value, meta_key, session = (
        _marker("Bodymark"),
        _marker("Metavalue"),
        _marker("Metakey"),
        _marker("Sessionmark"),
    )
    kept_user, kept_body = _marker("Keptuser"), _marker("Keptmark")
    svc = MemoryService(settings, embedder=embedder)
    svc.write(
        gone_user,
        f"My locker code is kept under the word {body} in the gym.",
        session_id=session,
        metadata={"label": meta_value, meta_key: "yes"},
    )
    svc.write_many(
        gone_user,
        [
            {
                "content": f"Note {i}: the {body} plan moved to room {i} on floor {i % 7}.",
                "session_id": session,
            }
            for i in range(300)
        ],
    )
    first = svc.write(gone_user, "I planted tomatoes on the balcony in April.")
    svc.update(gone_user, first.id, content=f"I planted {body} tomatoes on the balcony in May.")
    svc.search(gone_user, f"where is {body}?", 5)
    svc.write_many(
        kept_user,
        [
            {"content": f"The {kept_body} report is due on Friday number {i}.", "session_id": "s1"}
            for i in range(20)
        ],
    )

    receipt = svc.forget_user(gone_user, requested_by="ticket-1")
    assert receipt.verified, receipt.to_dict()
    assert receipt.to_dict()["files_clean"] is True
    assert svc.search(kept_user, f"{kept_body} report", 3).hits
    svc.close()

    for marker in (gone_user, body, meta_value, meta_key, session):
        assert _files_holding(data, marker) == [], marker
    assert _files_holding(data, kept_body), "the scan must see what is still stored"

    reopened = MemoryService(settings, embedder=embedder)
    hits = reopened.search(kept_user, f"{kept_body} report", 5).hits
    assert hits and kept_body in hits[0].memory.content
    assert reopened.search(gone_user, body, 5).hits == []
    assert reopened.records.audit_rows(gone_user)[0]["action"] == "forget_user"
    reopened.close()


def test_receipt_reports_files_not_clean_when_a_marker_survives(
    tmp_path: Path, embedder: Embedder
) -> None:
    """The receipt's file check is real: a copy of the user's id left in a stray file under
    the data directory makes it fail."""
    data = tmp_path / "data"
    svc = MemoryService(Settings(data_dir=data), embedder=embedder)
    user = _marker("Strayuser")
    svc.write(user, "A memory to erase.")
    (data / "notes.txt").write_text(f"exported for {user}\n")
    receipt = svc.forget_user(user)
    assert receipt.to_dict()["files_clean"] is False
    assert not receipt.verified
    assert receipt.to_dict()["files_holding"] == ["notes.txt"]
    svc.close()


def _loose(data: Path) -> list[tuple[str, str]]:
    """Paths under `data` (itself included) that anyone but the owner could read or enter."""
    out = []
    for path in [data, *data.rglob("*")]:
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode != (0o700 if path.is_dir() else 0o600):
            out.append((str(path.relative_to(data.parent)), oct(mode)))
    return out


def test_data_files_are_private(tmp_path: Path, embedder: Embedder) -> None:
    """Everything the service creates under the data directory is readable by its owner only:
    folders 0700, files 0600 (the database with its WAL and shared-memory file while open),
    whatever the process umask."""
    import os

    data = tmp_path / "data"
    old = os.umask(0o022)
    try:
        svc = MemoryService(Settings(data_dir=data), embedder=embedder)
        svc.write_many("u1", [{"content": f"Private note number {i}."} for i in range(30)])
        svc.vectors.optimize()
        assert (data / "graphmem.sqlite3-wal").exists()
        assert _loose(data) == []
        svc.forget_user("u1")
        svc.close()
    finally:
        os.umask(old)
    assert _loose(data) == []


def test_a_shard_with_raw_ids_is_rewritten_hashed_on_open(tmp_path: Path) -> None:
    """Shards written before ids were hashed hold raw user and session ids in payloads and WAL:
    opening one rewrites it, and search, filters and counts keep working."""
    import numpy as np
    from qdrant_edge import (
        Distance,
        EdgeConfig,
        EdgeShard,
        EdgeVectorParams,
        PayloadSchemaType,
        Point,
        UpdateOperation,
    )

    from graphmem.stores.vectors import VectorFilter
    from graphmem.stores.vectors.edge import EdgeVectors

    path, dim = tmp_path / "vectors", 8
    user, session = _marker("Rawuser"), _marker("Rawsession")
    old = EdgeShard.create(
        str(path), EdgeConfig(vectors=EdgeVectorParams(size=dim, distance=Distance.Cosine))
    )
    for name in ("user_id", "memory_type", "status", "session_id"):
        old.update(UpdateOperation.create_field_index(name, PayloadSchemaType.Keyword))
    rng = np.random.default_rng(1)
    ids = [str(uuid.uuid4()) for _ in range(30)]
    payload = {"memory_type": "fact", "status": "active", "created_at": 1.0}
    old.update(
        UpdateOperation.upsert_points(
            [
                Point(
                    id=i,
                    vector=rng.random(dim).tolist(),
                    payload={**payload, "user_id": user, "session_id": session if k % 2 else ""},
                )
                for k, i in enumerate(ids)
            ]
        )
    )
    old.flush()
    old.close()
    assert _files_holding(path, user), "the old format holds the raw id"

    store = EdgeVectors(path, dim)
    assert store.count(user) == 30 and store.ids(user) == set(ids)
    hits = store.search(rng.random(dim), VectorFilter(user, session_id=session), 50)
    assert {h.memory_id for h in hits} == {i for k, i in enumerate(ids) if k % 2}
    store.close()
    assert _files_holding(tmp_path, user) == [] and _files_holding(tmp_path, session) == []
    reopened = EdgeVectors(path, dim)  # the rewrite happens once
    assert reopened.count(user) == 30
    reopened.close()


def test_shared_markers_match_openings_literally(tmp_path: Path, embedder: Embedder) -> None:
    """A marker another user's memory still opens with says nothing about the erased user; `_`
    and `%` in it are characters, not wildcards (dropping them missed real sharing)."""
    with MemoryService(Settings(data_dir=tmp_path / "d"), embedder=embedder) as svc:
        svc.write("other", "user_id rotation is due on the build server this week.")
        shared = svc.records.shared_markers(
            {"user_id rotation is due", "userXid rotation is due", "user%rotation"}
        )
    assert shared == {"user_id rotation is due"}
