"""Re-running a firewall trainer with `--check` against the shipped weights."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def assert_retraining_reproduces(script: str, timeout: float) -> None:
    """Runs bench/`script` --check on the benchmark data (GRAPHMEM_BENCH_DATA: a directory with
    locomo10.json and bipia_text_attack_train.json; skipped without it or scikit-learn) and
    asserts the fresh weights are the shipped ones."""
    pytest.importorskip("sklearn")
    data = os.environ.get("GRAPHMEM_BENCH_DATA")
    if not data or not (Path(data) / "locomo10.json").exists():
        pytest.skip("GRAPHMEM_BENCH_DATA not set to the benchmark data directory")
    out = subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / script),
            "--check",
            "--bipia",
            str(Path(data) / "bipia_text_attack_train.json"),
            "--locomo",
            str(Path(data) / "locomo10.json"),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=timeout,
    )
    assert out.returncode == 0, out.stdout + out.stderr[-2000:]
    assert '"same": true' in out.stdout
