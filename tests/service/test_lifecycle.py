"""Memory lifecycle against real stores: decay, archive, TTL, merge, compaction."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.domain import lifecycle, ranking
from graphmem.domain.model import Memory, Status, utcnow
from graphmem.domain.summary import MAX_SUMMARY
from graphmem.embedding import Embedder
from graphmem.stores.records.mysql import MySQLRecords
from graphmem.stores.vectors.qdrant import QdrantServerVectors
from tests.helpers.services import open_neo4j
from tests.helpers.waiting import wait_until

USERS = ("u", "v")


@pytest.fixture(params=["embedded", pytest.param("production", marks=pytest.mark.services)])
def make(
    request: pytest.FixtureRequest, tmp_path: Path, embedder: Embedder
) -> Callable[..., MemoryService]:
    """A service over SQLite + Qdrant Edge + networkx, or MariaDB + qdrant-client + Neo4j."""

    def _make(**kw: object) -> MemoryService:
        settings = Settings(data_dir=tmp_path / "d", **kw)
        if request.param == "embedded":
            return MemoryService(settings, embedder=embedder)
        graph = open_neo4j()
        for user in USERS:  # the test server is shared by the tests: start from nothing
            graph.delete_user(user)
        return MemoryService(
            settings,
            embedder=embedder,
            records=MySQLRecords(request.getfixturevalue("mysql_url")),
            vectors=QdrantServerVectors(":memory:", None, "memories", embedder.dim),
            graph=graph,
        )

    return _make


def _svc(tmp_path: Path, embedder: Embedder, **kw: object) -> MemoryService:
    return MemoryService(Settings(data_dir=tmp_path / "d", **kw), embedder=embedder)


def test_decay_formula_uses_the_ranking_channels() -> None:
    s = Settings()
    now = utcnow()
    m = Memory("m", "u", "x", updated_at=now - timedelta(days=30), created_at=now)
    r = ranking.recency(now - timedelta(days=30), now, s.ranking.recency_half_life_days)
    assert lifecycle.decay_score(m, now, s) == pytest.approx(0.6 * r, abs=1e-6)
    m.access_count, m.confidence = 5, 0.5
    f = ranking.frequency(5, s.ranking.frequency_saturation)
    assert lifecycle.decay_score(m, now, s) == pytest.approx(0.5 * (0.6 * r + 0.4 * f), abs=1e-6)
    # The last access, when later than the last write, is what recency counts from.
    m.last_access_at = now
    assert lifecycle.last_seen(m) == now
    # Never recalled: archived just after 30 days; used often: stays.
    fresh = Memory("n", "u", "x", updated_at=now - timedelta(days=31))
    assert lifecycle.should_archive(fresh, lifecycle.decay_score(fresh, now, s), now, s)
    fresh.access_count = 50
    assert not lifecycle.should_archive(fresh, lifecycle.decay_score(fresh, now, s), now, s)


def test_ttl_by_type_hides_then_purges_from_every_store(make: Callable[..., MemoryService]) -> None:
    with make() as svc:
        now = utcnow()
        task = svc.write("u", "Call the plumber about the leaking kitchen sink", "task")
        event = svc.write("u", "Went to the Lisbon jazz festival with Marta", "event")
        fact = svc.write("u", "The kitchen sink is made of granite", "fact")
        pref = svc.write("u", "I prefer aisle seats on long flights", "preference")
        assert task.expires_at is not None
        assert abs(task.expires_at - (now + timedelta(hours=24))) < timedelta(minutes=1)
        assert event.expires_at is not None
        assert abs(event.expires_at - (now + timedelta(days=90))) < timedelta(minutes=1)
        assert fact.expires_at is None and pref.expires_at is None
        assert fact.decay_score == pytest.approx(0.6)  # fresh, never used, confidence 1
        old = svc.write(
            "u",
            "Pay the kitchen sink repair invoice",
            "task",
            expires_at=(now - timedelta(minutes=1)).isoformat(),
        )
        hits = {h.memory.id for h in svc.search("u", "kitchen sink", 10).hits}
        assert old.id not in hits and task.id in hits  # expired: out of recall at once
        assert old.id in svc.vectors.ids("u")  # ... but still stored until compaction

        rep = svc.compact(now=now + timedelta(hours=25))
        assert rep.expired == 2  # the old task and the 24 h one
        for gone in (old.id, task.id):
            assert gone not in svc.records.all_ids("u")
            assert gone not in svc.vectors.ids("u")
            assert gone not in svc.graph_store.node_ids("u")
        assert {event.id, fact.id, pref.id} <= svc.records.all_ids("u")
        assert any(r["action"] == "expire" for r in svc.records.audit_rows("u"))


def test_archive_restore_and_include_archived(make: Callable[..., MemoryService]) -> None:
    with make() as svc:
        stale = svc.write("u", "My old gym was FitLife on Main Street")
        used = svc.write("u", "My dentist is Dr. Okafor on Elm Road")
        svc.records.record_access({("u", used.id): 20}, utcnow())
        later = utcnow() + timedelta(days=40)
        dry = svc.compact(now=later, dry_run=True)
        assert dry.archived == 1 and [
            c["memory_id"] for c in dry.changes if c["action"] == "archive"
        ] == [stale.id]
        assert svc.get("u", stale.id).status == Status.ACTIVE  # dry run changed nothing

        rep = svc.compact(now=later)
        assert rep.archived == 1
        assert svc.get("u", stale.id).status == Status.ARCHIVED
        assert svc.get("u", used.id).status == Status.ACTIVE
        assert svc.get("u", used.id).decay_score == pytest.approx(
            lifecycle.decay_score(svc.get("u", used.id), later, svc.settings)
        )
        hits = svc.search("u", "gym Main Street", 5, track_access=False).hits
        assert stale.id not in {h.memory.id for h in hits}
        found = svc.search(
            "u", "gym Main Street", 5, include_archived=True, track_access=False
        ).hits
        assert found[0].memory.id == stale.id

        again = svc.compact(now=later)  # idempotent
        assert (again.archived, again.expired, again.merged, again.decay_updated) == (0, 0, 0, 0)

        assert svc.restore("u", [stale.id]) == [stale.id]
        assert svc.search("u", "gym Main Street", 5).hits[0].memory.id == stale.id
        # Restoring counts as a touch: the next compaction does not archive it straight back.
        assert svc.compact(now=utcnow() + timedelta(days=1)).archived == 0


def test_merge_on_write_unites_into_the_older(make: Callable[..., MemoryService]) -> None:
    with make() as svc:
        first = svc.write(
            "u",
            "My sister Anna lives in Berlin.",
            metadata={"a": 1},
            created_at=(utcnow() - timedelta(days=3)).isoformat(),
        )
        svc.records.record_access({("u", first.id): 2}, utcnow())
        other = svc.write("v", "My sister Anna lives in Berlin!")  # another user: never merged
        second = svc.write(
            "u", "My sister Anna lives in Berlin!", metadata={"b": 2}, confidence=0.9
        )
        assert second.id == first.id  # the write returns the survivor
        kept = svc.get("u", first.id)
        assert kept.metadata["a"] == 1 and kept.metadata["b"] == 2
        assert kept.created_at == first.created_at
        assert kept.access_count == 2
        [loser] = kept.metadata["merged_from"]
        gone = svc.get("u", loser)
        assert gone.status == Status.ARCHIVED and gone.metadata["merged_into"] == first.id
        rels = svc.records.relations_for("u", [first.id])
        assert any(r.relation_type == "merged_from" and r.target_id == loser for r in rels)
        assert [h.memory.id for h in svc.search("u", "where does Anna live", 5).hits] == [first.id]
        assert svc.get("v", other.id).status == Status.ACTIVE


def test_compaction_merges_from_the_index_and_repoints_relations(
    make: Callable[..., MemoryService],
) -> None:
    with make(lifecycle={"merge_on_write": False}) as svc:
        old = svc.write(
            "u",
            "I prefer green tea in the morning.",
            created_at=(utcnow() - timedelta(days=5)).isoformat(),
            metadata={"src": "chat"},
        )
        dup = svc.write("u", "In the morning I prefer green tea.", metadata={"mood": "calm"})
        other = svc.write("u", "I like coffee in the evening.")
        cause = svc.write("u", "Coffee late at night keeps me awake.")
        svc.relate("u", dup.id, cause.id, "causal", 0.7)
        svc.records.record_access({("u", old.id): 1, ("u", dup.id): 3}, utcnow())
        assert svc.get("u", dup.id).status == Status.ACTIVE  # off on write

        dry = svc.compact(user_id="u", dry_run=True)
        assert dry.merged == 1
        assert [c for c in dry.changes if c["action"] == "merge"] == [
            {"action": "merge", "user_id": "u", "survivor": old.id, "merged": [dup.id]}
        ]
        rep = svc.compact(user_id="u")
        assert (rep.merged, rep.merge_groups) == (1, 1)
        kept = svc.get("u", old.id)
        assert kept.access_count == 4 and kept.metadata["merged_from"] == [dup.id]
        assert kept.metadata["src"] == "chat" and kept.metadata["mood"] == "calm"
        assert svc.get("u", dup.id).status == Status.ARCHIVED
        assert svc.get("u", other.id).status == Status.ACTIVE
        rels = {
            (r.source_id, r.target_id, r.relation_type)
            for r in svc.records.relations_for("u", [old.id, dup.id])
        }
        assert (old.id, cause.id, "causal") in rels  # re-pointed
        assert (old.id, dup.id, "merged_from") in rels
        assert not any(s == dup.id or (t == dup.id and rt != "merged_from") for s, t, rt in rels)
        g = svc.graph("u", old.id, 1)
        assert {(e["from"], e["type"], e["to"]) for e in g["edges"]} >= {
            (old.id, "causal", cause.id)
        }
        assert svc.compact(user_id="u").merged == 0  # idempotent


def test_summaries_are_short_and_can_drive_recall(tmp_path: Path, embedder: Embedder) -> None:
    long = (
        "The quarterly planning offsite moved to the lake house near Annecy, with the"
        " budget review on the second day and a hike on the third."
    )
    with _svc(tmp_path, embedder, ranking={"recall_on_summaries": True}) as svc:
        m = svc.write("u", long)
        given = svc.write(
            "u",
            "x" * 10 + " note",
            summary="A summary that is far too long to fit in fifty characters at all",
        )
        assert len(m.summary) <= MAX_SUMMARY and len(given.summary) <= MAX_SUMMARY
        hit = svc.search("u", "planning offsite at the lake house", 1).hits[0]
        assert hit.memory.content == long  # matched on the summary, returns the original
        cosine = float(
            embedder.encode_query("planning offsite at the lake house", "u")
            @ embedder.encode([m.summary])[0]
        )  # the channel reports it above the model's floor (graphmem.domain.ranking.above_floor)
        assert hit.scores["vector"] == pytest.approx(
            ranking.above_floor(cosine, embedder.score_floor), abs=1e-5
        )


def test_periodic_compaction_runs_in_the_service(tmp_path: Path, embedder: Embedder) -> None:
    with _svc(
        tmp_path, embedder, lifecycle={"compact_interval_seconds": 0.2, "merge_on_write": False}
    ) as svc:
        assert svc.jobs.compactor is None  # only a server starts it
        svc.start_background()
        a = svc.write("u", "My sister Anna lives in Berlin.")
        svc.write("u", "my sister anna lives in berlin")
        # A run may already be under way (or finish) between the two writes; two more runs
        # guarantee one that started after both.
        seen = svc.jobs.compactor.runs
        compactor = svc.jobs.compactor
        wait_until(lambda: compactor.runs >= seen + 2, "two more compaction runs", 30, 0.1)
        assert svc.jobs.compactor.runs >= seen + 2
        assert [m.id for m in svc.list("u", include_archived=False)] == [a.id]


def test_a_repeat_compaction_looks_for_duplicates_only_around_what_changed(
    make: Callable[..., MemoryService],
) -> None:
    with make(lifecycle={"merge_on_write": False}) as svc:
        old = svc.write("u", "I prefer green tea in the morning.")
        for text in (
            "I like coffee in the evening.",
            "My sister lives in Porto.",
            "The dentist appointment is on Friday.",
        ):
            svc.write("u", text)
        svc.write("v", "Ann plays the piano on Sundays.")
        first = svc.compact()
        assert not first.incremental and first.merge_checked == 5

        again = svc.compact()  # nothing changed: no neighbour query at all
        assert again.incremental and again.merge_checked == 0 and again.merged == 0
        assert again.scanned == 5  # expiry and decay still see every row

        dup = svc.write("u", "In the morning I prefer green tea.")
        rep = svc.compact()
        assert rep.merge_checked == 1 and rep.merged == 1  # the newcomer finds the old one
        assert svc.get("u", dup.id).status == Status.ARCHIVED
        assert svc.get("u", old.id).status == Status.ACTIVE
        assert svc.compact().merge_checked == 1  # the survivor: the merge changed it
        assert svc.compact().merge_checked == 0

        svc.update("v", svc.list("v")[0].id, "Ann plays the cello on Sundays.")
        assert svc.compact().merge_checked == 1  # an update is a change
        assert svc.compact(full=True).merge_checked == 5  # every active one: 4 of u, 1 of v
        assert svc.compact(user_id="u").merge_checked == 0  # a user's run uses the mark too
        assert svc.compact(dry_run=True).merge_checked == 0


def test_changed_merge_rules_make_the_next_compaction_full(
    make: Callable[..., MemoryService], tmp_path: Path, embedder: Embedder
) -> None:
    with make(lifecycle={"merge_on_write": False}) as svc:
        for text in ("I like coffee in the evening.", "My sister lives in Porto."):
            svc.write("u", text)
        svc.compact()
        assert svc.compact().merge_checked == 0
        svc.settings.lifecycle.merge_similarity = 0.8
        rep = svc.compact()
        assert not rep.incremental and rep.merge_checked == 2
