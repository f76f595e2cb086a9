"""The built wheel, installed into a fresh virtualenv outside the repository, is a whole
graphmem: it carries its Cypher, SQL and other data files, installs nothing but `graphmem` at
the top of site-packages, and its CLI stores and finds a memory with the working directory
somewhere else.

The wheel is built offline from a copy of the sources (`pip wheel --no-build-isolation`, so
the repository gets no build/ folder) and installed with `--no-deps --no-index`: what is
tested is the wheel's own content. Its dependencies come from the test environment through a
.pth file, which adds their folder to sys.path without running the test environment's own .pth
files, so the editable install of this checkout is not visible there.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "graphmem", "extractors", "cypher")

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Installed:
    wheel: Path
    venv: Path
    work: Path  # an empty folder outside the repository, the cwd of every command

    @property
    def python(self) -> str:
        return str(self.venv / "bin" / "python")

    @property
    def site(self) -> Path:
        return next((self.venv / "lib").glob("python3*/site-packages"))

    def env(self, **extra: str) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("GRAPHMEM_", "PYTHON", "VIRTUAL_ENV"))
        }
        env.update(GRAPHMEM_LOG_LEVEL="WARNING", **extra)
        return env

    def run(self, *cmd: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            list(cmd),
            cwd=self.work,
            env=self.env(**env),
            capture_output=True,
            text=True,
            timeout=600,
        )


def build_wheel(dest: Path) -> Path:
    src = dest / "src"
    src.mkdir(parents=True)
    junk = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build")
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, symlinks=True, ignore=junk)
        else:
            shutil.copy2(path, src / name)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(dest / "dist"),
            str(src),
        ],
        check=True,
        cwd=dest,
    )
    (wheel,) = (dest / "dist").glob("graphmem-*.whl")
    return wheel


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    base = tmp_path_factory.mktemp("wheel")
    wheel = build_wheel(base)
    work = base / "elsewhere"
    work.mkdir()
    inst = Installed(wheel, base / "venv", work)
    # a clean environment: with this checkout on PYTHONPATH, pip would take graphmem for
    # installed already and skip the wheel
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(inst.venv)], check=True)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            inst.python,
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        check=True,
        env=inst.env(),
        cwd=work,
    )
    deps = {sysconfig.get_paths()[k] for k in ("purelib", "platlib")}
    (inst.site / "_graphmem_test_deps.pth").write_text("\n".join(sorted(deps)) + "\n")
    return inst


def wheel_names(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as z:
        return z.namelist()


def test_the_wheel_holds_graphmem_and_its_data_and_nothing_else(installed: Installed) -> None:
    names = wheel_names(installed.wheel)
    tops = {n.split("/")[0] for n in names}
    (dist_info,) = (t for t in tops if t.endswith(".dist-info"))
    assert tops == {"graphmem", dist_info}  # no top-level extractors, cypher, tests, ...
    assert f"{dist_info}/licenses/LICENSE" in names
    assert "graphmem/py.typed" in names
    assert "graphmem/__main__.py" in names and "graphmem/extractors/rules.py" in names
    for f in ("schema", "upsert", "expand", "delete", "stats", "browser/memories-newest"):
        assert f"graphmem/cypher/{f}.cypher" in names
    for f in ("sqlite", "mysql"):
        assert f"graphmem/stores/records/sql/{f}.sql" in names
    # every data file of the package (the model's tokenizer, the classifier weights, ...)
    data = {
        str(Path(folder, f).relative_to(ROOT))
        for folder, dirs, files in os.walk(ROOT / "graphmem", followlinks=True)
        if "__pycache__" not in folder
        for f in files
        if not f.endswith((".py", ".pyc"))
    }
    assert data and data <= set(names), sorted(data - set(names))


def test_the_installed_wheel_imports_from_its_own_site_packages(installed: Installed) -> None:
    probe = textwrap.dedent(
        """
        import importlib.metadata, importlib.util, json, sys
        import graphmem, graphmem.cli.main
        from graphmem.stores.graph.neo4j import cypher_dir
        print(json.dumps({
            "file": graphmem.__file__,
            "version": graphmem.__version__,
            "metadata": importlib.metadata.version("graphmem"),
            "extractors": importlib.util.find_spec("extractors") is not None,
            "cypher": str(cypher_dir()),
            "torch": "torch" in sys.modules,
        }))
        """
    )
    r = installed.run(installed.python, "-c", probe)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert got["file"].startswith(str(installed.site))
    assert got["cypher"].startswith(str(installed.site))
    assert got["version"] == got["metadata"] != "0+unknown"
    assert not got["extractors"]
    assert not got["torch"], "importing the CLI must not import torch"


def test_the_neo4j_adapter_loads_its_cypher_from_the_wheel(installed: Installed) -> None:
    """Every statement the adapter asks for, read from the installed package data (parsing
    only: no server is needed to prove the files are there and well-formed)."""
    adapter = (ROOT / "graphmem/stores/graph/neo4j.py").read_text("utf-8")
    used = sorted(set(re.findall(r'statement\("([\w/]+\.cypher)", "(\w+)"\)', adapter)))
    probe = textwrap.dedent(
        """
        import json, sys
        from graphmem.stores.graph.neo4j import cypher_dir, load_statements
        used = json.loads(sys.argv[1])
        missing = [(f, n) for f, n in used if not load_statements(f).get(n)]
        schema = load_statements("schema.cypher")
        browser = sorted(p.name for p in cypher_dir().joinpath("browser").iterdir())
        print(json.dumps({"missing": missing, "schema": len(schema), "browser": browser}))
        """
    )
    r = installed.run(installed.python, "-c", probe, json.dumps(used))
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert used and got["missing"] == [] and got["schema"] > 0
    kit = sorted(p.name for p in (ROOT / "cypher/browser").iterdir())
    assert got["browser"] == kit and "graphmem.grass" in kit


def test_add_and_search_from_the_installed_wheel(installed: Installed) -> None:
    exe = str(installed.venv / "bin" / "graphmem")
    data = str(installed.work / "data")
    r = installed.run(
        exe, "add", "Dana keeps the spare office keys in the blue drawer", "--data-dir", data
    )
    assert r.returncode == 0, r.stderr
    memory_id = r.stdout.strip().split()[0]
    r = installed.run(exe, "search", "where are the office keys", "--data-dir", data)
    assert r.returncode == 0, r.stderr
    assert memory_id in r.stdout
    r = installed.run(installed.python, "-m", "graphmem", "--help")
    assert r.returncode == 0 and "usage: graphmem" in r.stdout
    assert not (installed.work / "build").exists()


@pytest.mark.services
def test_the_installed_wheel_applies_its_cypher_to_a_real_neo4j(installed: Installed) -> None:
    url = os.environ.get("GRAPHMEM_TEST_NEO4J_URL")
    if not url:
        pytest.fail("GRAPHMEM_TEST_NEO4J_URL is not set: start scripts/services.sh")
    probe = textwrap.dedent(
        """
        import os
        from graphmem.stores.graph.neo4j import Neo4jGraph
        g = Neo4jGraph(os.environ["URL"], os.environ["USER_"], os.environ["PASSWORD"])
        try:
            assert g._schema_ready, "the schema statements did not run"
            print(g.health())
        finally:
            g.close()
        """
    )
    r = installed.run(
        installed.python,
        "-c",
        probe,
        URL=url,
        USER_=os.environ.get("GRAPHMEM_TEST_NEO4J_USER", "neo4j"),
        PASSWORD=os.environ.get("GRAPHMEM_TEST_NEO4J_PASSWORD", ""),
    )
    assert r.returncode == 0, r.stderr


def test_the_installed_wheel_serves_mcp_over_stdio_without_torch(installed: Installed) -> None:
    """What an MCP client launching the default install does: initialize, tools/list, a write
    and a search over stdio, in a process where torch and sentence-transformers are not
    installed (a sitecustomize refuses them, as a missing distribution does)."""
    import asyncio

    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport

    from tests.helpers.extras import BLOCKER

    site = installed.work / "no-torch"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(BLOCKER, "utf-8")
    env = installed.env(
        PYTHONPATH=str(site),
        GRAPHMEM_TEST_BLOCK="torch,sentence_transformers",
        GRAPHMEM_DATA_DIR=str(installed.work / "stdio-data"),
    )
    transport = StdioTransport(
        str(installed.venv / "bin" / "graphmem"),
        ["serve", "--stdio"],
        env=env,
        cwd=str(installed.work),
        keep_alive=False,
        log_file=installed.work / "stdio.log",
    )

    async def session() -> tuple[set[str], str, list[str]]:
        async with Client(transport, init_timeout=180, timeout=120) as c:
            tools = {t.name for t in await c.list_tools()}
            w = await c.call_tool(
                "memory_write",
                {"content": "Ines waters the ferns on Fridays", "memory_type": "fact"},
            )
            s = await c.call_tool("memory_search", {"query": "who waters the ferns"})
            hits = [h["memory_id"] for h in s.structured_content["hits"]]
            return tools, w.structured_content["memory_id"], hits

    tools, memory_id, hits = asyncio.run(session())
    assert {"memory_write", "memory_search"} <= tools
    assert hits[:1] == [memory_id]
