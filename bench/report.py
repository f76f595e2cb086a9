"""Render docs/benchmarks.md from the JSON results in bench/results/, with PNG plots.

docs/benchmarks.md is its own template: hand-written context lives outside marker pairs

    <!-- BEGIN GENERATED locomo ... -->
    ...replaced on every render...
    <!-- END GENERATED locomo -->

and each marked section is re-rendered from one results file (below), so re-running a single
benchmark with `--out bench/results/<file>` and then `python bench/report.py` updates just its
section. A section whose results file is missing is left as it is (and listed on stdout).
The tables come from each harness's own `markdown()`, so a harness and the report never
disagree about what a figure means.

  section     results file          harness
  suite       suite.json            bench/suite.py (wall time and peak RSS per benchmark)
  locomo      locomo.json           bench/locomo.py (+ peers from bench/peers.py)
  scale       scale.json            bench/scale.py
  firewall    firewall.json         bench/firewall.py
  mcp         mcp_overhead.json     bench/mcp_overhead.py
  production  production.json       bench/production.py

Usage: python bench/report.py [--results DIR] [--doc PATH] [--template PATH] [--img-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REPO_ROOT, RESULTS_DIR, fmt  # noqa: E402

DOC = REPO_ROOT / "docs" / "benchmarks.md"
IMG_DIR = REPO_ROOT / "docs" / "img"
_SECTION = re.compile(
    r"(<!-- BEGIN GENERATED (?P<name>[\w-]+)[^>]*-->\n)(?P<body>.*?)"
    r"(<!-- END GENERATED (?P=name) -->)",
    re.DOTALL,
)


# ----------------------------------------------------------------------------- plots
def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    return plt


def plot_scale(r: dict[str, Any], img: Path) -> list[tuple[str, Path]]:
    """Latency per mode, write throughput and peak RSS against store size."""
    plt = _plt()
    sizes = [s["size"] for s in r["sizes"]]
    out: list[tuple[str, Path]] = []

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.8), sharex=True)
    modes = list(dict.fromkeys(m for s in r["sizes"] for m in s["search"]["modes"]))
    for mode in modes:
        pts = [
            (s["size"], s["search"]["modes"][mode])
            for s in r["sizes"]
            if mode in s["search"]["modes"]
        ]
        for ax, key in zip(axes, ("p50", "p95"), strict=True):
            ax.plot([p[0] for p in pts], [p[1][key] for p in pts], marker="o", label=mode)
    for ax, key in zip(axes, ("p50", "p95"), strict=True):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("memories in the store")
        ax.set_ylabel(f"search {key} (ms)")
        ax.set_title(f"search latency {key}, top-{r.get('top_k', 10)}")
        ax.grid(True, which="both", alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    out.append(("Search latency against store size", _save(fig, img / "scale-latency.png")))

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.2))
    real = [s for s in r["sizes"] if not s["write"]["path"].startswith("bulk")]
    if real:
        a1.plot(
            [s["size"] for s in real],
            [s["write"]["per_s"] for s in real],
            marker="o",
            label="write_many incl. embedding",
        )
        a1.set_xscale("log")
        a1.set_xlabel("store size at the end of the phase")
        a1.set_ylabel("memories / s")
        a1.set_title("write throughput (real embeddings)")
        a1.grid(True, which="both", alpha=0.3)
        a1.set_ylim(bottom=0)
    rss = [(k, v[0]) for k, v in r["rss_mb"].items()]
    by_size = [(s, next((p for k, p in rss if k == f"after {s:,}"), None)) for s in sizes]
    by_size = [(s, p) for s, p in by_size if p is not None]
    a2.plot([s for s, _ in by_size], [p for _, p in by_size], marker="o", color="tab:red")
    a2.set_xscale("log")
    a2.set_xlabel("memories in the store")
    a2.set_ylabel("peak RSS (MiB)")
    a2.set_title("peak resident memory (includes the model)")
    a2.grid(True, which="both", alpha=0.3)
    a2.set_ylim(bottom=0)
    fig.tight_layout()
    out.append(("Write throughput and peak RSS", _save(fig, img / "scale-writes-rss.png")))
    return out


def plot_locomo(r: dict[str, Any], split: str, img: Path) -> tuple[str, Path]:
    plt = _plt()
    summ = r["splits"][split]
    modes = r["modes"]
    cats = [c for c in next(iter(summ.values())) if summ[modes[0]][c]["n"]]
    fig, ax = plt.subplots(figsize=(11, 4.2))
    width = 0.8 / len(modes)
    for i, mode in enumerate(modes):
        xs = [j + i * width for j in range(len(cats))]
        ax.bar(xs, [summ[mode][c]["recall@10"] for c in cats], width, label=mode)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(cats))], cats)
    ax.set_ylabel("evidence recall@10")
    ax.set_ylim(0, 1)
    ax.set_title(f"LoCoMo retrieval, {r['split_labels'][split]}")
    ax.legend(fontsize=8, ncol=min(len(modes), 6))
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    return "LoCoMo recall@10 per category", _save(fig, img / "locomo-recall.png")


def _save(fig: Any, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    _plt().close(fig)
    return path


def _images(images: list[tuple[str, Path]], doc: Path) -> list[str]:
    return [f"![{alt}]({os.path.relpath(p, doc.parent)})" for alt, p in images]


# ----------------------------------------------------------------------------- sections
_DATA_PATH = re.compile(r"(?:\S*/)?shared/bench\b")


def clean_command(command: str) -> str:
    """The command as a reader would type it from the repository root: the benchmark data
    directory as its documented default, no absolute paths of the machine that ran it."""
    command = _DATA_PATH.sub("../shared/bench", command)
    return command.replace(str(REPO_ROOT) + os.sep, "")


def _run_line(r: dict[str, Any]) -> str:
    m = r.get("machine", {})
    return (
        f"Run {m.get('date', '?')} on {m.get('cores', '?')} cores ({m.get('cpu', '?')}),"
        f" commit {m.get('git', m.get('git_rev', '?'))}."
        f" Command: `{clean_command(r.get('command', '?'))}`"
    )


def render_locomo(r: dict[str, Any], doc: Path, img: Path) -> str:
    import locomo

    d = r["data"]
    lines = [
        _run_line(r),
        "",
        f"{d['questions_scored']} questions scored; ingest {d['turns']} turns in"
        f" {r['timing_s']['ingest']} s ({r['ingest_turns_per_s']} turns/s incl. embedding);"
        f" peak RSS {r['peak_rss_mb']} MiB; other processes used"
        f" {r['cpu_use']['ingest']['others_busy']:.0%} (ingest) /"
        f" {r['cpu_use']['search']['others_busy']:.0%} (search) of the CPU.",
        "",
        locomo.markdown(r).rstrip(),
        "",
    ]
    split = "test" if r["splits"]["test"][r["modes"][0]]["overall"]["n"] else "all"
    lines += peers_markdown(r, split)
    lines += _images([plot_locomo(r, split, img)], doc)
    return "\n".join(lines) + "\n"


def peers_markdown(r: dict[str, Any], split: str) -> list[str]:
    """Every mode and peer against graphmem's default (hybrid): quality and latency ratios."""
    modes = r["modes"]
    base = "hybrid" if "hybrid" in modes else modes[0]
    summ = r["splits"][split]
    b, blat = summ[base]["overall"], r["latency_ms"][base]
    lines = [
        f"#### Against graphmem `{base}`, {r['split_labels'][split].lower()} (ratio = other /"
        f" {base}; same data, same machine, same run)",
        "",
        "| system / mode | recall@10 | ratio | hit@5 | ratio | MRR | ratio | search p50 ms |"
        " latency ratio |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for m in modes:
        o, lat = summ[m]["overall"], r["latency_ms"][m]
        who = f"{m} (peer)" if m in r.get("peers", {}) else f"graphmem {m}"
        cells = []
        for k in ("recall@10", "hit@5", "mrr"):
            cells += [fmt(o[k]), f"{o[k] / b[k]:.2f}×" if b[k] else "–"]
        ratio = f"{lat['p50'] / blat['p50']:.2f}×" if blat["p50"] else "–"
        lines.append(f"| {who} | " + " | ".join(cells) + f" | {fmt(lat['p50'], 1)} | {ratio} |")
    lines.append("")
    for name, p in r.get("peers", {}).items():
        lines.append(
            f"- **{name}** {p.get('version') or ''}: {p.get('mode')}; embedder"
            f" {p.get('embedder')}; vector store {p.get('vector_store')}; ingest"
            f" {p.get('ingest_turns_per_s')} turns/s (graphmem: {r['ingest_turns_per_s']} turns/s"
            " incl. entity extraction and graph linking)."
        )
    if r.get("peers"):
        lines.append("")
    return lines


def render_scale(r: dict[str, Any], doc: Path, img: Path) -> str:
    import scale

    return (
        "\n".join(
            [_run_line(r), "", scale.markdown(r).rstrip(), "", *_images(plot_scale(r, img), doc)]
        )
        + "\n"
    )


def render_firewall(r: dict[str, Any], doc: Path, img: Path) -> str:
    import firewall

    return "\n".join([_run_line(r), "", firewall.markdown(r).rstrip()]) + "\n"


def render_mcp(r: dict[str, Any], doc: Path, img: Path) -> str:
    lines = [
        _run_line(r),
        "",
        f"{r['memories']} memories; load average {r['loadavg_1m']['start']} at start,"
        f" {r['loadavg_1m']['end']} at end.",
        "",
        "| pass | direct p50 / p95 ms | HTTP p50 / p95 ms | overhead p50 ms | ratio |",
        "|---|---|---|---|---|",
    ]
    for label, s in r["sequential"].items():
        d, h = s["direct"], s["http"]
        lines.append(
            f"| {label.replace('_', ' ')} (n={d['n']}) | {fmt(d['p50_ms'], 2)} /"
            f" {fmt(d['p95_ms'], 2)} | {fmt(h['p50_ms'], 2)} / {fmt(h['p95_ms'], 2)} |"
            f" {fmt(s['overhead_ms_p50'], 2)} | {fmt(s['overhead_ratio_p50'], 2)}× |"
        )
    lines += [
        "",
        "| concurrent clients, every query new | p50 ms | p95 ms | p99 ms | throughput | errors |",
        "|---|---|---|---|---|---|",
    ]
    for label, c in (
        ("HTTP (MCP)", r["concurrent"]),
        ("direct, one thread per client", r["concurrent_direct"]),
    ):
        lines.append(
            f"| {label} | {fmt(c['p50_ms'], 1)} | {fmt(c['p95_ms'], 1)} | {fmt(c['p99_ms'], 1)}"
            f" | {c['throughput_rps']} req/s | {c.get('errors', 0)} |"
        )
    return "\n".join(lines) + "\n"


def render_production(r: dict[str, Any], doc: Path, img: Path) -> str:
    rows = r["rows"]
    base = rows[0]
    lines = [
        _run_line(r),
        "",
        "| stack | writes/s | search p50 ms | search p95 ms | erase a user s | verified |",
        "|---|---|---|---|---|---|",
    ]
    for x in rows:
        lines.append(
            f"| {x['label']} | {x['write_per_s']:.0f}"
            f" ({x['write_per_s'] / base['write_per_s']:.2f}×)"
            f" | {x['search_p50_ms']:.1f} ({x['search_p50_ms'] / base['search_p50_ms']:.2f}×)"
            f" | {x['search_p95_ms']:.1f} | {x['erase_s']:.2f} ({x['erase_memories']:,}) |"
            f" {'yes' if x['erase_verified'] else 'NO'} |"
        )
    return "\n".join(lines) + "\n"


def render_suite(r: dict[str, Any], doc: Path, img: Path) -> str:
    lines = [
        f"`{clean_command(r['command'])}` — {r['machine']['date']}, {r['machine']['cores']} cores,"
        f" variant **{r['variant']}**, {r['total_s']:.0f} s in all.",
        "",
        "| benchmark | status | wall s | peak RSS MiB | results |",
        "|---|---|---|---|---|",
    ]
    for name, s in r["stages"].items():
        lines.append(
            f"| {name} | {s['status']} | {fmt(s.get('wall_s'), 1)} |"
            f" {fmt(s.get('peak_rss_mb'), 0)} | `{s.get('out', '–')}` |"
        )
    return "\n".join(lines) + "\n"


SECTIONS: dict[str, tuple[str, Callable[[dict[str, Any], Path, Path], str]]] = {
    "suite": ("suite.json", render_suite),
    "locomo": ("locomo.json", render_locomo),
    "scale": ("scale.json", render_scale),
    "firewall": ("firewall.json", render_firewall),
    "mcp": ("mcp_overhead.json", render_mcp),
    "production": ("production.json", render_production),
}


def render(template: str, results: Path, doc: Path, img: Path) -> tuple[str, dict[str, str]]:
    """The template with every section that has a results file re-rendered."""
    status: dict[str, str] = {}

    def one(m: re.Match[str]) -> str:
        name = m.group("name")
        if name not in SECTIONS:
            status[name] = "unknown section (left as is)"
            return m.group(0)
        file, fn = SECTIONS[name]
        path = results / file
        if not path.exists():
            status[name] = f"no {path} (left as is)"
            return m.group(0)
        body = fn(json.loads(path.read_text("utf-8")), doc, img)
        status[name] = f"rendered from {path}"
        return m.group(1) + body + m.group(4)

    return _SECTION.sub(one, template), status


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--results", type=Path, default=RESULTS_DIR, help="where the JSON results are")
    p.add_argument("--template", type=Path, default=DOC, help="markdown with GENERATED markers")
    p.add_argument("--doc", type=Path, default=None, help="output (default: the template)")
    p.add_argument("--img-dir", type=Path, default=None, help="PNG plots (default: docs/img)")
    args = p.parse_args(argv)
    doc = args.doc or args.template
    img = args.img_dir or (IMG_DIR if doc.resolve() == DOC.resolve() else doc.parent / "img")
    template = args.template.read_text("utf-8")
    if not _SECTION.search(template):
        raise SystemExit(f"{args.template}: no '<!-- BEGIN GENERATED name -->' sections")
    text, status = render(template, args.results, doc, img)
    doc.parent.mkdir(parents=True, exist_ok=True)
    doc.write_text(text, "utf-8")
    for name, s in status.items():
        print(f"{name:<11} {s}")
    print(f"wrote {doc}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
