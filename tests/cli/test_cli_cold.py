"""Cold start of the `graphmem` command: building its parser (all that `--help`, `--version`
and argument errors need) must not import the settings, the stores, numpy, the model runtimes
or the MCP server, which cost ~1 s before the first line of output."""

from __future__ import annotations

import json
import subprocess
import sys

from graphmem.cli.main import build_parser, version
from tests.helpers.mcp import child_env

HEAVY = (
    "numpy",
    "pydantic",
    "pydantic_settings",
    "graphmem.settings",
    "graphmem.service",
    "graphmem.stores",
    "graphmem.guard",
    "graphmem.domain.requests",
    "fastmcp",
    "onnxruntime",
    "torch",
    "spacy",
    "sentence_transformers",
)

PROBE = f"""
import json, sys
from graphmem.cli.main import build_parser
build_parser().format_help()
print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))
"""


def test_building_the_parser_imports_nothing_heavy(tmp_path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        env=child_env(tmp_path / "data"),
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout) == []


def test_help_lists_every_command() -> None:
    text = build_parser().format_help()
    for name in ("add", "search", "list", "stats", "config", "serve", "version"):
        assert name in text


def test_version(capsys) -> None:
    try:
        build_parser().parse_args(["--version"])
    except SystemExit as e:
        assert e.code == 0
    assert capsys.readouterr().out == f"graphmem {version()}\n"
