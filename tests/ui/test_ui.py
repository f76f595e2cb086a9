"""The inspector over HTTP, on the real embedded stores: login, the CSRF and tenant fences,
review by an operator (and an agent refused), bad input, and paging through 1,000 memories."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from graphmem import MemoryService
from graphmem.domain.model import Status
from graphmem.domain.visibility import Viewer
from graphmem.embedding import Embedder
from graphmem.mcp.identity import default_label, hash_token
from graphmem.ui import create_app
from tests.helpers.ui import (
    AGENT,
    BOB_AGENT,
    FACTS,
    HELD,
    OPERATOR,
    UPDATED,
    add_bulk,
    csrf,
    login,
    seeded_service,
    tokens,
)

pytestmark = pytest.mark.slow
BASE = "http://127.0.0.1"


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Iterator[MemoryService]:
    service = seeded_service(tmp_path_factory.mktemp("ui") / "data", embedder)
    add_bulk(service, "pager", 1000)
    yield service
    service.close()


@pytest.fixture
def client(svc: MemoryService) -> Iterator[TestClient]:
    with TestClient(create_app(svc, tokens()), base_url=BASE, follow_redirects=False) as c:
        yield c


def test_login_sets_a_strict_httponly_cookie_and_a_wrong_token_is_refused(
    client: TestClient,
) -> None:
    assert client.get("/u/alice/memories").headers["location"] == "/login"
    form = client.get("/login")
    bad = client.post(
        "/login", data={"token": "gm_not_a_token_at_all_0000", "csrf": csrf(form.text)}
    )
    assert bad.status_code == 403 and "not known" in bad.text
    form = client.get("/login")
    r = client.post("/login", data={"token": AGENT, "csrf": csrf(form.text)})
    cookie = next(
        v for k, v in r.headers.multi_items() if k == "set-cookie" and "graphmem_ui=" in v
    )
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
    assert AGENT not in cookie and r.headers["location"] == "/u/alice/memories"
    page = client.get("/u/alice/memories")
    assert "Alice works at Acme" in page.text
    assert "content-security-policy" in page.headers and "app;dur=" in page.headers["server-timing"]


def test_login_without_its_csrf_cookie_value_is_refused(client: TestClient) -> None:
    client.get("/login")
    r = client.post("/login", data={"token": OPERATOR, "csrf": "forged"})
    assert r.status_code == 403 and "expired" in r.text
    assert client.get("/u/alice/memories").status_code == 303  # still logged out


def test_a_post_without_the_session_csrf_token_changes_nothing(
    client: TestClient, svc: MemoryService
) -> None:
    login(client, OPERATOR)
    held = svc.held_for_review("alice")
    assert held
    r = client.post(
        "/u/alice/quarantine",
        data={"memory_id": held[0].memory.id, "action": "approve", "csrf": "wrong"},
    )
    assert r.status_code == 403 and "CSRF" in r.text
    assert svc.get("alice", held[0].memory.id, viewer=Viewer.OPERATOR).status == Status.QUARANTINED


def test_an_agent_token_is_refused_another_users_pages(client: TestClient) -> None:
    login(client, BOB_AGENT)
    for path in ("/u/alice/memories", "/u/alice/health", "/u/alice/quarantine"):
        r = client.get(path)
        assert r.status_code == 403, path
        assert "an agent token reads only its own user" in r.text
        assert "Alice works at Acme" not in r.text
    assert client.get("/u/bob/memories").status_code == 200


def test_another_users_memory_id_is_not_found_under_ones_own_user(
    client: TestClient, svc: MemoryService
) -> None:
    login(client, BOB_AGENT)
    alices = svc.list("alice")[0].id
    r = client.get(f"/u/bob/m/{alices}")
    assert r.status_code == 404 and "Alice" not in r.text


def test_an_operator_may_look_at_any_user(client: TestClient) -> None:
    login(client, OPERATOR)
    assert "garage code" in client.get("/u/bob/memories").text
    assert client.get("/choose", params={"user": "bob"}).headers["location"] == "/u/bob/memories"


def test_the_operator_approves_and_the_audit_says_who(
    client: TestClient, svc: MemoryService
) -> None:
    svc.write("alice", HELD + " (second)")
    token = login(client, OPERATOR)
    page = client.get("/u/alice/quarantine")
    assert "why it was held" in page.text and "policy" in page.text
    held = next(h for h in svc.held_for_review("alice") if "(second)" in h.memory.content)
    r = client.post(
        "/u/alice/quarantine",
        data={"memory_id": held.memory.id, "action": "approve", "csrf": token},
    )
    assert r.status_code == 303
    after = client.get("/u/alice/quarantine")
    assert "approved" in after.text
    assert svc.get("alice", held.memory.id).status == Status.ACTIVE
    row = next(r for r in svc.records.audit_rows("alice", 50) if r["action"] == "approve")
    assert row["details"]["reviewer"] == default_label(hash_token(OPERATOR))
    assert row["details"]["role"] == "operator" and held.memory.id in row["memory_ids"]
    trail = client.get(f"/u/alice/m/{held.memory.id}")
    assert "approve" in trail.text and "Audit trail" in trail.text


def test_the_agent_sees_the_queue_but_is_refused_on_approve(
    client: TestClient, svc: MemoryService
) -> None:
    token = login(client, AGENT)
    page = client.get("/u/alice/quarantine")
    assert "operator only" in page.text and 'value="approve"' not in page.text
    held = svc.held_for_review("alice")[0]
    r = client.post(
        "/u/alice/quarantine",
        data={"memory_id": held.memory.id, "action": "approve", "csrf": token},
    )
    assert r.status_code == 403 and "operator" in r.text
    assert svc.get("alice", held.memory.id, viewer=Viewer.OPERATOR).status == Status.QUARANTINED


def test_search_shows_channel_contributions_and_the_graph_path(client: TestClient) -> None:
    token = login(client, AGENT)
    r = client.post(
        "/u/alice/search", data={"query": "Where does Alice's sister live?", "csrf": token}
    )
    assert r.status_code == 200
    assert "Alice&#x27;s sister Bob lives in Paris" in r.text
    assert "contribution" in r.text and "vector" in r.text and "keyword" in r.text
    assert "graph path" in r.text and "<svg" in r.text


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"query": "x" * 5000}, "at most 2,000"),
        ({"query": "hello\x00world"}, "control characters"),
        ({"query": ""}, "type something"),
        ({"query": "jazz", "top_k": "lots"}, "not a whole number"),
        ({"query": "jazz", "as_of": "yesterday-ish"}, "as_of"),
    ],
)
def test_bad_search_input_gets_a_message(client: TestClient, data: dict, expected: str) -> None:
    token = login(client, AGENT)
    r = client.post("/u/alice/search", data={**data, "csrf": token})
    assert r.status_code == 400 and expected in r.text
    assert "Traceback" not in r.text


def test_a_huge_form_is_refused_unread(client: TestClient) -> None:
    token = login(client, AGENT)
    r = client.post("/u/alice/search", data={"query": "x" * 50_000, "csrf": token})
    assert r.status_code == 413 and "larger than" in r.text


@pytest.mark.parametrize(
    "params",
    [
        {"page": "-1"},
        {"page": "two"},
        {"limit": "100000"},
        {"cursor": "garbage"},
        {"status": "bogus"},
        {"session": "a\x07b"},
    ],
)
def test_bad_list_input_gets_a_message(client: TestClient, params: dict) -> None:
    login(client, OPERATOR)
    r = client.get("/u/alice/memories", params=params)
    assert r.status_code == 400, r.text
    assert 'class="error"' in r.text and "Traceback" not in r.text


def test_a_bad_user_id_in_the_url_gets_a_message(client: TestClient) -> None:
    login(client, OPERATOR)
    r = client.get("/u/" + "x" * 300 + "/memories")
    assert r.status_code == 400 and "not a user id" in r.text


def test_paging_through_1000_memories_shows_each_once(client: TestClient) -> None:
    login(client, OPERATOR)
    seen: list[str] = []
    url = "/u/pager/memories"
    pages = 0
    while url:
        r = client.get(url)
        assert r.status_code == 200
        pages += 1
        seen += re.findall(r"bulk memory number (\d+)", r.text)
        nxt = re.search(r'href="([^"]+)" id="next-page"', r.text)
        url = nxt.group(1).replace("&amp;", "&") if nxt else ""
    assert pages == 20 and len(seen) == 1000 and len(set(seen)) == 1000


def test_a_logout_ends_the_session(client: TestClient) -> None:
    token = login(client, AGENT)
    assert client.post("/logout", data={"csrf": token}).status_code == 303
    assert client.get("/u/alice/memories").status_code == 303


def test_a_foreign_host_header_is_refused(svc: MemoryService) -> None:
    with TestClient(create_app(svc, tokens()), base_url="http://evil.example") as c:
        assert c.get("/login").status_code == 400


def test_health_shows_the_erase_receipt_of_an_erased_user(
    client: TestClient, svc: MemoryService
) -> None:
    svc.write("gone", "Carol's flat is on the third floor")
    svc.forget_user("gone", requested_by="the user, by email")
    login(client, OPERATOR)
    r = client.get("/u/gone/health")
    assert r.status_code == 200 and "Erase receipts" in r.text
    assert "the user, by email" in r.text and "memories 1" in r.text
    assert "third floor" not in r.text


def test_graphmem_ui_binds_to_loopback_only(cli) -> None:  # noqa: ANN001 - conftest's runner
    code, out, err = cli("ui", "--host", "0.0.0.0")
    assert code != 0 and "loopback only" in out + err


def test_graphmem_ui_needs_a_token_to_log_in_with(cli) -> None:  # noqa: ANN001
    code, out, err = cli("ui")
    assert code != 0 and "--add-token" in out + err


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("command", ["ui", "serve --ui"])
def test_graphmem_ui_serves_the_login_page(tmp_path: Path, command: str) -> None:
    """The command as a person runs it: a token, then `graphmem ui` (or `graphmem serve
    --ui`, the inspector beside the MCP server) on a free port."""
    import os
    import subprocess
    import sys

    import httpx

    from tests.helpers.services import stop_process
    from tests.helpers.waiting import wait_until

    data = tmp_path / "data"
    env = {**os.environ, "GRAPHMEM_DATA_DIR": str(data), "PYTHONPATH": os.getcwd()}
    for k in ("GRAPHMEM_TOKENS", "GRAPHMEM_TOKENS_FILE"):
        env.pop(k, None)
    made = subprocess.run(
        [
            sys.executable,
            "-m",
            "graphmem",
            "serve",
            "--add-token",
            "ann",
            "--role",
            "operator",
            "--json",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    token = json.loads(made.stdout)["token"]
    port = _free_port()
    argv = (
        ["ui", "--port", str(port)]
        if command == "ui"
        else ["serve", "--port", str(_free_port()), "--ui", "--ui-port", str(port)]
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "graphmem", *argv],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        base = f"http://127.0.0.1:{port}"

        def login_page() -> httpx.Response | None:
            assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
            try:
                return httpx.get(base + "/login", timeout=2)
            except httpx.TransportError:
                return None

        r = wait_until(login_page, "graphmem ui to answer", 120, 0.3)
        assert r.status_code == 200 and 'name="token"' in r.text
        nonce = re.search(r'name="csrf" value="([^"]+)"', r.text)
        assert nonce
        with httpx.Client(base_url=base, cookies=r.cookies) as c:
            done = c.post("/login", data={"token": token, "csrf": nonce.group(1)})
            assert done.status_code == 303 and done.headers["location"] == "/u/ann/memories"
            assert "no memories match" in c.get("/u/ann/memories").text
    finally:
        stop_process(proc)


def test_the_timeline_strikes_through_a_replaced_version(client: TestClient) -> None:
    login(client, AGENT)
    r = client.get("/u/alice/timeline")
    assert r.status_code == 200
    assert re.search(r"<del><a [^>]+>Bob likes jazz music</a></del>", r.text)
    assert "Bob likes jazz and blues music" in r.text
    assert client.get("/u/alice/timeline", params={"page": "0"}).status_code == 400


def test_a_memory_shows_its_versions(client: TestClient, svc: MemoryService) -> None:
    login(client, AGENT)
    current = next(m for m in svc.list("alice") if m.content == UPDATED)
    r = client.get(f"/u/alice/m/{current.id}")
    assert 'id="versions"' in r.text and "<del>" in r.text and "Bob likes jazz music" in r.text


def test_the_graph_page_draws_the_neighbourhood_with_links_to_recentre(
    client: TestClient, svc: MemoryService
) -> None:
    login(client, AGENT)
    center = next(m for m in svc.list("alice") if m.content == FACTS[1])
    r = client.get(f"/u/alice/graph/{center.id}")
    assert r.status_code == 200 and '<svg class="graph"' in r.text
    others = [m.id for m in svc.list("alice") if m.content in (FACTS[0], UPDATED)]
    for other in others:  # each neighbour is a node that re-centres the graph on itself
        assert f'href="/u/alice/graph/{other}?hops=1"' in r.text
    assert "related" in r.text and 'id="more-hops"' in r.text
    assert client.get(f"/u/alice/graph/{center.id}", params={"hops": "9"}).status_code == 400


def test_the_graph_of_another_users_memory_is_not_found(
    client: TestClient, svc: MemoryService
) -> None:
    login(client, BOB_AGENT)
    alices = svc.list("alice")[0].id
    assert client.get(f"/u/bob/graph/{alices}").status_code == 404
    assert client.get(f"/u/alice/graph/{alices}").status_code == 403


def test_the_operator_rejects_and_the_memory_is_gone(
    client: TestClient, svc: MemoryService
) -> None:
    held = svc.write("alice", HELD + " (to reject)")
    token = login(client, OPERATOR)
    r = client.post(
        "/u/alice/quarantine", data={"memory_id": held.id, "action": "reject", "csrf": token}
    )
    assert r.status_code == 303
    assert "deleted from every store" in client.get("/u/alice/quarantine").text
    assert held.id not in {m.id for m in svc.list("alice", viewer=Viewer.OPERATOR)}
    again = client.post(
        "/u/alice/quarantine", data={"memory_id": held.id, "action": "reject", "csrf": token}
    )
    assert again.status_code == 400 and "no held memory" in again.text
    bad = client.post(
        "/u/alice/quarantine", data={"memory_id": held.id, "action": "delete", "csrf": token}
    )
    assert bad.status_code == 400 and "approve or reject" in bad.text


def test_the_memories_page_filters_by_metadata(client: TestClient) -> None:
    login(client, OPERATOR)
    r = client.get("/u/pager/memories", params={"metadata": "i=7|12"})
    assert r.status_code == 200
    found = sorted(re.findall(r"bulk memory number (\d+)", r.text))
    assert found == ["12", "7"]
    assert 'value="i=7|12"' in r.text  # the filter stays in the form and the pager's links


@pytest.mark.parametrize("value", ["i", "=7", "i=", "i=7,,j=2"])
def test_a_bad_metadata_filter_gets_a_message(client: TestClient, value: str) -> None:
    login(client, OPERATOR)
    r = client.get("/u/pager/memories", params={"metadata": value})
    assert r.status_code == 400 and "metadata" in r.text and "Traceback" not in r.text


def test_search_shows_what_a_filter_takes_out(client: TestClient) -> None:
    token = login(client, AGENT)
    plain = client.post("/u/alice/search", data={"query": "Bob jazz Paris", "csrf": token})
    assert plain.status_code == 200 and 'id="filter-effect"' not in plain.text
    r = client.post(
        "/u/alice/search",
        data={"query": "Bob jazz Paris", "as_of": "2001-01-01", "csrf": token},
    )
    assert r.status_code == 200
    assert 'id="filter-effect"' in r.text and "as of 2001-01-01" in r.text
    # nothing was valid in 2001: every unfiltered hit is marked as taken out
    section = r.text[r.text.index('id="filter-effect"') :]
    assert "taken out by the filter" in section and "Bob likes jazz and blues music" in section
    counts = r'id="filter-counts">[1-9]\d* of the unfiltered hits taken out, 0 brought'
    assert re.search(counts, r.text)
