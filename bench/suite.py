"""Run every benchmark, then regenerate docs/benchmarks.md from their results: one command.

    python bench/suite.py            # full: LoCoMo (all modes + peers), scale 10k/100k/1M, ...
    python bench/suite.py --quick    # minutes: small sizes, one conversation; own output dir
    python bench/suite.py --only locomo,scale
    python bench/report.py           # re-render only, from whatever results exist

Each benchmark runs as its own process (so its peak RSS is its own; the suite reads it from
wait4), writes its JSON to a fixed name in the results directory, and shows its own progress
bar under the suite's bar. The full variant writes bench/results/*.json and rewrites the
generated sections of docs/benchmarks.md (plots in docs/img/); the quick variant writes
bench/results/quick/ and renders bench/results/quick/benchmarks.md, leaving the docs alone.

Skipped, and said so in the report: production (needs the MariaDB / Redis / Neo4j from
scripts/services.sh, i.e. GRAPHMEM_TEST_* variables), peers whose package is not installed.
LoCoMo modes that the harness offers beyond the four classic ones (e.g. a summary-first mode)
are included automatically.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REPO_ROOT, RESULTS_DIR, command_line, machine_info  # noqa: E402

BENCH = Path(__file__).resolve().parent
DEFAULT_DATA = Path(os.environ.get("GRAPHMEM_BENCH_DATA", REPO_ROOT.parent / "shared" / "bench"))
CLASSIC_MODES = ["bm25", "vector", "hybrid", "hybrid-nograph"]
STAGES = ("locomo", "scale", "firewall", "mcp", "production")
SERVICES_ENV = ("GRAPHMEM_TEST_MYSQL_URL", "GRAPHMEM_TEST_NEO4J_URL", "GRAPHMEM_TEST_REDIS_URL")


def locomo_modes() -> list[str]:
    """The classic ablation plus every extra built-in mode the harness offers (summary-first
    and the like): the report includes them as soon as bench/locomo.py has them."""
    import locomo

    return CLASSIC_MODES + [m for m in locomo.BUILTIN_MODES if m not in CLASSIC_MODES]


def peers_available() -> list[str]:
    return ["mem0"] if importlib.util.find_spec("mem0") is not None else []


def plan(args: argparse.Namespace, out: Path) -> dict[str, list[str] | str]:
    """stage -> argv (or the reason it is skipped)."""
    data: Path = args.data
    quick = args.quick
    locomo = [
        "locomo.py",
        "--data",
        str(data / "locomo10.json"),
        "--conversations",
        "conv-30" if quick else "all",
        "--modes",
        ",".join(locomo_modes()),
        "--out",
        str(out / "locomo.json"),
    ]
    peers = peers_available()
    if peers:
        locomo += ["--peers", ",".join(peers)]
    scale = ["scale.py", "--out", str(out / "scale.json")]
    scale += (
        [
            "--sizes",
            "1000,2000,5000",
            "--real-max",
            "2000",
            "--queries",
            "20",
            "--batch",
            "250",
            "--compare-points",
            "2000",
            "--compare-queries",
            "20",
        ]
        if quick
        else ["--sizes", "10000,100000,1000000", "--profile"]
    )
    stages: dict[str, list[str] | str] = {
        "locomo": locomo,
        "scale": scale,
        "firewall": [
            "firewall.py",
            "--bipia",
            str(data / "bipia_text_attack_train.json"),
            "--locomo",
            str(data / "locomo10.json"),
            "--out",
            str(out / "firewall.json"),
        ],
        "mcp": ["mcp_overhead.py", "--out", str(out / "mcp_overhead.json")]
        + (
            ["--memories", "200", "--queries", "20", "--clients", "5", "--requests", "3"]
            if quick
            else []
        ),
    }
    missing = [v for v in SERVICES_ENV if not os.environ.get(v)]
    stages["production"] = (
        f"skipped: {', '.join(missing)} not set (start scripts/services.sh and source"
        " .services/env)"
        if missing
        else ["production.py", "--out", str(out / "production.json")]
        + (["--memories", "200", "--searches", "20", "--erase", "500"] if quick else [])
    )
    if not (data / "locomo10.json").exists():
        for name in ("locomo", "firewall"):
            stages[name] = f"skipped: {data / 'locomo10.json'} not found (--data DIR)"
    return stages


def run_stage(argv: list[str], log: Path) -> tuple[int, float, float]:
    """Run one benchmark; returns (exit code, wall seconds, peak RSS MiB of that process)."""
    t0 = time.perf_counter()
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, *argv],
            cwd=BENCH,
            stdout=out,
            stderr=None,  # bars on the terminal
        )
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, time.perf_counter() - t0, usage.ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="small sizes: checks the pipeline")
    p.add_argument("--only", default="", help=f"comma-separated subset of {', '.join(STAGES)}")
    p.add_argument(
        "--data",
        type=Path,
        default=DEFAULT_DATA,
        help="directory with locomo10.json and bipia_text_attack_train.json"
        " (default $GRAPHMEM_BENCH_DATA or ../shared/bench)",
    )
    p.add_argument("--no-report", action="store_true", help="run only, do not render")
    args = p.parse_args(argv)
    only = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = sorted(set(only) - set(STAGES))
    if unknown:
        raise SystemExit(f"--only: unknown benchmark(s) {', '.join(unknown)}; use {STAGES}")

    from tqdm import tqdm

    out = RESULTS_DIR / "quick" if args.quick else RESULTS_DIR
    out.mkdir(parents=True, exist_ok=True)
    stages = {k: v for k, v in plan(args, out).items() if not only or k in only}
    suite_file = out / "suite.json"
    previous = json.loads(suite_file.read_text("utf-8")) if suite_file.exists() else {}
    summary: dict[str, Any] = {
        "command": command_line(),
        "machine": machine_info(),
        "variant": "quick" if args.quick else "full",
        "stages": previous.get("stages", {}) if only else {},
    }
    t_all = time.perf_counter()
    bar = tqdm(
        list(stages.items()),
        desc="benchmarks",
        unit="bench",
        file=sys.stderr,
        position=0,
        leave=True,
    )
    failed = []
    for name, argv_or_reason in bar:
        bar.set_postfix_str(name)
        if isinstance(argv_or_reason, str):
            summary["stages"][name] = {"status": argv_or_reason}
            tqdm.write(f"[{name}] {argv_or_reason}", file=sys.stderr)
            continue
        log = out / f"{name}.log"
        tqdm.write(
            f"[{name}] python bench/{' '.join(argv_or_reason)}  (stdout: {log})", file=sys.stderr
        )
        code, wall, rss = run_stage(argv_or_reason, log)
        status = "ok" if code == 0 else f"FAILED (exit {code}, see {log.name})"
        if code:
            failed.append(name)
        target = argv_or_reason[argv_or_reason.index("--out") + 1]
        summary["stages"][name] = {
            "status": status,
            "wall_s": round(wall, 1),
            "peak_rss_mb": round(rss, 1),
            "out": os.path.relpath(target, REPO_ROOT),
        }
        tqdm.write(f"[{name}] {status} in {wall:.0f} s, peak RSS {rss:.0f} MiB", file=sys.stderr)
    bar.close()
    summary["total_s"] = round(time.perf_counter() - t_all, 1)
    suite_file.write_text(json.dumps(summary, indent=1), "utf-8")

    if not args.no_report:
        import report

        doc = out / "benchmarks.md" if args.quick else None
        report.main(["--results", str(out)] + (["--doc", str(doc)] if doc else []))
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
