"""A client written by others: the official MCP Inspector, in CLI mode, against `graphmem serve`.

Our own tests use fastmcp's client, which shares assumptions with fastmcp's server; the
Inspector (TypeScript SDK) does not, so it catches what only a foreign client would notice.
Its client validates every tool result's `structuredContent` against the tool's `outputSchema`
and fails the call when they differ (core/mcp/toolOutputValidation.ts in the Inspector, Ajv
underneath); a server made to lie about its schema shows that it does.
It needs Node >= 22.19, so it is installed with a pinned Node 22 from the npm registry into a
cache directory outside the repository ($GRAPHMEM_INSPECTOR_DIR, default
~/.cache/graphmem-inspector) on first use. Marked `services`: it needs npm and the network once.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.imaging import render
from tests.helpers.mcp import TOOLS, HttpServer, free_port, post, start_http_server
from tests.helpers.schemas import assert_typed, check_schema_strictly
from tests.helpers.services import stop_process
from tests.helpers.waiting import wait_until

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
    # "ivy:operator" becomes the GRAPHMEM_TOKENS entry `token=ivy:operator`: an operator token
    with start_http_server(
        tmp_path_factory.mktemp("inspector"), users=("ivy", "ivy:operator")
    ) as srv:
        yield srv


def inspect(
    inspector: tuple[Path, Path], srv: HttpServer | str, tmp: Path, *args: str, token: str | None
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
    url = srv if isinstance(srv, str) else srv.url
    done = subprocess.run(
        [str(node), str(cli), "--cli", url, "--transport", "http", *header, *args],
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


def _call(
    inspector: tuple[Path, Path], served: HttpServer, tmp: Path, tool: str, args: dict[str, Any]
) -> dict[str, Any]:
    code, out, err = inspect(
        inspector,
        served,
        tmp,
        "--method",
        "tools/call",
        "--tool-name",
        tool,
        "--tool-args-json",
        json.dumps(args),
        token=served.tokens["ivy:operator"],
    )
    # exit 0 means the Inspector's own client found structuredContent valid for outputSchema
    assert code == 0 and out["isError"] is False, (tool, out, err)
    return dict(out["structuredContent"])


def test_inspector_lists_typed_output_schemas_and_accepts_every_result(
    inspector: tuple[Path, Path], served: HttpServer, tmp_path: Path
) -> None:
    code, out, err = inspect(
        inspector, served, tmp_path, "--method", "tools/list", token=served.tokens["ivy"]
    )
    assert code == 0, err
    schemas = {t["name"]: t.get("outputSchema") for t in out["tools"]}
    assert set(schemas) == TOOLS
    for name, schema in schemas.items():
        assert_typed(schema, name)

    results: list[tuple[str, dict[str, Any]]] = []

    def call(tool: str, **args: Any) -> dict[str, Any]:
        data = _call(inspector, served, tmp_path, tool, args)
        results.append((tool, data))
        return data

    a = call("memory_write", content="Ivy leads the Heron audit", memory_type="fact")
    b = call(
        "memory_write",
        content="The Heron auditors arrive in June",
        memory_type="event",
        metadata={"project": "Heron"},
    )
    call("memory_relate", source_id=b["memory_id"], target_id=a["memory_id"])
    v = call("memory_write", content="The audit room door code is 4817-K", memory_type="fact")
    call("memory_reveal", memory_id=v["memory_id"])
    call("memory_search", query="Heron audit", expand_hops=1, metadata={"project": "Heron"})
    call("memory_list", limit=1, sort="oldest", source=["agent", "user"])
    call("memory_graph", memory_id=a["memory_id"])
    call("memory_update", memory_id=b["memory_id"], content="The Heron auditors arrive in July")
    call("memory_history", memory_id=b["memory_id"])
    call("memory_get", memory_ids=[a["memory_id"], b["memory_id"], "no-such-id"])
    call("memory_summarize", memory_ids=[a["memory_id"], "no-such-id"])
    call("memory_observe", turns=["Remember that my gym is on Hill Road", "ok"], dry_run=True)
    call("working_memory_set", session_id="w1", content={"task_context": "Audit prep"})
    call("working_memory_get", session_id="w1")
    call("memory_forget", query="Heron auditors", dry_run=True, threshold=0.3)
    call("memory_forget", memory_id=a["memory_id"])
    call("memory_quarantine_list")
    call("memory_quarantine_review", memory_ids=["no-such-id"], approve=False)
    wiki = "# Heron\n\n## Audit\n\nThe Heron audit closes in August."
    call("document_ingest", content=wiki, name="wiki/heron")
    call("memory_search", query="When does the Heron audit close?", kinds="document")
    call("document_list")
    call("document_delete", source="wiki/heron")
    png = render(["Heron audit room 4B"], size=(700, 200))
    call("memory_write_image", image=base64.b64encode(png).decode(), caption="the room sign")
    call("memory_search", query="Heron audit room", kinds="image")
    graph = tmp_path / "memory.json"
    graph.write_text(
        '{"type": "entity", "name": "Ivy", "entityType": "person", "observations": ["Audits"]}\n'
    )
    call("memory_import", format="mcp-memory", source=str(graph), dry_run=True)
    call("memory_health")
    call("memory_forget_user", confirm="ERASE")
    assert {tool for tool, _ in results} == TOOLS
    for tool, data in results:  # and our own strict reading agrees with the Inspector's
        check_schema_strictly(schemas[tool], tool, data)


LIAR = """
import sys
from fastmcp import FastMCP
from fastmcp.tools.base import ToolResult

mcp = FastMCP("liar")
SCHEMA = {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}


@mcp.tool(output_schema=SCHEMA)
def lie() -> ToolResult:
    return ToolResult(structured_content={"count": "three"})


@mcp.tool(output_schema=SCHEMA)
def honest() -> ToolResult:
    return ToolResult(structured_content={"count": 3})


mcp.run(transport="http", host="127.0.0.1", port=int(sys.argv[1]), show_banner=False)
"""


def test_the_inspector_refuses_a_result_that_breaks_its_schema(
    inspector: tuple[Path, Path], tmp_path: Path
) -> None:
    """What makes the test above worth having: the Inspector does validate."""
    script = tmp_path / "liar.py"
    script.write_text(textwrap.dedent(LIAR))
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(script), str(port)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:

        def answers() -> bool:
            try:
                post(port, b"{}")
            except OSError:
                return False
            return True

        wait_until(answers, "the test server to come up", 60, 0.2)
        url = f"http://127.0.0.1:{port}/mcp"
        code, out, err = inspect(
            inspector, url, tmp_path, "--method", "tools/call", "--tool-name", "honest", token=None
        )
        assert code == 0 and out["structuredContent"] == {"count": 3}, (out, err)
        code, out, err = inspect(
            inspector, url, tmp_path, "--method", "tools/call", "--tool-name", "lie", token=None
        )
        assert code != 0
        assert "count must be integer" in f"{out}{err}"
    finally:
        stop_process(proc)
