"""An interrupted `graphmem import --from FORMAT` goes on where it stopped: its checkpoint
(under the data directory, keyed by format, user and a digest of what the source held) says
how many records are committed, the next run of the same import starts after them, and the
file is removed when an import completes. On a real embedded store (graphmem-v1's own resume
is tested in tests/service/test_export_v1.py).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from graphmem.errors import InvalidInputError
from graphmem.service.facade import MemoryService
from graphmem.usecases import import_records
from tests.helpers.importing import mem0_export, mem0_row

TEXTS = [
    "Lives in Lisbon",
    "Is vegetarian",
    "Plays the cello on weekends",
    "Works as a nurse at Santa Maria hospital",
    "Has a cat called Miso",
    "Allergic to penicillin",
    "Learning Japanese since 2023",
    "Runs the Lisbon half marathon every March",
    "Prefers window seats on flights",
    "Sister Ana lives in Porto",
]


class Killed(BaseException):
    """Stands for the process being killed between two committed batches."""


def stop_after(n: int):  # noqa: ANN201 - a progress callback
    def progress(done: int, total: int) -> None:
        if done >= n:
            raise Killed

    return progress


def imported(svc: MemoryService, user: str) -> Counter[str]:
    """How many memories hold each import id: a record written twice shows up as 2."""
    return Counter(
        str(m.metadata.get("import_id"))
        for m in svc.list(user, include_archived=True)
        if m.metadata.get("import_format") == "mem0"
    )


def checkpoints(svc: MemoryService) -> list[Path]:
    return sorted((svc.settings.data_dir / "import").glob("*.ckpt"))


@pytest.fixture
def source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(import_records, "BATCH", 3)  # several batches out of ten records
    return mem0_export(tmp_path / "mem0.json", [mem0_row(f"m{i}", t) for i, t in enumerate(TEXTS)])


def test_a_killed_import_resumes_after_its_last_batch(svc: MemoryService, source: Path) -> None:
    with pytest.raises(Killed):
        svc.import_from("u", "mem0", str(source), progress=stop_after(6))
    assert sum(imported(svc, "u").values()) == 6 and len(checkpoints(svc)) == 1
    report = svc.import_from("u", "mem0", str(source))
    assert (report.resumed, report.added, report.unchanged, report.versions) == (6, 4, 0, 0)
    counts = imported(svc, "u")
    assert counts == Counter({f"m{i}": 1 for i in range(10)})  # each once, none missing
    assert all(len(svc.history("u", m.id)) == 1 for m in svc.list("u"))  # no version twice
    assert checkpoints(svc) == []
    again = svc.import_from("u", "mem0", str(source))  # complete: nothing is resumed
    assert (again.resumed, again.added, again.unchanged) == (0, 0, 10)


def test_a_changed_source_or_restart_starts_afresh(svc: MemoryService, source: Path) -> None:
    with pytest.raises(Killed):
        svc.import_from("u", "mem0", str(source), progress=stop_after(3))
    report = svc.import_from("u", "mem0", str(source), restart=True)
    assert (report.resumed, report.unchanged, report.added) == (0, 3, 7)
    with pytest.raises(Killed):
        svc.import_from("v", "mem0", str(source), progress=stop_after(3))
    rows = json.loads(source.read_text())["results"]
    rows[0]["memory"] = "Lives in Coimbra"
    mem0_export(source, rows)  # another source now: its checkpoint is not the old one's
    report = svc.import_from("v", "mem0", str(source))
    assert (report.resumed, report.updated, report.unchanged, report.added) == (0, 1, 2, 7)
    assert imported(svc, "v") == Counter({f"m{i}": 1 for i in range(10)}) + Counter({"m0": 1})


def test_strict_stops_at_a_bad_record_and_the_next_run_skips_it(
    svc: MemoryService, source: Path
) -> None:
    rows = json.loads(source.read_text())["results"]
    rows[4]["memory"] = "Has a cat\x00 called Miso"
    mem0_export(source, rows)
    with pytest.raises(InvalidInputError) as e:
        svc.import_from("u", "mem0", str(source), strict=True)
    assert e.value.field == "mem0 record 'm4': content"
    report = svc.import_from("u", "mem0", str(source))
    assert report.skipped == [
        "mem0 record 'm4': content: contains the control character U+0000; only tab, newline"
        " and carriage return are allowed"
    ]
    assert imported(svc, "u") == Counter({f"m{i}": 1 for i in range(10) if i != 4})
    assert checkpoints(svc) == []
