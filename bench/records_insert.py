"""What the embedded records store's write costs with a graph: `SQLiteRecords.insert` of one
user's memories in batches, each with its relations and entity links, as `write_many` hands
them over (no model, no service: only the records transaction).

The graph row counts kept by triggers (`graph_row_counts`) and the list indexes are paid here,
once per row written, so that the Health page and `memory_health` read counts instead of
counting; this measures that price, and that of the metadata index (`memory_meta`, one row
per scalar metadata value: `--metadata` keys per memory). Run it on two checkouts alternately
to compare them.

Usage:
  python bench/records_insert.py [--memories 10000] [--batch 500] [--relations 17] [--metadata 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS_DIR, command_line, machine_info  # noqa: E402


def run(memories: int, batch: int, relations: int, meta_keys: int = 0) -> dict[str, object]:
    from graphmem.domain.model import Memory, new_id
    from graphmem.domain.text import search_text
    from graphmem.stores.records.rows import EntityRef, GraphRows, Relation
    from graphmem.stores.records.sqlite import SQLiteRecords

    seconds = []
    written = 0
    with tempfile.TemporaryDirectory(prefix="gm-records-insert-") as folder:
        store = SQLiteRecords(Path(folder) / "r.sqlite3")
        ids: list[str] = []
        for start in range(0, memories, batch):
            mems = [
                Memory(
                    id=new_id(),
                    user_id="me",
                    content=f"memory {i} about things",
                    # scalar values of each kind the metadata index (memory_meta) keeps
                    metadata={
                        f"k{k}": (i, f"v{i % 97}", i % 2 == 0)[k % 3] for k in range(meta_keys)
                    },
                )
                for i in range(start, min(memories, start + batch))
            ]
            every = ids + [m.id for m in mems]
            # each memory related to the `relations` written just before it, as linking does
            rels = {
                (m.id, every[j]): Relation("me", m.id, every[j], "related", 0.5)
                for i, m in enumerate(mems, len(ids))
                for j in range(max(0, i - relations), i)
            }
            ents = {
                m.id: [EntityRef(f"e{(i * k) % 300}", "E") for k in (1, 3, 7)]
                for i, m in enumerate(mems, start)
            }
            graph = GraphRows("me", ents, list(rels.values()))
            t0 = time.perf_counter()
            store.insert(mems, [search_text(m.content) for m in mems], graph)
            seconds.append(time.perf_counter() - t0)
            written += len(rels)
            ids = every
        store.close()
    return {
        "memories": memories,
        "relations": written,
        "batch": batch,
        "metadata_keys": meta_keys,
        "batch_median_ms": round(1000 * statistics.median(seconds), 1),
        "total_s": round(sum(seconds), 2),
        "per_memory_ms": round(1000 * sum(seconds) / memories, 3),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--memories", type=int, default=10_000)
    p.add_argument("--batch", type=int, default=500)
    p.add_argument("--relations", type=int, default=17, help="per memory (100k stores: ~17)")
    p.add_argument("--metadata", type=int, default=0, help="scalar metadata keys per memory")
    p.add_argument("--out", type=Path, default=RESULTS_DIR / "records_insert.json")
    args = p.parse_args(argv)
    result = {
        "benchmark": "records_insert",
        "command": command_line(),
        "machine": machine_info(),
        "loadavg": [round(x, 2) for x in os.getloadavg()],
        **run(args.memories, args.batch, args.relations, args.metadata),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    print(json.dumps({k: v for k, v in result.items() if k != "machine"}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
