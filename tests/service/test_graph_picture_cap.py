"""A neighbourhood with a bound on its memories keeps the strongest-linked and says how many it
left out; without one, every memory reached comes back as before (the MCP tool's answer).

The inspector's Graph page draws at most views_graph.MAX_NODES memories: three hops around a
memory linked to hundreds reached about a thousand at 100k memories, 1.5 s p50 to read and draw
and unreadable on screen."""

from __future__ import annotations

from pathlib import Path

from graphmem import MemoryService, Settings
from graphmem.embedding import Embedder


def test_the_strongest_linked_are_kept_and_the_rest_counted(
    tmp_path: Path, embedder: Embedder
) -> None:
    svc = MemoryService(Settings(data_dir=tmp_path / "d", graph={"fanout": 40}), embedder=embedder)
    try:
        hub = svc.write("u", "Weekly planning notes for the garden project").id
        spokes = svc.write_many(
            "u", [{"content": f"Garden task {i}: {w}"} for i, w in enumerate(WORDS)]
        )
        for i, m in enumerate(spokes):  # spoke i linked with strength (i + 1) / 40
            svc.relate("u", hub, m.id, "related", (i + 1) / len(spokes))
        everything = svc.graph("u", hub, 1, relation_types="related")
        assert {n["id"] for n in everything["nodes"]} >= {m.id for m in spokes}
        assert "not_shown" not in everything

        capped = svc.graph("u", hub, 1, relation_types="related", max_nodes=11)
        shown = {n["id"] for n in capped["nodes"]}
        assert len(shown) == 11 and hub in shown
        assert shown - {hub} == {m.id for m in spokes[-10:]}  # the ten strongest
        assert capped["not_shown"] == len({n["id"] for n in everything["nodes"]}) - 11
        assert all(e["from"] in shown and e["to"] in shown for e in capped["edges"])
    finally:
        svc.close()


WORDS = [
    "water the tomatoes", "prune the roses", "mulch the beds", "fix the gate", "buy seeds",
    "turn the compost", "weed the path", "repot the basil", "net the berries", "oil the shears",
    "sow the carrots", "stake the beans", "clean the pond", "trim the hedge", "rake leaves",
    "plant garlic", "check the hose", "feed the lawn", "paint the shed", "label the pots",
    "order bark", "sharpen the hoe", "lift the dahlias", "sweep the patio", "tie the vines",
    "split the hostas", "store the canes", "test the soil", "cover the brassicas", "edge the lawn",
    "empty the water butt", "move the bench", "seal the decking", "tidy the greenhouse",
    "collect seeds", "wrap the fig", "clear the gutter", "plant bulbs", "dig the new bed",
    "mend the fence",
]  # fmt: skip
