"""The benches pass a mode's options (expand_hops=0 for the "no graph" and single-channel
modes) only when the search takes them. `MemoryService.search` takes them as `**options`
typed by SearchOptions; reading only the signature's names dropped them, and every "alone" and
"nograph" mode ran the graph walk (the Chinese set's keyword channel read 0.873 at hit@5
against plain BM25's 0.886, and hybrid-nograph equalled hybrid)."""

from __future__ import annotations

import sys
from pathlib import Path

from graphmem import MemoryService, Settings
from graphmem.embedding import Embedder

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import _common  # noqa: E402


def test_the_search_options_include_every_request_option(
    tmp_path: Path, embedder: Embedder
) -> None:
    svc = MemoryService(Settings(data_dir=tmp_path / "d"), embedder=embedder)
    try:
        names = _common.search_options(svc)
    finally:
        svc.close()
    assert {"expand_hops", "weights", "track_access", "explain", "kinds"} <= names


def test_an_older_search_without_keywords_gives_its_own_names() -> None:
    class Old:
        def search(self, user_id: str, query: str, top_k: int = 5, weights: object = None) -> None:
            return None

    assert _common.search_options(Old()) == {"user_id", "query", "top_k", "weights"}
