"""Two processes, one store: `graphmem` commands while `graphmem serve` holds the store.

Qdrant Edge locks the embedded store for the process that opened it. These tests run a real
server as a subprocess on a temporary data directory and real `graphmem` commands beside it:
over HTTP, add/search/stats go through the server and print what they print locally; a
command that needs the store to itself, and any command beside a stdio server, stops with
one line naming the server's pid and exit code 3. Never a traceback.
"""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from graphmem.errors import StoreInUseError
from graphmem.infra.localserver import (
    CLI_ROUTE,
    SERVER_FILE,
    ServerCard,
    card_path,
    publish,
    read,
    running,
)
from graphmem.mcp.local import is_loopback, local_url
from graphmem.stores.vectors.edge import EdgeVectors
from tests.helpers.cli import (
    graphmem,
    one_line,
    wait_for,
)
from tests.helpers.mcp import child_env, free_port, graphmem_exe
from tests.helpers.services import stop_process


def test_the_server_publishes_a_private_card(http_serve: tuple[Path, int]) -> None:
    data_dir, pid = http_serve
    path = card_path(data_dir)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    card = read(path)
    assert card is not None and card.pid == pid and card.transport == "http"
    assert card.url is not None and card.url.startswith("http://127.0.0.1:")
    assert card.token and len(card.token) > 40
    assert running(data_dir) == card


def test_add_search_stats_go_through_the_running_server(http_serve: tuple[Path, int]) -> None:
    data_dir, _ = http_serve
    code, out, err = graphmem(data_dir, "add", "Bea works as a marine biologist", "--type", "fact")
    assert (code, err) == (0, "")
    new_id = out.strip()
    assert len(new_id) == 36

    code, out, err = graphmem(data_dir, "add", "-", "--json", stdin="Bea's dog is called Nuno")
    assert (code, err) == (0, "")
    assert set(json.loads(out)) == {"id"}

    code, out, err = graphmem(data_dir, "search", "what is Bea's job", "-k", "2")
    assert (code, err) == (0, "")
    first = out.splitlines()[0]
    assert first.startswith("1. ") and new_id in first and "marine biologist" in first
    assert "vector=" in out.splitlines()[1]

    code, out, err = graphmem(data_dir, "search", "where does Bea live", "--json")
    assert (code, err) == (0, "")
    hits = json.loads(out)["hits"]
    assert hits and "Lisbon" in hits[0]["content"]

    code, out, err = graphmem(data_dir, "stats")
    assert (code, err) == (0, "")
    assert "total: 3" in out.splitlines()

    # --user reaches another user's memories, as the local CLI does: the operator's command
    code, out, err = graphmem(data_dir, "stats", "--user", "someone-else", "--json")
    assert (code, err) == (0, "")
    assert json.loads(out)["total"] == 0

    # bad input keeps its exit code and its one line naming the field
    code, out, err = graphmem(data_dir, "search", "x", "--time-range", "soon")
    assert code == 2 and out == ""
    assert one_line(err).startswith("error: time_range")


def test_commands_that_need_the_store_stop_in_one_line(http_serve: tuple[Path, int]) -> None:
    data_dir, pid = http_serve
    for argv in (("doctor",), ("export", str(data_dir.parent / "out.jsonl")), ("compact",)):
        code, out, err = graphmem(data_dir, *argv)
        line = one_line(err)
        assert code == 3 and out == "", argv
        assert line.startswith(f"graphmem: the store in {data_dir} is in use by graphmem serve")
        assert f"(pid {pid})" in line

    code, _, err = graphmem(data_dir, "serve", "--port", str(free_port()))
    assert code == 3 and f"(pid {pid})" in one_line(err)


def test_a_stdio_server_makes_commands_exit_3_in_one_line(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    log = tmp_path / "stdio.log"
    with open(log, "wb") as sink:
        proc = subprocess.Popen(
            [graphmem_exe(), "serve", "--stdio"],
            env=child_env(data_dir),
            cwd=tmp_path,
            stdin=subprocess.PIPE,  # held open: the server serves until its client goes
            stdout=subprocess.DEVNULL,
            stderr=sink,
        )
    try:
        wait_for(lambda: running(data_dir) is not None, "server card", proc, log)
        for argv in (("search", "anything"), ("add", "a memory"), ("stats",)):
            code, out, err = graphmem(data_dir, *argv)
            line = one_line(err)
            assert code == 3 and out == "", argv
            assert f"in use by graphmem serve (pid {proc.pid})" in line
            assert "stdio" in line
        assert proc.stdin is not None
        proc.stdin.close()  # the client goes away: the server stops and withdraws its card
        proc.wait(timeout=60)
        assert not card_path(data_dir).exists()
    finally:
        if proc.poll() is None:
            stop_process(proc)


def test_a_stale_card_is_ignored_and_removed(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    card_path(data_dir).parent.mkdir(parents=True)
    card_path(data_dir).write_text(
        json.dumps({"pid": dead.pid, "transport": "stdio", "url": None, "token": None})
    )
    assert running(data_dir) is None
    assert not card_path(data_dir).exists()


def test_a_card_of_this_process_or_a_foreign_file_is_not_a_server(tmp_path: Path) -> None:
    mine = publish(tmp_path, "http", "http://127.0.0.1:1")
    assert read(card_path(tmp_path)) == mine
    assert running(tmp_path) is None  # a process does not route to itself
    (tmp_path / SERVER_FILE).write_text("not json")
    assert running(tmp_path) is None
    assert isinstance(mine, ServerCard)


def test_the_edge_lock_is_a_typed_error(held_store: Path) -> None:
    """Before: `Exception: Service runtime error: ... Can't init WAL: Kind(WouldBlock)`."""
    with pytest.raises(StoreInUseError) as caught:
        EdgeVectors(held_store / "vectors", dim=384)
    assert caught.value.data_dir == held_store


def test_a_store_held_by_another_process_is_one_line_and_exit_3(held_store: Path, cli: Any) -> None:
    code, out, err = cli("stats")  # the same tmp_path / "data"
    assert code == 3 and out == ""
    assert one_line(err) == (
        f"graphmem: the store in {held_store} is in use by another graphmem process; stop it,"
        " or wait for it to finish"
    )


def _post(url: str, path: str, token: str, body: dict[str, Any]) -> int:
    import urllib.error
    import urllib.request

    req = urllib.request.Request(
        url + path,
        data=json.dumps(body).encode(),
        headers={
            "Authorization": f"Bearer {token}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        },
        method="POST",
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as e:
        return int(e.code)


def test_the_cli_endpoint_takes_the_cards_token_only(http_serve: tuple[Path, int]) -> None:
    """The card's token opens the CLI endpoint and nothing else; an MCP token does not open it."""
    data_dir, _ = http_serve
    card = running(data_dir)
    assert card is not None and card.url and card.token
    stats = {"argv": ["stats"], "user": "ann"}
    assert _post(card.url, CLI_ROUTE, card.token, stats) == 200
    assert _post(card.url, CLI_ROUTE, "two-process-test-token-0001", stats) == 401
    assert _post(card.url, CLI_ROUTE, card.token + "x", stats) == 401
    assert _post(card.url, "/mcp", card.token, {"jsonrpc": "2.0", "id": 1, "method": "ping"}) == 401


def test_local_urls_are_loopback_only() -> None:
    assert local_url("127.0.0.1", 8765) == "http://127.0.0.1:8765"
    assert local_url("0.0.0.0", 8765) == "http://127.0.0.1:8765"
    assert local_url("::", 8765) == "http://[::1]:8765"
    assert local_url("::1", 8765) == "http://[::1]:8765"
    assert local_url("192.168.1.20", 8765) is None  # the endpoint would refuse its own host
    assert is_loopback("127.0.0.1") and is_loopback("::1")
    assert not is_loopback("10.0.0.1") and not is_loopback(None) and not is_loopback("x")
