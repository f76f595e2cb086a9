"""Temporal validity end to end: updates supersede without forgetting, recall answers "now" by
default and "before" when asked, and the consensus rule tells an update from an attack."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.domain.model import Status
from graphmem.domain.temporal import asks_about_past
from graphmem.embedding import Embedder
from graphmem.extractors.normalize import Normalizer
from graphmem.extractors.slots import compile_rules, find_slots, is_correction
from graphmem.settings import TemporalSettings
from graphmem.stores.records.mysql import MySQLRecords
from graphmem.stores.vectors.qdrant import QdrantServerVectors
from graphmem.usecases.backfill import backfill_relations, rebuild
from tests.helpers.services import open_neo4j

USERS = ("u", "zh", "b", "other")
JAN_23, MAR_24, JUN_24 = "2023-01-10T09:00:00Z", "2024-03-01T09:00:00Z", "2024-06-01T09:00:00Z"


@pytest.fixture(params=["embedded", pytest.param("production", marks=pytest.mark.services)])
def tsvc(
    request: pytest.FixtureRequest, tmp_path: Path, embedder: Embedder
) -> Iterator[MemoryService]:
    """The service over SQLite + Qdrant Edge + networkx, or MariaDB + qdrant-client + Neo4j."""
    settings = Settings(data_dir=tmp_path / "data")
    extra = {}
    if request.param == "production":
        extra = {
            "records": MySQLRecords(request.getfixturevalue("mysql_url")),
            "vectors": QdrantServerVectors(":memory:", None, "memories", embedder.dim),
            "graph": open_neo4j(),
        }
        for user in USERS:
            extra["graph"].delete_user(user)
    svc = MemoryService(settings, embedder=embedder, **extra)
    yield svc
    if request.param == "production":
        for user in USERS:
            svc.graph_store.delete_user(user)
    svc.close()


def contents(hits: list) -> list[str]:
    return [h.memory.content for h in hits]


def austin_denver(svc: MemoryService, user: str = "u") -> tuple[str, str]:
    a = svc.write(user, "I live in Austin", created_at=JAN_23)
    svc.write(user, "My sister is a nurse in Chicago", created_at="2023-02-01T09:00:00Z")
    d = svc.write(user, "I moved to Denver", created_at=MAR_24)
    return a.id, d.id


# ---------------------------------------------------------------- slots (rules, no stores)
@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("I live in Austin", "self|home_city", "austin"),
        ("I've just moved to New York City last week", "self|home_city", "new york city"),
        ("我住在上海", "self|home_city", "上海"),
        ("我上个月搬到了深圳", "self|home_city", "深圳"),
        ("My new manager is Priya Raman, since the reorg", "self|manager", "priya raman"),
        ("我的经理换成了李娜", "self|manager", "李娜"),
        ("I work at Google as an engineer", "self|employer", "google"),
        ("我在华为工作", "self|employer", "华为"),
        ("My favorite color is blue", "self|favorite:color", "blue"),
        ("我最喜欢的颜色是蓝色", "self|favorite:颜色", "蓝色"),
        ("I prefer aisle seats on long flights", "self|preference:seats", "aisle"),
        ("The quarterly report is due on Friday", "quarterly report|date", "friday"),
        ("项目报告推迟到5月10日", "项目报告|date", "5月10日"),
        ("Zhang San's manager is Li Si", "san zhang|manager", "li si"),
        ("The user's manager is Priya", "self|manager", "priya"),
        ("Caroline: I moved to Sweden", "caroline|home_city", "sweden"),
    ],
)
def test_slot_rules_in_english_and_chinese(text: str, key: str, value: str) -> None:
    slots = find_slots(text, compile_rules(), Normalizer())
    assert [(s.key, s.value) for s in slots][:1] == [(key, value)]


def test_slot_rules_extend_by_settings_and_bad_rules_are_named() -> None:
    rules = compile_rules([{"attribute": "gym", "pattern": r"\bmy gym is (?P<value>\w+)"}])
    assert [s.key for s in find_slots("My gym is Fitlab", rules, Normalizer())] == ["self|gym"]
    with pytest.raises(ValueError, match="slot rule 0 \\(gym\\).*value"):
        compile_rules([{"attribute": "gym", "pattern": "my gym is (.+)"}])
    env = TemporalSettings(slot_rules=[{"attribute": "gym", "pattern": "x (?P<value>y)"}])
    assert env.slot_rules[0]["attribute"] == "gym"
    assert find_slots("The weather was lovely today", compile_rules(), Normalizer()) == []


def test_slot_table_compiles_on_the_first_write_and_a_bad_setting_at_open(
    tmp_path: Path, embedder: Embedder
) -> None:
    """A read-only command (search, get, stats) never pays for compiling the slot table; a bad
    rule in the settings still fails when the service opens, naming the rule."""
    svc = MemoryService(Settings(data_dir=tmp_path / "a"), embedder=embedder)
    try:
        svc.search("u", "where do I live?")
        assert svc.context.temporal._rules is None
        svc.write("u", "I live in Austin")
        assert svc.context.temporal._rules
    finally:
        svc.close()
    bad = Settings(data_dir=tmp_path / "b")
    bad.temporal.slot_rules = [{"attribute": "gym", "pattern": "my gym is (.+)"}]
    with pytest.raises(ValueError, match="slot rule 0 \\(gym\\)"):
        MemoryService(bad, embedder=embedder)


def test_corrections_and_past_questions_are_recognised() -> None:
    for text in ("Actually, it's on Tuesday", "No, it's Monday", "不对，是周五", "更正：周三"):
        assert is_correction(text), text
    for text in ("I actually like it", "Nobody came", "不错，是个好主意"):
        assert not is_correction(text), text
    for q in ("Where did I live before?", "Who used to be my manager?", "我以前住在哪里？"):
        assert asks_about_past(q), q
    assert not asks_about_past("Where do I live?") and not asks_about_past("我住在哪里？")


# ---------------------------------------------------------------- write and recall
def test_austin_to_denver(tsvc: MemoryService) -> None:
    a_id, d_id = austin_denver(tsvc)
    austin = tsvc.get("u", a_id)
    assert austin.status == Status.SUPERSEDED and austin.slot == "self|home_city"
    assert austin.valid_to == tsvc.get("u", d_id).valid_since
    rels = {
        (r.source_id, r.relation_type, r.target_id) for r in tsvc.records.relations_for("u", [a_id])
    }
    assert (a_id, "superseded_by", d_id) in rels

    now = tsvc.search("u", "Where do I live?", top_k=5).hits
    assert "I moved to Denver" in contents(now) and "I live in Austin" not in contents(now)
    assert now[0].to_dict()["valid_to"] is None

    before = tsvc.search("u", "Where did I live before?", top_k=5).hits
    assert contents(before)[0] == "I live in Austin"
    assert before[0].scores["history"] > 0 and before[0].to_dict()["valid_to"] is not None

    then = tsvc.search("u", "Where do I live?", top_k=5, as_of="2023-06-01")
    assert "I live in Austin" in contents(then.hits)
    assert "I moved to Denver" not in contents(then.hits)
    everything = tsvc.search("u", "Where do I live?", top_k=5, include_history=True).hits
    assert {"I live in Austin", "I moved to Denver"} <= set(contents(everything))
    assert [m.id for m in tsvc.history("u", d_id)] == [a_id, d_id]


def test_chinese_move_supersedes(tsvc: MemoryService) -> None:
    sh = tsvc.write("zh", "我住在上海", created_at="2024-01-05T09:00:00Z")
    sz = tsvc.write("zh", "我上个月搬到了深圳", created_at=JUN_24)
    assert tsvc.get("zh", sh.id).status == Status.SUPERSEDED
    now = contents(tsvc.search("zh", "我住在哪里？", top_k=5).hits)
    assert now[0] == "我上个月搬到了深圳" and "我住在上海" not in now
    past = tsvc.search("zh", "我以前住在哪里？", top_k=5).hits
    assert contents(past)[0] == "我住在上海"
    assert [m.id for m in tsvc.history("zh", sh.id)] == [sh.id, sz.id]


def test_manager_change_and_history(tsvc: MemoryService) -> None:
    alice = tsvc.write("u", "My manager is Alice Chen", created_at=JAN_23)
    priya = tsvc.write("u", "My new manager is Priya Raman, since the reorg", created_at=MAR_24)
    hits = contents(tsvc.search("u", "Who is my manager?", top_k=5).hits)
    assert hits[0].startswith("My new manager is Priya") and "My manager is Alice Chen" not in hits
    versions = tsvc.history("u", alice.id)
    assert [m.id for m in versions] == [alice.id, priya.id]
    assert versions[0].valid_to == versions[1].valid_since and versions[1].valid_to is None
    old = tsvc.search("u", "Who was my manager previously?", top_k=5).hits
    assert "My manager is Alice Chen" in contents(old)


def test_corrected_date_with_and_without_a_slot(tsvc: MemoryService) -> None:
    due = tsvc.write("u", "The quarterly report is due on Friday, May 3.")
    fix = tsvc.write("u", "Actually, the quarterly report is due on Monday, May 6.")
    assert tsvc.get("u", due.id).status == Status.SUPERSEDED
    hits = contents(tsvc.search("u", "When is the quarterly report due?", top_k=5).hits)
    assert hits[0] == fix.content and due.content not in hits
    meet = tsvc.write("u", "我们周四和审计师开会", session_id="s1")
    again = tsvc.write("u", "不对，是周五", session_id="s1")
    assert tsvc.get("u", meet.id).status == Status.SUPERSEDED
    assert [m.id for m in tsvc.history("u", again.id)] == [meet.id, again.id]
    asked = tsvc.write("u", "Did you visit the museum last weekend?", session_id="s2")
    answer = tsvc.write("u", "No, I stayed home and read", session_id="s2")
    assert tsvc.get("u", asked.id).status == Status.ACTIVE  # an answer is no correction
    assert tsvc.get("u", answer.id).status == Status.ACTIVE


def test_a_backdated_import_lands_in_the_past(tsvc: MemoryService) -> None:
    d = tsvc.write("u", "I moved to Denver", created_at=MAR_24)
    a = tsvc.write("u", "I live in Austin", created_at=JAN_23)  # imported later, older fact
    assert tsvc.get("u", d.id).status == Status.ACTIVE
    old = tsvc.get("u", a.id)
    assert old.status == Status.SUPERSEDED and old.valid_to == tsvc.get("u", d.id).valid_since
    batch = tsvc.write_many(
        "b",
        [
            {"content": "I work at Initech", "created_at": JAN_23},
            {"content": "I joined Globex", "created_at": MAR_24},
        ],
    )
    assert [tsvc.get("b", m.id).status for m in batch] == [Status.SUPERSEDED, Status.ACTIVE]
    later = tsvc.write_many(
        "u",
        [
            {"content": "I live in Boston", "created_at": "2025-01-01T00:00:00Z"},
            {"content": "I live in Houston", "created_at": "2022-01-01T00:00:00Z"},
        ],
    )
    assert tsvc.get("u", d.id).status == Status.SUPERSEDED  # Boston replaced Denver
    assert [tsvc.get("u", m.id).status for m in later] == [Status.ACTIVE, Status.SUPERSEDED]
    assert [m.content for m in tsvc.history("u", d.id)][-1] == "I live in Boston"


def test_update_records_a_new_version(tsvc: MemoryService) -> None:
    m = tsvc.write("u", "My phone number is 555-0100")
    tsvc.update("u", m.id, "My phone number is 555-0199")
    versions = tsvc.history("u", m.id)
    assert [v.content for v in versions] == [
        "My phone number is 555-0100",
        "My phone number is 555-0199",
    ]
    assert versions[0].status == Status.SUPERSEDED and versions[-1].id == m.id
    assert "555-0100" not in str(contents(tsvc.search("u", "phone number", top_k=5).hits))
    assert tsvc.forget("u", [m.id]) == [m.id]
    assert tsvc.records.get("u", [v.id for v in versions]) == {}
    a_id, _ = austin_denver(tsvc)
    gone = tsvc.forget_by_query("u", "I live in Austin", threshold=0.9)
    assert [g.id for g in gone] == [a_id]  # a superseded memory can be forgotten by query too


# ---------------------------------------------------------------- the consensus rule
def test_a_third_party_claim_against_the_user_is_quarantined(tsvc: MemoryService) -> None:
    home = tsvc.write("u", "I live in Austin")
    claim = tsvc.write("u", "The user lives in Boston", source="agent")
    assert claim.status == Status.QUARANTINED
    assert tsvc.get("u", home.id).status == Status.ACTIVE
    assert {
        (r.source_id, r.relation_type, r.target_id)
        for r in tsvc.records.relations_for("u", [claim.id])
    } == {(claim.id, "contradicts", home.id)}
    assert "The user lives in Boston" not in contents(tsvc.search("u", "Where do I live", 5).hits)
    assert [m.id for m in tsvc.quarantined("u")] == [claim.id]
    assert tsvc.review("u", [claim.id], approve=True) == [claim.id]
    assert tsvc.get("u", home.id).status == Status.SUPERSEDED  # approved: it takes the slot
    assert contents(tsvc.search("u", "Where do I live", 5).hits)[0] == claim.content


def test_contradicting_corroborated_memories_is_quarantined(tsvc: MemoryService) -> None:
    said = ["The board meets in room 2 on Thursdays.", "Board meetings: Thursdays, room 2."]
    for text in said:
        tsvc.write("u", text)
    bad = tsvc.write("u", "The board meets in room 2 on Fridays.", source="document")
    assert bad.status == Status.QUARANTINED
    audit = tsvc.records.audit_rows("u", 1)[0]["details"]
    assert audit["quarantined"] == 1 and audit["temporal"][bad.id]["consensus"] == "quarantine"
    # The user saying it as an explicit change is an update, not an attack.
    ok = tsvc.write("u", "The board now meets in room 2 on Fridays.")
    assert ok.status == Status.ACTIVE
    assert all(m.status == Status.SUPERSEDED for m in tsvc.list("u") if m.content in said)


def test_low_confidence_memories_rank_below_corroborated_ones(
    tmp_path: Path, embedder: Embedder
) -> None:
    from graphmem.guard import Guard, GuardSettings

    guard = Guard(GuardSettings(consensus_on_conflict="low_confidence"))
    with MemoryService(Settings(data_dir=tmp_path / "d"), embedder=embedder, guard=guard) as svc:
        svc.write("u", "I live in Austin")
        claim = svc.write("u", "The user lives in Boston", source="document")
        assert claim.status == Status.ACTIVE and claim.confidence == pytest.approx(0.3)
        hit = next(h for h in svc.search("u", "lives in Boston", 5).hits if h.memory.id == claim.id)
        assert hit.scores["confidence"] == pytest.approx(0.3)


# ---------------------------------------------------------------- survival and erasure
def test_supersession_survives_backfill_and_rebuild(tsvc: MemoryService) -> None:
    a_id, d_id = austin_denver(tsvc)
    ckpt = Path(tsvc.settings.data_dir) / "ck.json"
    backfill_relations(tsvc.context, restart=True, checkpoint=ckpt)
    rebuild(tsvc.context)
    assert tsvc.get("u", a_id).status == Status.SUPERSEDED
    assert [m.id for m in tsvc.history("u", d_id)] == [a_id, d_id]
    now = contents(tsvc.search("u", "Where do I live?", top_k=5).hits)
    assert "I live in Austin" not in now and "I moved to Denver" in now
    edges = tsvc.graph_store.neighbours("u", [a_id], ("superseded_by",), 10)
    assert [(e.source_id, e.target_id) for e in edges] == [(a_id, d_id)]


def test_erasing_a_user_removes_every_version(tsvc: MemoryService) -> None:
    a_id, d_id = austin_denver(tsvc)
    m = tsvc.write("u", "My manager is Alice Chen")
    tsvc.update("u", m.id, "My manager is Priya Raman")
    versions = [v.id for v in tsvc.history("u", m.id)] + [a_id, d_id]
    tsvc.write("other", "I live in Austin")
    receipt = tsvc.forget_user("u")
    assert receipt.verified and tsvc.records.get("u", versions) == {}
    assert tsvc.search("other", "Where do I live?", 3).hits


def test_graph_expansion_follows_current_edges(tsvc: MemoryService) -> None:
    a = tsvc.write("u", "I live in Austin near Zilker Park", created_at=JAN_23)
    park = tsvc.write("u", "Zilker Park has a great swimming hole", created_at=JAN_23)
    tsvc.write("u", "I moved to Denver", created_at=MAR_24)
    rel = [r for r in tsvc.records.relations_for("u", [a.id]) if r.relation_type == "related"]
    assert rel and rel[0].valid_to is not None
    g = tsvc.graph_store
    now = datetime.now().timestamp()
    assert not [e for e in g.neighbours("u", [park.id], None, 10, at=now)]
    assert [e.other(park.id) for e in g.neighbours("u", [park.id], None, 10)] == [a.id]
    shown = tsvc.graph("u", park.id)["edges"]
    assert shown and shown[0]["valid_to"] is not None and shown[0]["valid_from"] is not None
    then = datetime.fromisoformat("2023-06-01T00:00:00+00:00").timestamp()
    assert [e.other(park.id) for e in g.neighbours("u", [park.id], None, 10, at=then)] == [a.id]


def test_existing_databases_gain_the_columns(tmp_path: Path) -> None:
    import sqlite3

    from graphmem.stores.records.sqlite import SQLiteRecords

    path = tmp_path / "old.sqlite3"
    SQLiteRecords(path).close()
    db = sqlite3.connect(path)
    db.execute("DROP INDEX ix_memories_user_slot")
    for table, cols in (
        ("memories", ("valid_from", "valid_to", "slot")),
        ("memory_relations", ("valid_from", "valid_to")),
    ):
        for c in cols:
            db.execute(f"ALTER TABLE {table} DROP COLUMN {c}")
    db.commit()
    db.close()
    for _ in range(2):  # idempotent
        SQLiteRecords(path).close()
    db = sqlite3.connect(path)
    assert {"valid_from", "valid_to", "slot"} <= {
        r[1] for r in db.execute("PRAGMA table_info(memories)")
    }
    db.close()


def test_cli_history_and_as_of(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from graphmem.cli.main import main

    base = ["--data-dir", str(tmp_path / "cli"), "--user", "u", "--json"]
    assert main(["add", "I live in Austin", "--created-at", JAN_23, *base]) == 0
    assert main(["add", "I moved to Denver", "--created-at", MAR_24, *base]) == 0
    denver = json.loads(capsys.readouterr().out.splitlines()[-1])["id"]
    assert main(["history", denver, *base]) == 0
    versions = json.loads(capsys.readouterr().out)["versions"]
    assert [v["content"] for v in versions] == ["I live in Austin", "I moved to Denver"]
    assert main(["search", "where do I live", "--as-of", "2023-05-01", *base]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    assert [h["content"] for h in hits] == ["I live in Austin"]
    assert main(["search", "where do I live", "--as-of", "soon", *base]) == 2
    assert json.loads(capsys.readouterr().out)["error"]["field"] == "as_of"  # --json: on stdout


@pytest.mark.services
def test_existing_mariadb_databases_gain_the_columns(mysql_url: str) -> None:
    import pymysql

    from graphmem.stores.records.mysql import parse_mysql_url

    MySQLRecords(mysql_url).close()
    db = pymysql.connect(**parse_mysql_url(mysql_url), autocommit=True)
    with db.cursor() as cur:
        cur.execute(
            "ALTER TABLE memories DROP KEY ix_memories_user_slot, DROP COLUMN valid_from,"
            " DROP COLUMN valid_to, DROP COLUMN slot"
        )
        cur.execute("ALTER TABLE memory_relations DROP COLUMN valid_from, DROP COLUMN valid_to")
    for _ in range(2):  # idempotent
        MySQLRecords(mysql_url).close()
    with db.cursor() as cur:
        cur.execute("SHOW COLUMNS FROM memories")
        assert {"valid_from", "valid_to", "slot"} <= {r[0] for r in cur.fetchall()}
        cur.execute("SHOW INDEX FROM memories WHERE Key_name = 'ix_memories_user_slot'")
        assert cur.fetchall()
    db.close()


def test_history_and_past_recall_stay_within_the_user(svc: MemoryService) -> None:
    from graphmem import NotFoundError

    a_id, d_id = austin_denver(svc, "alice")
    svc.write("bob", "I live in Austin", created_at=JAN_23)
    svc.write("bob", "I moved to Lisbon", created_at=MAR_24)
    with pytest.raises(NotFoundError):
        svc.history("bob", d_id)
    for kwargs in ({}, {"include_history": True}, {"as_of": "2023-06-01"}):
        hits = svc.search("bob", "Where did I live before?", 10, **kwargs).hits
        assert hits and all(h.memory.user_id == "bob" for h in hits)
    assert [m.user_id for m in svc.history("alice", a_id)] == ["alice", "alice"]
