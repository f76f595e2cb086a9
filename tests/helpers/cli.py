"""Running the `graphmem` command in its own process, a server it goes through, a store
another process holds, and reading the one-line errors it prints."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from graphmem.infra.localserver import (
    card_path,
)
from graphmem.stores.vectors.edge import EdgeVectors
from tests.helpers.mcp import child_env, free_port, graphmem_exe
from tests.helpers.services import stop_process
from tests.helpers.waiting import wait_until

START_TIMEOUT_S = 240  # the model loads first; a shared CI machine can be slow


def graphmem(data_dir: Path, *argv: str, stdin: str | None = None) -> tuple[int, str, str]:
    """Run the `graphmem` command as a user would, in its own process."""
    done = subprocess.run(
        [graphmem_exe(), *argv],
        env=child_env(data_dir),
        cwd=data_dir.parent,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return done.returncode, done.stdout, done.stderr


def one_line(err: str) -> str:
    assert "Traceback" not in err, err
    assert err.count("\n") == 1, err
    return err.strip()


def wait_for(
    predicate: Callable[[], object], what: str, proc: subprocess.Popen[bytes], log: Path
) -> None:
    """`predicate` true, while the server `proc` (writing `log`) runs: it exiting fails the
    test at once."""

    def ready() -> bool:
        if predicate():
            return True
        if proc.poll() is not None:
            pytest.fail(f"graphmem serve exited with {proc.returncode}:\n{log.read_text()}")
        return False

    wait_until(ready, f"graphmem serve: {what}", START_TIMEOUT_S, 0.25, detail=log.read_text)


@pytest.fixture(scope="module")
def http_serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, int]]:
    """`graphmem serve` over HTTP on a free loopback port, with one memory stored before."""
    tmp = tmp_path_factory.mktemp("two")
    data_dir = tmp / "data"
    code, _, err = graphmem(data_dir, "add", "Ann's sister Bea lives in Lisbon")
    assert code == 0, err
    assert "created a new store in" in err  # the first run says where the memories are
    log = tmp / "serve.log"
    port = free_port()
    env = child_env(data_dir, GRAPHMEM_TOKENS="two-process-test-token-0001=ann")
    with open(log, "wb") as sink:
        proc = subprocess.Popen(
            [graphmem_exe(), "serve", "--port", str(port)],
            env=env,
            cwd=tmp,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for(lambda: b"MCP server on" in log.read_bytes(), "start", proc, log)
        yield data_dir, proc.pid
    finally:
        stop_process(proc)
        assert proc.returncode == 0, log.read_text()
        # a normal stop (SIGTERM) removes the card: nothing claims the store any more
        assert not card_path(data_dir).exists()
        assert "Traceback" not in log.read_text()


HOLD = """
import sys, time
from pathlib import Path
from graphmem.stores.vectors.edge import EdgeVectors
held = EdgeVectors(Path(sys.argv[1]) / "vectors", dim=384)
print("held", flush=True)
time.sleep(120)  # holds until the fixture stops it; 120 s only bounds a process left behind
"""


@pytest.fixture
def held_store(tmp_path: Path) -> Iterator[Path]:
    """A store whose vectors another process (not a server: no card) holds open."""
    data_dir = tmp_path / "data"
    EdgeVectors(data_dir / "vectors", dim=384).close()
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(data_dir)],
        env=child_env(data_dir),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        yield data_dir
    finally:
        stop_process(proc)


def json_error(out: str, err: str) -> dict[str, Any]:
    """The one JSON error a failed --json command prints: on stdout, alone."""
    assert err == "", err
    assert out.count("\n") == 1, out
    doc = json.loads(out)
    assert set(doc) == {"error"} and set(doc["error"]) == {"field", "message"}, doc
    assert isinstance(doc["error"]["message"], str) and doc["error"]["message"]
    return dict(doc["error"])
