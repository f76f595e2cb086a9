"""Knowledge updates on the Chinese recall set: which stale values a write ends, and which it
should not have ended.

Each `latest` question of bench/zh_recall/ names the memory written later in the stream that
changes a value (`answers`) and the one it replaced (`stale`). After the stream is written the
agent's way (bench/zh_recall.py's ingest: one write per memory, in order, a minute apart), the
stale memory should be `superseded`: a current-only search then cannot return the old value.
Every other superseded memory is a false update, and it counts as much as a missed one: a
memory the user still holds disappears from recall.

The baseline is "no update detection" (nothing superseded): 0 updates found, 0 false.

Usage: python bench/zh_updates.py [--split tune|test|all] [--set KEY=VALUE]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import make_settings, parse_sets  # noqa: E402
from zh_recall import ingest, load_scenarios, statuses  # noqa: E402


def run(split: str, overrides: dict[str, Any]) -> dict[str, Any]:
    from graphmem import MemoryService

    found = missed = false = 0
    rows: list[str] = []
    for scenario in load_scenarios():
        latest = [
            q
            for q in scenario["questions"]
            if q["category"] == "latest" and split in ("all", q["split"])
        ]
        every_stale = {i for q in scenario["questions"] for i in q.get("stale", [])}
        with tempfile.TemporaryDirectory(prefix="graphmem-zh-updates-") as tmp:
            svc = MemoryService(make_settings(**{**overrides, "data_dir": Path(tmp)}))
            try:
                status = statuses(svc, scenario, ingest(svc, scenario))
            finally:
                svc.close()
        superseded = set(status.get("superseded", []))
        text = {m["i"]: m["text"] for m in scenario["memories"]}
        for q in latest:
            ok = set(q["stale"]) <= superseded
            found += ok
            missed += not ok
            if not ok:
                rows.append(f"  missed {q['id']}: {text[q['stale'][0]]} -> {text[q['answers'][0]]}")
        # a false update: superseded, but no latest question (of either split) calls it stale
        for i in sorted(superseded - every_stale):
            false += 1
            rows.append(f"  false  {scenario['scenario']}#{i}: {text[i]}")
    return {"split": split, "updates_found": found, "missed": missed, "false": false, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", choices=["tune", "test", "all"], default="tune")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    args = ap.parse_args(argv)
    out = run(args.split, parse_sets(args.set))
    n = out["updates_found"] + out["missed"]
    print(
        f"split {out['split']}: stale values ended {out['updates_found']}/{n};"
        f" false updates {out['false']} (baseline, no update detection: 0/{n}, 0 false)"
    )
    print("\n".join(out["rows"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
