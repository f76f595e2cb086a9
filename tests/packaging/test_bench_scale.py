"""bench/scale.py and bench/_common.py: anonymous and mapped memory apart, start of a store."""

from __future__ import annotations

import json
import mmap
import sys
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.embedding import Embedder
from tests.helpers.waiting import wait_until

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import _common  # noqa: E402
import scale  # noqa: E402

linux = pytest.mark.skipif(not Path("/proc/self/smaps_rollup").exists(), reason="Linux only")


@linux
def test_mapped_file_pages_are_not_counted_as_the_processs_own(tmp_path: Path) -> None:
    before = _common.memory_mb()
    assert before is not None
    assert before["anon"] + before["file"] == pytest.approx(before["rss"], abs=0.2)
    data = tmp_path / "blob"
    data.write_bytes(b"\1" * (64 << 20))
    with data.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        sum(m[i] for i in range(0, len(m), 4096))  # touch every page
        mapped = _common.memory_mb()
    assert mapped is not None
    assert mapped["file"] - before["file"] > 60
    assert mapped["anon"] - before["anon"] < 16


@linux
def test_the_sampler_keeps_the_peak_and_stops_at_the_limit() -> None:
    hit: list[dict[str, float]] = []
    base = _common.memory_mb()["anon"]  # type: ignore[index]
    sampler = _common.MemorySampler(
        interval=0.01, limit_anon_mb=base + 100, on_limit=hit.append
    ).start()
    block = bytearray(200 << 20)
    for i in range(0, len(block), 4096):
        block[i] = 1
    try:
        wait_until(lambda: hit, "the sampler to see the limit passed", 5, 0.02)
    finally:
        del block
        peak = sampler.stop()
    assert hit and hit[0]["anon"] > base + 100
    assert peak["anon"] >= base + 190


@linux
def test_an_existing_store_is_timed_from_open_to_the_first_answer(
    tmp_path: Path, embedder: Embedder
) -> None:
    store = tmp_path / "store"
    svc = MemoryService(Settings(data_dir=store), embedder=embedder)
    svc.write_many("ann", [{"content": f"Ann visited the bakery on day {i}"} for i in range(5)])
    svc.write("bob", "Bob keeps a kayak at the lake house")
    svc.close()
    out = tmp_path / "start.json"
    assert scale.main(["--existing", str(store), "--start-only", "--out", str(out)]) == 0
    got = json.loads(out.read_text())
    assert got["users"] == 2
    entry = got["sizes"][0]
    assert entry["size"] == 6
    start = entry["start"]
    assert start["start_s"] == pytest.approx(start["open_s"] + start["first_search_s"], abs=2e-3)
    after = start["memory"]["after the first search"]
    assert after["anon_mb"] > 0 and after["file_mb"] > 0
    assert after["peak_rss_incl_mappings_mb"] >= after["rss_mb"] - 1
    md = out.with_suffix(".md").read_text()
    assert "| 6 |" in md and "anonymous" in md


def test_a_missing_store_is_refused_plainly(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="no graphmem.sqlite3"):
        scale.main(["--existing", str(tmp_path), "--start-only"])
