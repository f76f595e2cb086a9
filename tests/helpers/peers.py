"""Peers installed from PyPI at test time, each into a virtualenv of its own.

A peer (graphiti-core, mcp-neo4j-memory, mem0ai) never goes into graphmem's environment or its
lock: `peer_python` makes a fresh virtualenv in the session's temporary folder, pip-installs
the peer there once per test session, and returns that environment's interpreter. A test runs
one of the scripts in tests/peers/ with it, so the peer writes its data through its own code;
graphmem then imports what it wrote. When the virtualenv cannot be made, or pip cannot reach
the registry or install the package, the test is skipped with pip's own last lines as the
reason.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

SCRIPTS = Path(__file__).resolve().parents[1] / "peers"
INSTALL_TIMEOUT = 600  # seconds; graphiti-core, mcp-neo4j-memory and mem0ai each take < 1 min

# name -> the interpreter, or why there is none; kept for the session
_made: dict[str, Path | str] = {}
# name -> seconds the virtualenv and pip took (the test report shows them with -rP / -s)
install_seconds: dict[str, float] = {}


def peer_env(**more: str) -> dict[str, str]:
    """The environment a peer's process runs in: this one without graphmem's PYTHONPATH, and
    with the peers' telemetry off."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        PIP_NO_INPUT="1",
        GRAPHITI_TELEMETRY_ENABLED="false",
        MEM0_TELEMETRY="False",
        **more,
    )
    return env


def _tail(text: str | bytes | None, lines: int = 4) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return " | ".join((text or "").strip().splitlines()[-lines:])


def _pip_error(stderr: bytes | None) -> str:
    """pip's ERROR lines (its retry warnings left out), or its last lines."""
    text = (stderr or b"").decode("utf-8", "replace")
    errors = [x for x in text.splitlines() if x.startswith("ERROR:")]
    return " | ".join(errors) if errors else _tail(text)


def peer_python(factory: pytest.TempPathFactory, name: str, *requirements: str) -> Path:
    """The interpreter of a virtualenv named `name` holding `requirements` (made on first use
    in this session); skips the calling test when that cannot be done."""
    if name not in _made:
        _made[name] = _install(factory.mktemp(f"peer-{name}"), name, requirements)
    made = _made[name]
    if isinstance(made, str):
        pytest.skip(made)
    return made


def _install(root: Path, name: str, requirements: tuple[str, ...]) -> Path | str:
    start = time.monotonic()
    venv = root / "venv"
    python = venv / "bin" / "python"
    steps = [
        [sys.executable, "-m", "venv", str(venv)],
        [str(python), "-m", "pip", "install", "--quiet", "--timeout", "30", "--retries", "2"]
        + list(requirements),
    ]
    for cmd in steps:
        try:
            subprocess.run(
                cmd,
                check=True,
                capture_output=True,
                timeout=INSTALL_TIMEOUT,
                env=peer_env(),
                cwd=root,
            )
        except subprocess.CalledProcessError as e:
            return f"could not install {' '.join(requirements)}: {_pip_error(e.stderr)}"
        except (subprocess.SubprocessError, OSError) as e:
            return f"could not install {' '.join(requirements)}: {e}"
    install_seconds[name] = time.monotonic() - start
    print(f"{name}: {' '.join(requirements)} installed in {install_seconds[name]:.0f} s")
    return python


def run_peer(python: Path, script: str, *args: str, stdin: Any = None, **env: str) -> Any:
    """Run tests/peers/`script` with the peer's interpreter; its stdout's JSON, if any. A
    script that fails is a test failure (the peer was installed), with its stderr's end."""
    proc = subprocess.run(
        [str(python), str(SCRIPTS / script), *args],
        input=None if stdin is None else json.dumps(stdin),
        capture_output=True,
        text=True,
        timeout=300,
        env=peer_env(**env),
    )
    if proc.returncode != 0:
        pytest.fail(f"{script} failed ({proc.returncode}): {_tail(proc.stderr, 15)}")
    return json.loads(proc.stdout) if proc.stdout.strip() else None
