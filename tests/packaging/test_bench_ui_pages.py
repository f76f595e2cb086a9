"""bench/ui_pages.py measures every inspector page against `graphmem ui` as it is started.

A small store of one user with a graph (alice's related facts) and a page of bulk memories: the
script must find the user and the memories to open, log in with both roles, answer every page
with 200 and write its table, without a browser (the browser tests drive Chromium)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest

from graphmem.embedding import Embedder
from tests.helpers.ui import add_bulk, seeded_service

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import ui_pages  # noqa: E402

pytestmark = pytest.mark.slow


def test_every_page_is_measured_on_a_small_store(tmp_path: Path, embedder: Embedder) -> None:
    store = tmp_path / "data"
    svc = seeded_service(store, embedder)
    add_bulk(svc, "alice", 120)  # alice becomes the biggest user; her facts carry the graph
    svc.close()
    facts = ui_pages.store_facts(store)
    assert facts["user"] == "alice" and facts["relations"] > 0 and facts["hub_out_degree"] > 0
    args = argparse.Namespace(repeat=2, browser_repeat=1, no_browser=True, pages=None)
    entry = ui_pages.measure(store, args)
    pages = entry["http"]
    assert len(pages) == 20 and all(p["n"] == 2 and p["server_p50_ms"] > 0 for p in pages.values())
    # page 10 of 125 rows does not exist: the Next links stop at the last page (3)
    assert "memories (page 10)" in pages
    table = ui_pages.markdown({"stores": [entry]})
    assert "| graph (most connected, 3 hops) |" in table
    assert f"{facts['memories']:,} memories" in table


def test_the_browser_times_every_page_with_its_own_token(
    tmp_path: Path, embedder: Embedder
) -> None:
    """The type-filter search (its type chosen in the form) and the agent's Health page are
    timed in Chromium too, not only over HTTP."""
    store = tmp_path / "data"
    svc = seeded_service(store, embedder)
    add_bulk(svc, "alice", 40)
    svc.close()
    args = argparse.Namespace(repeat=1, browser_repeat=1, no_browser=False, pages=None)
    entry = ui_pages.measure(store, args)
    timed = entry["browser"]
    assert set(timed) == set(entry["http"]), set(entry["http"]) - set(timed)
    typed = "search (query with a type filter: two searches)"
    assert timed[typed]["loaded_p50_ms"] > 0 and timed["health (agent)"]["loaded_p50_ms"] > 0
