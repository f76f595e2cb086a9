"""GET /healthz, the probe compose and the image's HEALTHCHECK use: 200 while the service is
open and its stores answer, 503 naming the stores that do not; no token, no user data.

Over HTTP against a real `graphmem serve` (SQLite, Qdrant Edge, networkx), through the same
script the image runs as its healthcheck; and in-process against the server's ASGI app for the
failure cases, with stores really closed rather than mocked.
"""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from graphmem import MemoryService, Settings
from graphmem.embedding import Embedder
from graphmem.mcp.http import failing_stores
from graphmem.mcp.server import create_server
from graphmem.stores import open_working
from tests.helpers.mcp import free_port, start_http_server

ROOT = Path(__file__).resolve().parents[2]
HEALTHCHECK = ROOT / "deploy" / "docker" / "healthcheck.py"


def get(port: int, path: str) -> tuple[int, str, dict[str, str]]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        return resp.status, resp.read().decode(), {k.lower(): v for k, v in resp.getheaders()}
    finally:
        conn.close()


def run_healthcheck(port: int) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    return subprocess.run(
        [sys.executable, str(HEALTHCHECK)],
        env={**env, "GRAPHMEM_PORT": str(port)},
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_a_running_server_is_healthy_without_a_token(tmp_path: Path) -> None:
    with start_http_server(tmp_path, ("alice",)) as srv:
        status, body, headers = get(srv.port, "/healthz")
        assert status == 200
        assert json.loads(body) == {"status": "ok"}  # nothing about users or content
        assert headers["content-type"] == "application/json"
        assert headers["cache-control"] == "no-store"
        check = run_healthcheck(srv.port)
        assert check.returncode == 0, check.stdout + check.stderr
        assert '"status":"ok"' in check.stdout.replace(" ", "")
        # The MCP endpoint itself still wants its token.
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
        conn.request("POST", "/mcp", b"{}", {"Content-Type": "application/json"})
        assert conn.getresponse().status == 401
        conn.close()
    down = run_healthcheck(srv.port)  # the server has stopped: unhealthy, not a traceback
    assert down.returncode == 1 and "Traceback" not in down.stderr


def test_the_healthcheck_fails_when_nothing_listens() -> None:
    out = run_healthcheck(free_port())
    assert out.returncode == 1
    assert "/healthz" in out.stdout and not out.stderr


@pytest.fixture
def own_service(tmp_path: Path, embedder: Embedder) -> Iterator[MemoryService]:
    """A service of this test's own: the tests below close its stores."""
    svc = MemoryService(Settings(data_dir=tmp_path / "data"), embedder=embedder)
    yield svc
    svc.close()


def _client(svc: MemoryService) -> TestClient:
    server = create_server(svc, working=open_working("memory"))
    return TestClient(server.http_app(), base_url="http://127.0.0.1")


def test_a_store_that_stops_answering_makes_it_503_naming_only_that_store(
    own_service: MemoryService,
) -> None:
    own_service.write("alice", "Alice keeps her passport in the blue drawer")
    with _client(own_service) as client:
        assert client.get("/healthz").json() == {"status": "ok"}
        own_service.context.vectors.close()
        resp = client.get("/healthz")
    assert resp.status_code == 503
    assert resp.json() == {"status": "unavailable", "failing": ["vectors"]}
    assert "alice" not in resp.text and "passport" not in resp.text


def test_a_closed_service_is_unhealthy(own_service: MemoryService) -> None:
    with _client(own_service) as client:
        own_service.close()
        resp = client.get("/healthz")
    assert resp.status_code == 503
    assert set(resp.json()["failing"]) >= {"records", "vectors", "graph"}
    assert failing_stores(own_service) == resp.json()["failing"]
