"""An erase empties what the process keeps in memory about what users wrote, and with replicas
(a shared Redis) every other replica empties its own within a second.

Rows are not the only copies: a process caches query embeddings by (user, query), summary
vectors by (memory, summary) and ranking facts by text (a memory's gist and claim, stemmed
words, entity names, metadata strings). Real stores and real replicas here: two services on
their own data directories, sharing the test Redis, the way two servers behind a balancer do.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.domain.meaning import gist
from graphmem.embedding import Embedder
from graphmem.guard.consensus import extract_claim
from graphmem.stores.erase_notices import EraseNotices
from graphmem.stores.graph.prepared import PreparedGraph
from tests.helpers.services import service_url
from tests.helpers.waiting import wait_until

FACT = "Quillon Varga keeps the spare boathouse key under the blue heron statue"


def test_an_erase_empties_this_processs_text_caches(tmp_path: Path, embedder: Embedder) -> None:
    with MemoryService(Settings(data_dir=tmp_path / "data"), embedder=embedder) as svc:
        svc.write("quillon", FACT, memory_type="fact")
        svc.write("quillon", "Quillon Varga moved the boathouse key to the shed")
        assert svc.search("quillon", "where is the boathouse key", 5).hits
        assert gist.cache_info().currsize and extract_claim.cache_info().currsize
        receipt = svc.forget_user("quillon")
    assert receipt.verified
    assert receipt.deleted["text_caches"] > 0
    assert gist.cache_info().currsize == 0 and extract_claim.cache_info().currsize == 0
    assert svc.context.summaries.forget_all() == 0


def test_an_erase_empties_the_walks_prepared_adjacency(tmp_path: Path, embedder: Embedder) -> None:
    """The walk's adjacency (graphmem.stores.graph.prepared) holds a user's memory ids; an erase
    drops it and leaves every other user's."""
    with MemoryService(Settings(data_dir=tmp_path / "data"), embedder=embedder) as svc:
        for user in ("quillon", "keeper"):
            svc.write_many(
                user,
                [
                    {"content": FACT, "memory_type": "fact", "session_id": "s1"},
                    {
                        "content": "Quillon Varga moved the boathouse key to the shed",
                        "session_id": "s1",
                    },
                ],
            )
        graph = svc.graph_store
        assert isinstance(graph, PreparedGraph)
        held = graph.prepare("quillon")
        assert held is not None and held.edge_count > 0 and graph.prepare("keeper") is not None
        kept = graph.held("keeper")
        receipt = svc.forget_user("quillon")
        assert receipt.verified
        assert receipt.deleted["graph_adjacency"] == held.edge_count
        assert receipt.residue["graph_adjacency"] == 0
        assert graph.held("quillon") == 0 and graph.held("keeper") == kept > 0
        assert svc.search("quillon", "where is the boathouse key", 5).hits == []
        graph.wait()  # the search's look started no build that keeps anything
        assert graph.held("quillon") == 0


@pytest.mark.services
def test_another_replicas_erase_empties_this_replicas_caches(
    tmp_path: Path, embedder: Embedder
) -> None:
    redis = service_url("GRAPHMEM_TEST_REDIS_URL")
    first = MemoryService(Settings(data_dir=tmp_path / "a", redis_url=redis), embedder=embedder)
    other = MemoryService(Settings(data_dir=tmp_path / "b", redis_url=redis))
    try:
        other.write("quillon", FACT, memory_type="fact", session_id="s1")
        other.write("quillon", "Quillon Varga moved the boathouse key to the shed", session_id="s1")
        assert other.search("quillon", "where is the boathouse key", 5).hits
        assert other.context.embedder.cached_queries("quillon") == 1
        graph = other.graph_store
        assert isinstance(graph, PreparedGraph) and graph.prepare("quillon") is not None
        other.start_background()  # what `graphmem serve` does; it starts the erase watch
        watch = other.jobs.erase_watch
        assert watch is not None
        wait_until(lambda: watch.runs >= 1, "the erase watch's first look at the counter")

        receipt = first.forget_user("quillon")  # on the first replica
        assert receipt.deleted["replica_notice"] == 1 and receipt.verified
        wait_until(
            lambda: other.context.embedder.cached_queries("quillon") == 0,
            "the erase to reach the query cache",
            10,
            0.1,
        )
        assert other.context.embedder.cached_queries("quillon") == 0
        # the walk's adjacency goes when the watch runs (the query cache above is this process's
        # embedder, which the first replica's erase reached directly)
        wait_until(lambda: graph.held("quillon") == 0, "the watch to drop the adjacency")
        assert other.jobs.erase_watch is not None
    finally:
        first.close()
        other.close()


@pytest.mark.services
def test_the_watch_notes_the_counter_first_then_acts_on_each_move() -> None:
    from graphmem.stores.erase_notices import EraseWatcher

    notices = EraseNotices(service_url("GRAPHMEM_TEST_REDIS_URL"))
    calls: list[int] = []
    watch = EraseWatcher(notices, lambda: calls.append(1) or 3)
    try:
        assert watch() is False and calls == []  # the first look only notes the counter
        assert watch() is False
        notices.announce()
        assert watch() is True and calls == [1] and watch.dropped == 3
        assert watch() is False
    finally:
        notices.close()
