"""`graphmem top`: a running server's live figures in the terminal, from its /metrics.

It reads what `graphmem serve` already exports for Prometheus (graphmem.infra.metrics), so it adds
no bookkeeping to the server: calls per tool and their rate, p50/p95 latency (estimated from
the latency histogram's buckets, as Prometheus's histogram_quantile does), errors, the
projection outbox (rows pending and the age of the oldest: the queue between a write and its
vectors and graph), memories by status and whether each store answers. Each frame after the
first covers the last interval only; `--once` prints the totals since the server started.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from graphmem.cli.common import AddCommand, data_dir_of, settings_of
from graphmem.errors import InvalidInputError, StoreUnavailableError

LATENCY = "graphmem_tool_latency_seconds"


@dataclass
class Scrape:
    """One reading of /metrics: per tool its calls by outcome and latency buckets; levels."""

    at: float
    calls: dict[str, dict[str, float]] = field(default_factory=dict)
    buckets: dict[str, dict[float, float]] = field(default_factory=dict)
    levels: dict[str, dict[str, float]] = field(default_factory=dict)


def parse(text: str, at: float = 0.0) -> Scrape:
    from prometheus_client.parser import text_string_to_metric_families

    out = Scrape(at)
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == "graphmem_tool_calls_total":
                tool = out.calls.setdefault(s.labels["tool"], {})
                tool[s.labels["outcome"]] = s.value
            elif s.name == LATENCY + "_bucket":
                le = float(s.labels["le"])
                out.buckets.setdefault(s.labels["tool"], {})[le] = s.value
            elif s.name in (
                "graphmem_outbox_pending",
                "graphmem_outbox_lag_seconds",
                "graphmem_memories",
                "graphmem_store_up",
            ):
                key = next(iter(s.labels.values()), "")
                out.levels.setdefault(s.name, {})[key] = s.value
    return out


def quantile(q: float, buckets: dict[float, float]) -> float | None:
    """The q-quantile of cumulative buckets {upper bound: count}, interpolated within the
    bucket it falls in; None without observations."""
    bounds = sorted(buckets)
    total = buckets[bounds[-1]] if bounds else 0.0
    if total <= 0:
        return None
    rank, lower, below = q * total, 0.0, 0.0
    for upper in bounds:
        count = buckets[upper]
        if count >= rank:
            if upper == float("inf"):
                return lower
            inside = count - below
            return lower + (upper - lower) * ((rank - below) / inside if inside else 1.0)
        lower, below = upper, count
    return lower


def rows(now: Scrape, before: Scrape | None) -> list[dict[str, Any]]:
    """Per tool: calls and errors (in the window when `before` is given), calls per second,
    and p50/p95 in milliseconds."""
    span = now.at - before.at if before is not None and now.at > before.at else None
    out = []
    for tool in sorted(now.calls):
        calls = now.calls[tool]
        prior = before.calls.get(tool, {}) if before is not None else {}
        n = sum(calls.values()) - sum(prior.values())
        errors = sum(v - prior.get(k, 0.0) for k, v in calls.items() if k != "ok")
        b = now.buckets.get(tool, {})
        pb = before.buckets.get(tool, {}) if before is not None else {}
        window = {le: c - pb.get(le, 0.0) for le, c in b.items()}
        p50, p95 = quantile(0.5, window), quantile(0.95, window)
        out.append(
            {
                "tool": tool,
                "calls": int(n),
                "errors": int(errors),
                "per_s": round(n / span, 2) if span else None,
                "p50_ms": round(p50 * 1000, 1) if p50 is not None else None,
                "p95_ms": round(p95 * 1000, 1) if p95 is not None else None,
            }
        )
    return out


def render(url: str, now: Scrape, before: Scrape | None) -> str:
    def cell(v: Any) -> str:
        return "-" if v is None else str(v)

    window = "last interval" if before is not None else "since the server started"
    lines = [
        f"graphmem top  {url}  ({window}; Ctrl-C stops)",
        f"{'tool':28} {'calls/s':>8} {'calls':>7} {'errors':>7} {'p50 ms':>8} {'p95 ms':>8}",
    ]
    for r in rows(now, before):
        lines.append(
            f"{r['tool']:28} {cell(r['per_s']):>8} {r['calls']:>7} {r['errors']:>7}"
            f" {cell(r['p50_ms']):>8} {cell(r['p95_ms']):>8}"
        )
    if not now.calls:
        lines.append("(no tool calls yet)")
    lv = now.levels
    pending = lv.get("graphmem_outbox_pending", {}).get("")
    lag = lv.get("graphmem_outbox_lag_seconds", {}).get("")
    lines.append(f"outbox: {cell(pending and int(pending))} pending, oldest {cell(lag)} s")
    mems = lv.get("graphmem_memories", {})
    lines.append("memories: " + (", ".join(f"{k} {int(v)}" for k, v in mems.items()) or "-"))
    up = lv.get("graphmem_store_up", {})
    lines.append(
        "stores: " + (", ".join(f"{k} {'up' if v else 'DOWN'}" for k, v in up.items()) or "-")
    )
    return "\n".join(lines)


def fetch(url: str, token: str | None) -> str:
    import httpx

    headers = {"authorization": f"Bearer {token}"} if token else {}
    try:
        r = httpx.get(url, headers=headers, timeout=5)
    except httpx.HTTPError as e:
        raise StoreUnavailableError(f"cannot read {url}: {type(e).__name__}") from None
    if r.status_code != 200:
        raise StoreUnavailableError(
            f"{url} answered {r.status_code}"
            + (" (set GRAPHMEM_METRICS_TOKEN)" if r.status_code == 401 else "")
        )
    return r.text


def metrics_url(args: argparse.Namespace) -> str:
    if args.url:
        return str(args.url)
    from graphmem.infra.localserver import running

    settings = settings_of(args)
    card = running(data_dir_of(args))
    if card is None or not card.url:
        raise InvalidInputError(
            "url",
            "no graphmem serve runs on this data directory over HTTP; give its metrics"
            " address with --url http://HOST:PORT/metrics",
        )
    return card.url.rstrip("/") + settings.server.metrics_path


def cmd_top(args: argparse.Namespace) -> int:
    if args.interval <= 0:
        raise InvalidInputError("interval", "must be more than 0 seconds")
    url = metrics_url(args)
    secret = settings_of(args).server.metrics_token
    token = secret.get_secret_value() if secret else None
    first = parse(fetch(url, token), time.monotonic())
    if args.once:
        if args.json:
            print(json.dumps({"url": url, "tools": rows(first, None), "levels": first.levels}))
        else:
            print(render(url, first, None))
        return 0
    before = first
    try:
        while True:
            time.sleep(args.interval)
            now = parse(fetch(url, token), time.monotonic())
            sys.stdout.write("\x1b[H\x1b[2J" + render(url, now, before) + "\n")
            sys.stdout.flush()
            before = now
    except KeyboardInterrupt:
        return 0


def register(add: AddCommand) -> None:
    sp = add(
        "top",
        cmd_top,
        "a running server's live figures: calls and p50/p95 per tool, outbox, stores",
        user=None,
        json="with --once: the figures as JSON",
    )
    sp.add_argument("--url", help="the server's metrics address (default: the running server's)")
    sp.add_argument("--interval", type=float, default=2.0, help="seconds between frames")
    sp.add_argument("--once", action="store_true", help="print the totals once and exit")
