"""Backfill on a real embedded store: resumable, idempotent, dry-run, per user; and rebuild."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.cli.main import main
from graphmem.embedding import Embedder
from graphmem.usecases.backfill import backfill_relations, rebuild, rebuild_graph

LINES = [
    "Zhang San leads Project Apollo",
    "Apollo's funding was cut in half by the board",
    "Zhang San moved to Oslo in March",
    "Priya Raman joined the Apollo team",
    "The Oslo office opened because Zhang San asked for it",
]


@pytest.fixture
def old_data(tmp_path: Path, embedder: Embedder) -> Path:
    """Memories written before extraction existed: no entities, no relations."""
    data = tmp_path / "data"
    svc = MemoryService(Settings(data_dir=data, linking={"extractor": "none"}), embedder=embedder)
    svc.write_many("u", [{"content": c} for c in LINES])
    svc.write("other", "Zhang San leads Project Apollo")
    svc.write("other", "Apollo is late")
    assert svc.records.graph_counts()["memory_relations"] == 0
    svc.close()
    return data


def test_backfill_resumes_from_its_checkpoint_and_is_idempotent(
    old_data: Path, embedder: Embedder
) -> None:
    svc = MemoryService(Settings(data_dir=old_data), embedder=embedder)
    dry = backfill_relations(svc.context, batch=2, dry_run=True)
    assert dry.memories == 7 and dry.relations > 0
    assert svc.records.graph_counts()["memory_relations"] == 0  # dry run wrote nothing

    first = backfill_relations(svc.context, batch=2, max_batches=1)  # "interrupted" after one batch
    assert not first.complete and first.memories == 2
    rest = backfill_relations(svc.context, batch=2)
    assert rest.resumed_from == first.last_doc_id and rest.memories == 5 and rest.complete
    counts = svc.records.graph_counts()
    assert counts["memory_relations"] > 0 and svc.records.outbox_count() == 0
    assert svc.graph_store.edge_count() == counts["memory_relations"]

    # nothing new since the checkpoint
    assert backfill_relations(svc.context, batch=2).memories == 0
    again = backfill_relations(svc.context, batch=3, restart=True)
    assert again.memories == 7
    assert svc.records.graph_counts()["memory_relations"] >= counts["memory_relations"]
    assert svc.records.graph_counts()["entities"] == counts["entities"]
    hits = svc.search("u", "who leads the project?", 5, weights="keyword=1").hits
    assert any(h.path for h in hits)
    svc.close()


def test_backfill_for_one_user_touches_only_that_user(old_data: Path, embedder: Embedder) -> None:
    svc = MemoryService(Settings(data_dir=old_data), embedder=embedder)
    rep = backfill_relations(svc.context, user_id="other")
    assert rep.memories == 2
    assert svc.records.graph_counts("u")["memory_relations"] == 0
    assert svc.records.graph_counts("other")["memory_relations"] == 1
    svc.close()


@pytest.mark.parametrize("graph", ["records", "networkx"])
def test_rebuild_restores_both_projections(tmp_path: Path, embedder: Embedder, graph: str) -> None:
    svc = MemoryService(
        Settings(data_dir=tmp_path / "d", graph={"backend": graph}), embedder=embedder
    )
    ms = svc.write_many("u", [{"content": c} for c in LINES])
    edges = svc.graph_store.edge_count("u")
    svc.vectors.delete_user("u")
    svc.graph_store.delete_user("u")
    assert rebuild(svc.context) == {"vectors": 5, "graph_nodes": 5}
    assert svc.vectors.ids("u") == {m.id for m in ms}
    assert svc.graph_store.edge_count("u") == edges > 0
    svc.close()


def test_rebuild_graph_drops_stale_nodes_page_by_page(tmp_path: Path, embedder: Embedder) -> None:
    """Memories the records no longer hold leave the graph in pages (one Neo4j transaction
    each: deleting 100,000 at once exceeded Neo4j's transaction memory), edges are re-made.
    A projected graph (networkx here); the default reads the records and holds no stale node."""
    from graphmem.stores.graph import GraphNode

    svc = MemoryService(
        Settings(data_dir=tmp_path / "d", graph={"backend": "networkx"}), embedder=embedder
    )
    ms = svc.write_many("u", [{"content": c} for c in LINES])
    edges = svc.graph_store.edge_count("u")
    calls: list[int] = []
    delete = svc.graph_store.delete
    svc.graph_store.delete = lambda ids: (calls.append(len(ids)), delete(ids))[1]  # type: ignore[method-assign]
    svc.graph_store.sync([GraphNode(f"gone-{i}", "u", "fact", "active", 0.0) for i in range(7)], [])
    assert rebuild_graph(svc.records, svc.graph_store, batch=3) == 5
    assert calls == [3, 3, 1]
    assert svc.graph_store.node_ids("u") == {m.id for m in ms}
    assert svc.graph_store.edge_count("u") == edges > 0
    svc.close()


def test_cli_backfill_relate_graph_and_search_flags(old_data: Path, capsys) -> None:
    def run(*argv: str) -> tuple[int, dict]:
        code = main([*argv, "--data-dir", str(old_data), "--json"])
        out = capsys.readouterr().out
        return code, json.loads(out) if out.strip() else {}

    code, out = run("backfill", "relations", "--dry-run", "--user", "u", "-q")
    assert code == 0 and out["dry_run"] is True and out["memories"] == 5
    code, out = run("backfill", "relations", "--user", "u", "--batch", "2", "-q")
    assert code == 0 and out["complete"] and out["relations"] > 0
    code, out = run("search", "who leads Project Apollo", "--user", "u", "--expand-hops", "0")
    assert code == 0 and all(h["path"] == [] for h in out["hits"])
    code, out = run(
        "search",
        "who leads Project Apollo",
        "--user",
        "u",
        "-k",
        "5",
        "--relation-types",
        "related,causal",
    )
    assert code == 0 and any(h["path"] for h in out["hits"])
    a, b = out["hits"][0]["id"], out["hits"][-1]["id"]
    code, out = run("relate", a, b, "--type", "temporal", "--strength", "0.7", "--user", "u")
    assert code == 0 and out["relation_type"] == "temporal"
    code, out = run("graph", a, "--hops", "1", "--user", "u")
    assert code == 0 and {"from": a, "type": "temporal", "to": b, "strength": 0.7} in out["edges"]
    code, out = run("backfill", "rebuild", "--user", "u", "-q")
    assert code == 0 and out == {"vectors": 5, "graph_nodes": 5}
    assert (
        main(["relate", a, b, "--type", "friend", "--user", "u", "--data-dir", str(old_data)]) == 2
    )
