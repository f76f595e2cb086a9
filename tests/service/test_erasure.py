"""Erase a user: every store, a receipt, zero residue, resumable, and an audit trail without
content. Run on the embedded default and on MariaDB + qdrant-client + Neo4j."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.embedding import Embedder
from graphmem.stores.records.mysql import MySQLRecords
from graphmem.stores.vectors.qdrant import QdrantServerVectors
from graphmem.usecases.erase import files_holding, residue
from tests.helpers.imaging import needs_ocr, render
from tests.helpers.services import open_neo4j

TURNS = [
    "I'm Zhang San and I lead Project Apollo at Acme.",
    "Project Apollo's budget was cut because Acme lost the Boston contract.",
    "After the budget cut, Zhang San moved two engineers to Project Hermes.",
    "My sister Li Na lives in Shenzhen.",
    "我叫张三，在做医疗行业的债务风险分析",
]


@pytest.fixture(params=["embedded", pytest.param("production", marks=pytest.mark.services)])
def svc(request: pytest.FixtureRequest, tmp_path: Path, embedder: Embedder
        ) -> Iterator[MemoryService]:
    settings = Settings(data_dir=tmp_path / "data")
    if request.param == "embedded":
        service = MemoryService(settings, embedder=embedder)
    else:
        service = MemoryService(
            settings, embedder=embedder,
            records=MySQLRecords(request.getfixturevalue("mysql_url")),
            vectors=QdrantServerVectors(":memory:", None, "m", embedder.dim),
            graph=open_neo4j(),
        )
    yield service
    service.close()


def users() -> tuple[str, str]:
    tag = uuid.uuid4().hex[:8]
    return f"erase-me-{tag}", f"keep-me-{tag}"


def test_erase_user_leaves_zero_residue_and_spares_everyone_else(svc: MemoryService) -> None:
    gone, kept = users()
    for user in (gone, kept):
        svc.write_many(user, [{"content": t, "session_id": "s1"} for t in TURNS * 4])
        svc.search(user, "what happened to Project Apollo?", 5)
    svc.write(gone, "Apollo follow-up")  # one more row, so the two users differ
    before = residue(svc.context, kept)
    assert before["records.memories"] == 20 and before["graph.edges"] > 0
    assert residue(svc.context, gone)["records.entities"] > 0

    receipt = svc.forget_user(gone, requested_by="compliance-ticket-7")
    assert receipt.verified, receipt.to_dict()
    assert receipt.deleted["records.memories"] == 21 and receipt.deleted["vectors"] == 21
    assert receipt.deleted["records.memory_relations"] > 0
    assert receipt.deleted["query_cache"] == 1
    assert set(receipt.residue.values()) == {0}
    assert svc.search(gone, "Project Apollo budget", 10).hits == []
    assert residue(svc.context, kept) == before  # the other tenant is untouched

    audit = svc.records.audit_rows(gone)
    assert audit[0]["action"] == "forget_user"
    assert audit[0]["details"]["requested_by"] == "compliance-ticket-7"
    text = json.dumps(audit, ensure_ascii=False)
    for turn in TURNS:  # who, when and counts; never a word of what was said
        assert turn not in text
    assert "Apollo" not in text and "张三" not in text

    again = svc.forget_user(gone)  # idempotent
    assert again.verified and again.deleted["records.memories"] == 0


def test_single_forget_drops_entities_only_that_memory_named(svc: MemoryService) -> None:
    user, _ = users()
    a = svc.write(user, "Zhang San met Priya Raman in Lisbon.")
    svc.write(user, "Priya Raman sent the contract.")
    names = lambda: {n for ns in svc.graph_store.entity_names(user, [  # noqa: E731
        m.id for m in svc.list(user)]).values() for n in ns}
    assert any("lisbon" in n.lower() for n in names())
    svc.forget(user, [a.id])
    rows = svc.records._fetch(svc.records._q(
        "SELECT normalized_name FROM entities WHERE user_id = ?"), (user,))
    assert not any("lisbon" in r[0] for r in rows) and not any("zhang" in r[0] for r in rows)
    assert any("priya" in r[0] for r in rows)
    svc.forget_user(user)


def test_erasure_finishes_after_a_crash_with_the_index_down(
    tmp_path: Path, embedder: Embedder
) -> None:
    settings = Settings(data_dir=tmp_path / "d")
    svc = MemoryService(settings, embedder=embedder)
    gone, kept = users()
    svc.write_many(gone, [{"content": t} for t in TURNS])
    svc.write_many(kept, [{"content": t} for t in TURNS])
    svc.vectors.close()  # the vector index is down when the erasure runs
    receipt = svc.forget_user(gone)
    assert not receipt.verified and receipt.pending == ["vectors"]
    assert receipt.deleted["records.memories"] == 5
    svc.records.close()  # the process dies here

    restarted = MemoryService(settings, embedder=embedder)  # drains the outbox on start
    assert set(residue(restarted.context, gone).values()) == {0}
    assert restarted.vectors.count(kept) == 5 and restarted.records.count(kept) == 5
    restarted.close()


@pytest.mark.services
def test_cli_erase_reaches_working_memory_an_mcp_server_kept_in_redis(
    tmp_path: Path, embedder: Embedder, cli, monkeypatch: pytest.MonkeyPatch  # noqa: ANN001
) -> None:
    """Working memory in Redis outlives the server that wrote it: `graphmem forget-user` from
    the CLI (no server running) must erase it too, and its receipt must count it."""
    from graphmem.mcp.server import create_server
    from graphmem.stores import open_working
    from tests.helpers.mcp import ok
    from tests.helpers.services import service_url

    redis_url = service_url("GRAPHMEM_TEST_REDIS_URL")
    user = f"wm-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("GRAPHMEM_REDIS_URL", redis_url)
    svc = MemoryService(Settings(data_dir=tmp_path / "data"), embedder=embedder)
    working = open_working("redis", redis_url=redis_url)
    srv = create_server(svc, working=working, default_user=user)
    ok(srv, "memory_write", {"content": "The offsite is in Lisbon", "memory_type": "fact"})
    for session in ("s1", "s2"):
        ok(
            srv,
            "working_memory_set",
            {"session_id": session, "content": {"task_context": "plan the offsite"}},
        )
    svc.close()
    wm = open_working("redis", redis_url=redis_url)
    assert wm.count_user(user) == 2

    code, out, err = cli("forget-user", "--user", user, "--confirm", user, "--json")
    assert code == 0, err
    receipt = json.loads(out)
    assert receipt["deleted"]["working_memory"] == 2
    assert receipt["verified"] is True and set(receipt["residue"].values()) == {0}
    assert wm.count_user(user) == 0


def test_erase_removes_image_bytes_thumbnails_and_ocr_text_and_the_scan_reads_them(
    svc: MemoryService,
) -> None:
    """The receipt's file scan reads the image files too: before the erase it finds the text
    read in the user's image (kept beside the bytes), after it nothing, and no file is left."""
    needs_ocr()
    gone, kept = users()
    data = Path(svc.settings.data_dir)
    shot = render(["Quarterly plan for Northwind Traders", "Budget review moved to Friday"])
    m = svc.write_image(gone, shot, caption="planning slide")
    svc.write_image(gone, render(TURNS[4:], cjk=True), session_id="s-img")
    other = svc.write_image(kept, render(["Kept team photo caption"], size=(700, 200)))
    ocr_line = m.content.splitlines()[1]  # what Tesseract read, as the sidecar holds it
    assert "Northwind" in ocr_line
    holding = files_holding(data, {ocr_line})
    assert any(p.startswith("images/") and p.endswith(".json") for p in holding), holding
    tenant_files = svc.context.purgers["images"][1]
    assert tenant_files(gone) == 6

    receipt = svc.forget_user(gone)
    assert receipt.verified, receipt.to_dict()
    assert receipt.deleted["images"] == 6 and receipt.residue["images"] == 0
    assert not any(p.startswith("images/") for p in files_holding(data, {ocr_line}))
    assert tenant_files(gone) == 0 and tenant_files(kept) == 3
    assert svc.image(kept, other.id)[1] == "image/png"


def test_erase_removes_the_files_of_images_an_import_restored(
    svc: MemoryService, tmp_path: Path, embedder: Embedder
) -> None:
    """Images restored from a graphmem-v1 export land in the target store's folder for the
    user, where the erase and its file scan find them like images written there."""
    from graphmem.usecases.export_v1 import export_v1

    needs_ocr()
    gone, kept = users()
    source = MemoryService(Settings(data_dir=tmp_path / "source"), embedder=embedder)
    try:
        source.write_image(
            gone,
            render(["Lease renewal for flat 12", "Signed by Zhang San"]),
            caption="imported scan",
        )
        export_v1(source.context, gone, tmp_path / "export")
    finally:
        source.close()
    other = svc.write_image(kept, render(["Kept team photo caption"], size=(700, 200)))
    report = svc.import_from(gone, "graphmem-v1", str(tmp_path / "export"))
    assert report.added == 1 and report.skipped == []
    tenant_files = svc.context.purgers["images"][1]
    assert tenant_files(gone) == 3  # bytes, thumbnail, sidecar
    data = Path(svc.settings.data_dir)
    before = {p for p in data.rglob("*") if p.is_file() and p.parts[-4] == "images"}
    receipt = svc.forget_user(gone)
    assert receipt.verified, receipt.to_dict()
    assert receipt.deleted["images"] == 3 and receipt.residue["images"] == 0
    assert tenant_files(gone) == 0 and tenant_files(kept) == 3
    assert len([p for p in before if not p.exists()]) == 3  # the imported files themselves
    assert not any(p.startswith("images/") for p in files_holding(data, {"Lease renewal"}))
    assert svc.image(kept, other.id)[1] == "image/png"
