"""Cost of screening a write's metadata at its worst: objects near the 16 KiB size limit.

Every key and value is screened, so the cost of a write grows with its metadata; the size limit
is what bounds it. Each case is one write ("Lunch at noon.") with a metadata object of one
shape - many short keys and values, many prose values, one long prose value, and the two ids a
LoCoMo write carries - timed as the median of `--repeat` runs of `Guard.screen_write`.

To compare two source trees, run it once with each first on PYTHONPATH, back to back.

Usage: python bench/firewall_metadata.py [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

from graphmem.guard import Guard, GuardSettings

_WORDS = (
    "apple river window purple engine blanket quiet orange harbor pencil marble thunder garden"
).split()


def _prose(i: int) -> str:
    return " ".join(_WORDS[(i + k) % len(_WORDS)] for k in range(8)) + f" {i}"


CASES: dict[str, dict[str, Any]] = {
    "1,000 short keys and values": {f"k{i}": f"v{i}" for i in range(1000)},
    "200 prose values": {f"note{i}": _prose(i) for i in range(200)},
    "one 15 KB prose value": {"text": " ".join(_prose(i) for i in range(260))[:15000]},
    "two ids (a LoCoMo write)": {"dia_id": "D1:3", "session": "session_1"},
}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=15)
    args = p.parse_args(argv)
    guard = Guard(GuardSettings(rate_limit_backend="off", _env_file=None))
    print("| metadata | size | median per write |")
    print("|---|---|---|")
    for name, meta in CASES.items():
        size = len(json.dumps(meta, ensure_ascii=False).encode())
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            guard.screen_write("Lunch at noon.", "user", meta)
            times.append((time.perf_counter() - t0) * 1000)
        print(f"| {name} | {size} B | {statistics.median(times):.2f} ms |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
