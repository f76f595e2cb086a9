"""A graphmem process for which some modules are not installed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


BLOCKER = '''
import os, sys

_BLOCKED = set(os.environ.get("GRAPHMEM_TEST_BLOCK", "").split(","))


class _NotInstalled:
    """A meta-path finder that answers like a missing distribution."""

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in _BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, _NotInstalled())
'''


def blocked_env(tmp_path: Path, blocked: str, **extra: str) -> dict[str, str]:
    """The environment of a graphmem process for which `blocked` (comma-separated top-level
    modules) is not installed."""
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(BLOCKER, "utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(site), str(ROOT), env.get("PYTHONPATH")) if p
    )
    env.update(
        GRAPHMEM_TEST_BLOCK=blocked,
        GRAPHMEM_DATA_DIR=str(tmp_path / "data"),
        GRAPHMEM_LOG_LEVEL="WARNING",
        **extra,
    )
    return env


def graphmem(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "graphmem", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )
