"""The Docker image's entrypoint script, loaded as a module."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


SCRIPT = ROOT / "deploy" / "docker" / "entrypoint.py"


def load_entrypoint() -> ModuleType:
    """The script as a module (it lives outside the package, as the image copies it)."""
    spec = importlib.util.spec_from_file_location("graphmem_docker_entrypoint", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
