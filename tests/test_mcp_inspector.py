"""A client written by others: the official MCP Inspector, in CLI mode, against `graphmem serve`.

Our own tests use fastmcp's client, which shares assumptions with fastmcp's server; the
Inspector (TypeScript SDK) does not, so it catches what only a foreign client would notice.
It needs Node >= 22.19, so it is installed with a pinned Node 22 from the npm registry into a
cache directory outside the repository ($GRAPHMEM_INSPECTOR_DIR, default
~/.cache/graphmem-inspector) on first use. Marked `services`: it needs npm and the network once.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.test_mcp import TOOLS, HttpServer, start_http_server

pytestmark = pytest.mark.services

INSPECTOR = "@modelcontextprotocol/inspector@^2.12.0"
NODE = "node@22"


def inspector_dir() -> Path:
    default = Path.home() / ".cache" / "graphmem-inspector"
    return Path(os.environ.get("GRAPHMEM_INSPECTOR_DIR") or default).expanduser()


@pytest.fixture(scope="session")
def inspector() -> tuple[Path, Path]:
    """(node, inspector entry point), installing both into the cache directory if missing."""
    root = inspector_dir()
    bin_dir = root / "node_modules" / ".bin"
    node, cli = bin_dir / "node", bin_dir / "mcp-inspector"
    if not (node.exists() and cli.exists()):
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("npm is needed to install the MCP Inspector (apt-get install npm)")
        root.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [
                npm,
                "install",
                "--prefix",
                str(root),
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                NODE,
                INSPECTOR,
            ],
            capture_output=True,
            text=True,
            timeout=900,
        )
        if done.returncode != 0 or not (node.exists() and cli.exists()):
            pytest.fail(f"npm install of the MCP Inspector failed:\n{done.stdout}\n{done.stderr}")
    version = subprocess.run([str(node), "--version"], capture_output=True, text=True, timeout=30)
    assert version.stdout.startswith("v22."), version
    return node, cli


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    with start_http_server(tmp_path_factory.mktemp("inspector"), users=("ivy",)) as srv:
        yield srv


def inspect(
    inspector: tuple[Path, Path], srv: HttpServer, tmp: Path, *args: str, token: str | None
) -> tuple[int, Any, str]:
    """Run one `mcp-inspector --cli` request; returns (exit code, parsed stdout, stderr)."""
    node, cli = inspector
    home = tmp / "home"  # the Inspector keeps state under $HOME; keep it out of the real one
    home.mkdir(exist_ok=True)
    env = {
        **os.environ,
        "HOME": str(home),
        "PATH": f"{node.parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "MCP_CATALOG_PATH": str(home / "catalog.json"),
        "MCP_AUTO_OPEN_ENABLED": "false",
    }
    header = ["--header", f"Authorization: Bearer {token}"] if token else []
    done = subprocess.run(
        [str(node), str(cli), "--cli", srv.url, "--transport", "http", *header, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=tmp,
    )
    try:
        out = json.loads(done.stdout)
    except ValueError:
        out = done.stdout
    return done.returncode, out, done.stderr


def test_inspector_lists_tools_and_calls_write_then_search(
    inspector: tuple[Path, Path], served: HttpServer, tmp_path: Path
) -> None:
    token = served.tokens["ivy"]
    code, out, err = inspect(inspector, served, tmp_path, "--method", "tools/list", token=token)
    assert code == 0, err
    tools = {t["name"]: t for t in out["tools"]}
    assert set(tools) == TOOLS
    assert tools["memory_search"]["annotations"]["readOnlyHint"] is True
    assert tools["memory_forget"]["annotations"]["destructiveHint"] is True
    assert tools["memory_write"]["inputSchema"]["required"] == ["content", "memory_type"]

    code, out, err = inspect(
        inspector,
        served,
        tmp_path,
        "--method",
        "tools/call",
        "--tool-name",
        "memory_write",
        "--tool-arg",
        "content=Ivy's dentist is Dr Okafor on Elm Street",
        "--tool-arg",
        "memory_type=fact",
        token=token,
    )
    assert code == 0 and out["isError"] is False, (out, err)
    memory_id = out["structuredContent"]["memory_id"]

    code, out, err = inspect(
        inspector,
        served,
        tmp_path,
        "--method",
        "tools/call",
        "--tool-name",
        "memory_search",
        "--tool-arg",
        "query=who is my dentist",
        "--tool-arg",
        "top_k=3",
        token=token,
    )
    assert code == 0 and out["isError"] is False, (out, err)
    top = out["structuredContent"]["hits"][0]
    assert top["memory_id"] == memory_id and "Okafor" in top["content"]
    assert {"vector", "keyword", "recency", "frequency"} <= set(top["scores"])


def test_inspector_sees_field_errors_and_is_refused_without_a_token(
    inspector: tuple[Path, Path], served: HttpServer, tmp_path: Path
) -> None:
    code, out, _ = inspect(
        inspector,
        served,
        tmp_path,
        "--method",
        "tools/call",
        "--tool-name",
        "memory_search",
        "--tool-arg",
        "query=x",
        "--tool-arg",
        "top_k=0",
        token=served.tokens["ivy"],
    )
    assert code != 0 and out["isError"] is True
    assert out["content"][0]["text"].startswith("top_k:")

    code, _, _ = inspect(inspector, served, tmp_path, "--method", "tools/list", token=None)
    assert code != 0
    code, _, _ = inspect(
        inspector, served, tmp_path, "--method", "tools/list", token="not-the-token"
    )
    assert code != 0
