"""`graphmem top`: the figures it derives from a /metrics text (rates, p50/p95 from the
latency buckets, the window between two readings), and the command against a real server."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from graphmem.cli.top import parse, quantile, render, rows
from tests.helpers.services import stop_process
from tests.helpers.waiting import wait_until

BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25)


def metrics_text(fast: int, slow: int, errors: int = 0) -> tuple[str, tuple]:
    reg = CollectorRegistry()
    calls = Counter("graphmem_tool_calls", "", ["tool", "outcome"], registry=reg)
    latency = Histogram(
        "graphmem_tool_latency_seconds", "", ["tool"], buckets=BUCKETS, registry=reg
    )
    pending = Gauge("graphmem_outbox_pending", "", registry=reg)
    for _ in range(fast):
        calls.labels("memory_search", "ok").inc()
        latency.labels("memory_search").observe(0.004)
    for _ in range(slow):
        calls.labels("memory_search", "ok").inc()
        latency.labels("memory_search").observe(0.2)
    for _ in range(errors):
        calls.labels("memory_search", "invalid_input").inc()
    pending.set(3)
    return generate_latest(reg).decode(), (calls, latency, pending)


def test_p50_and_p95_come_from_the_buckets() -> None:
    text, _ = metrics_text(fast=90, slow=10, errors=2)
    (r,) = rows(parse(text, 1.0), None)
    assert r["tool"] == "memory_search" and r["calls"] == 102 and r["errors"] == 2
    assert r["p50_ms"] is not None and r["p50_ms"] <= 5.0  # in the first bucket
    assert 100.0 <= r["p95_ms"] <= 250.0  # in the 0.1-0.25 s bucket
    assert r["per_s"] is None  # one reading has no rate
    shown = render("http://x/metrics", parse(text, 1.0), None)
    assert "memory_search" in shown and "outbox: 3 pending" in shown


def test_a_second_reading_gives_the_window_and_its_rate() -> None:
    before = parse(metrics_text(fast=100, slow=0)[0], 10.0)
    now = parse(metrics_text(fast=100, slow=20)[0], 12.0)  # 20 slow calls in 2 s
    (r,) = rows(now, before)
    assert r["calls"] == 20 and r["per_s"] == 10.0
    assert r["p50_ms"] >= 100.0  # the window holds only the slow calls


def test_no_observations_have_no_quantile() -> None:
    assert quantile(0.5, {}) is None and quantile(0.5, {0.1: 0.0, float("inf"): 0.0}) is None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
def test_top_reads_the_running_servers_metrics(tmp_path: Path) -> None:
    """`graphmem top --once` finds the server of the data directory by its card."""
    data = tmp_path / "data"
    env = {**os.environ, "GRAPHMEM_DATA_DIR": str(data), "PYTHONPATH": os.getcwd()}
    for k in ("GRAPHMEM_TOKENS", "GRAPHMEM_TOKENS_FILE", "GRAPHMEM_METRICS_TOKEN"):
        env.pop(k, None)
    subprocess.run(
        [sys.executable, "-m", "graphmem", "serve", "--add-token", "ann"],
        env=env,
        capture_output=True,
        timeout=60,
        check=True,
    )
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "graphmem", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:

        def metrics_served() -> bool:
            assert proc.poll() is None, "serve did not start"
            try:
                return httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=2).status_code == 200
            except httpx.TransportError:
                return False

        wait_until(metrics_served, "serve to start", 120, 0.3)
        out = subprocess.run(
            [sys.executable, "-m", "graphmem", "top", "--once", "--json"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert out.returncode == 0, out.stderr + out.stdout
        got = json.loads(out.stdout)
        assert got["url"] == f"http://127.0.0.1:{port}/metrics"
        assert got["levels"]["graphmem_store_up"]["records"] == 1.0
        assert "graphmem_outbox_pending" in got["levels"]
    finally:
        stop_process(proc)


def test_top_without_a_server_says_how_to_point_it_at_one(cli) -> None:  # noqa: ANN001
    code, out, err = cli("top", "--once")
    assert code != 0 and "--url" in out + err
