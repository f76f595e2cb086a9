"""Import throughput against write_many on the same records, with the firewall on.

`graphmem import --from mem0` must cost little more than writing the same memories by hand:
each record is validated, screened and written through write_many, plus the import's own work
(reading the export, the provenance keys, the lookup of what an earlier import stored). This
writes --records synthetic mem0 memories (varied sentences about a few people and topics) into
a fresh store twice per trial, once through `write_many` in batches of 256 and once through
`import_from("mem0", ...)` of the same records as a get_all() JSON file, alternating which goes
first so a busy machine slows both alike. It reports records per second (medians) and the
ratio import / write_many; the target is at least 0.8.

Usage:
  python bench/import.py [--records 20000] [--trials 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import machine_info  # noqa: E402
from graphmem.service.facade import MemoryService  # noqa: E402
from graphmem.settings import Settings  # noqa: E402

SUBJECTS = ["Ana", "Ben", "Chen", "Dara", "Eli", "Femi", "Gus", "Hana", "Ivo", "Jun"]
TOPICS = ["tea", "jazz", "hiking", "chess", "sushi", "trains", "Lisbon", "yoga", "opera", "tango"]
VERBS = ["likes", "plans a trip involving", "is learning about", "asked about", "wrote about"]
BATCH = 256


def records(n: int) -> list[str]:
    rng = random.Random(7)
    return [
        f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(TOPICS)} (note {i})"
        for i in range(n)
    ]


def by_hand(folder: Path, texts: list[str]) -> float:
    svc = MemoryService(Settings(data_dir=folder))
    try:
        started = time.perf_counter()
        for i in range(0, len(texts), BATCH):
            items: list[Any] = [{"content": t, "source": "agent"} for t in texts[i : i + BATCH]]
            svc.write_many("bench", items)
        return len(texts) / (time.perf_counter() - started)
    finally:
        svc.close()


def imported(folder: Path, export: Path, n: int) -> float:
    svc = MemoryService(Settings(data_dir=folder))
    try:
        started = time.perf_counter()
        report = svc.import_from("bench", "mem0", str(export))
        seconds = time.perf_counter() - started
        assert report.added == n and not report.skipped, report.to_dict()
        return n / seconds
    finally:
        svc.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", type=int, default=20_000)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--json", help="write the result here too")
    args = ap.parse_args()
    texts = records(args.records)
    rates: dict[str, list[float]] = {"write_many": [], "import": []}
    with tempfile.TemporaryDirectory() as tmp:
        export = Path(tmp, "mem0.json")
        rows = [{"id": f"m{i}", "memory": t, "user_id": "x"} for i, t in enumerate(texts)]
        export.write_text(json.dumps({"results": rows}), encoding="utf-8")
        for trial in range(args.trials):
            order = ("write_many", "import") if trial % 2 == 0 else ("import", "write_many")
            for which in order:
                folder = Path(tmp, f"{which}-{trial}")
                rate = (
                    by_hand(folder, texts)
                    if which == "write_many"
                    else imported(folder, export, len(texts))
                )
                rates[which].append(rate)
                print(f"trial {trial + 1} {which}: {rate:.0f} records/s", flush=True)
    medians = {k: statistics.median(v) for k, v in rates.items()}
    result = {
        "records": args.records,
        "trials": args.trials,
        "records_per_second": {k: round(v, 1) for k, v in medians.items()},
        "ratio": round(medians["import"] / medians["write_many"], 3),
        "machine": machine_info(),
    }
    print(json.dumps({k: v for k, v in result.items() if k != "machine"}))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
