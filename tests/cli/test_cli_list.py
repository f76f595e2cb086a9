"""`graphmem list` and the filter flags of `search` and `add`, on the embedded default (and once
on MariaDB): a page at a time with a cursor to the next, every filter and sort, scopes
(--agent, --run) and metadata filters (--meta, --meta-in), and bad values named as fields."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from graphmem.cli.filters import scalar
from tests.helpers.cli import json_error

NOTES = [  # content, created_at, flags
    ("Ann flies to Oslo in May", "2024-01-01T10:00:00Z", ["--type", "event", "--agent", "travel"]),
    (
        "Ann likes aisle seats",
        "2024-01-02T10:00:00Z",
        ["--type", "preference", "--agent", "travel"],
    ),
    (
        "Ann's project Atlas ships in June",
        "2024-01-03T10:00:00Z",
        ["--metadata", '{"project": "Atlas", "tier": "gold", "year": 2024}', "--run", "r1"],
    ),
    (
        "Ann's project Borealis ships in July",
        "2024-01-04T10:00:00Z",
        ["--metadata", '{"project": "Borealis", "tier": "silver", "year": 2025}', "--run", "r2"],
    ),
    ("Ann reads the news daily", "2024-01-05T10:00:00Z", ["--source", "agent", "--session", "s9"]),
]


@pytest.fixture
def stored(cli: Any) -> tuple[Any, list[str]]:
    """Five memories of user `ann`, oldest first, with ids in that order."""
    ids = []
    for content, when, flags in NOTES:
        code, out, err = cli(
            "add", content, "--created-at", when, *flags, "--user", "ann", "--json"
        )
        assert code == 0, err
        ids.append(json.loads(out)["id"])
    return cli, ids


def listed(cli: Any, *argv: str) -> list[str]:
    """The ids of one `list --json` page."""
    code, out, err = cli("list", *argv, "--user", "ann", "--json", "--limit", "100")
    assert code == 0, (argv, out, err)
    page = json.loads(out)
    assert page["count"] == len(page["memories"]) and page["next_cursor"] is None
    return [m["id"] for m in page["memories"]]


def test_pages_follow_the_cursor_through_every_memory(stored: tuple[Any, list[str]]) -> None:
    cli, ids = stored
    code, out, err = cli("list", "--limit", "2", "--user", "ann")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert len(lines) == 3 and ids[4] in lines[0] and ids[3] in lines[1]  # newest first
    assert "2024-01-05  [fact]  Ann reads the news daily" in lines[0]
    assert lines[2].startswith("next: graphmem list --limit 2 --user ann --data-dir ")
    assert " --cursor " in lines[2]

    seen: list[str] = []
    cursor: str | None = None
    for _ in range(5):
        argv = ["list", "--limit", "2", "--user", "ann", "--json"]
        code, out, _ = cli(*argv, *(["--cursor", cursor] if cursor else []))
        page = json.loads(out)
        assert code == 0 and set(page) == {"memories", "next_cursor", "count"}
        seen += [m["id"] for m in page["memories"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == ids[::-1]
    assert listed(cli, "--sort", "oldest") == ids


def test_every_filter_of_list(stored: tuple[Any, list[str]]) -> None:
    cli, ids = stored
    assert listed(cli, "--type", "preference") == [ids[1]]
    assert listed(cli, "--agent", "travel") == [ids[1], ids[0]]
    assert listed(cli, "--run", "r1") == [ids[2]]
    assert listed(cli, "--session", "s9") == [ids[4]]
    assert listed(cli, "--source", "agent") == [ids[4]]
    assert set(listed(cli, "--source", "agent", "--source", "user")) == set(ids)
    assert listed(cli, "--meta", "project=Atlas") == [ids[2]]
    assert listed(cli, "--meta", "year=2025") == [ids[3]]  # a number, parsed as JSON
    assert listed(cli, "--meta", 'year="2025"') == []  # the string "2025" is not 2025
    assert listed(cli, "--meta-in", "tier=gold,silver") == [ids[3], ids[2]]
    assert listed(cli, "--meta-in", "tier=gold,silver", "--meta", "year=2024") == [ids[2]]
    assert listed(cli, "--created-after", "2024-01-03T12:00:00Z") == [ids[4], ids[3]]
    assert listed(cli, "--created-before", "2024-01-02T12:00:00Z") == [ids[1], ids[0]]
    assert listed(cli, "--valid-at", "2024-01-01T12:00:00Z") == [ids[0]]
    assert listed(cli, "--min-confidence", "0") == ids[::-1]


def test_status_filters_and_the_operator_sees_the_review_queue(
    stored: tuple[Any, list[str]],
) -> None:
    cli, ids = stored
    assert cli("archive", ids[0], "--user", "ann")[0] == 0
    assert ids[0] not in listed(cli)
    assert listed(cli, "--status", "archived") == [ids[0]]
    assert listed(cli, "--status", "active", "--status", "archived") == ids[::-1]
    code, out, _ = cli("list", "--status", "archived", "--user", "ann")
    assert code == 0 and "(archived)" in out


@pytest.mark.parametrize(
    ("argv", "field"),
    [
        (["--limit", "0"], "limit"),
        (["--limit", "101"], "limit"),
        (["--limit", "many"], "limit"),
        (["--sort", "loudest"], "sort"),
        (["--status", "gone"], "status"),
        (["--type", "opinion"], "memory_type"),
        (["--cursor", "not-a-cursor"], "cursor"),
        (["--created-after", "soon"], "created_after"),
        (["--valid-at", "soon"], "valid_at"),
        (["--min-confidence", "high"], "min_confidence"),
        (["--meta", "project"], "meta"),
        (["--meta-in", "=a,b"], "meta_in"),
        (["--meta", "a=1", "--meta-in", "a=1,2"], "metadata"),
        (["--meta", "tags=[1,2]"], "metadata.tags"),
    ],
)
def test_bad_list_flags_are_2_naming_the_field(cli: Any, argv: list[str], field: str) -> None:
    code, out, err = cli("list", *argv, "--user", "ann", "--json")
    assert code == 2, (out, err)
    assert json_error(out, err)["field"] == field


def test_search_filters_never_return_what_they_exclude(stored: tuple[Any, list[str]]) -> None:
    cli, ids = stored

    def hits(*argv: str) -> list[str]:
        code, out, err = cli("search", "Ann", "-k", "10", *argv, "--user", "ann", "--json")
        assert code == 0, err
        return [h["id"] for h in json.loads(out)["hits"]]

    assert set(hits()) == set(ids)
    assert set(hits("--agent", "travel")) == {ids[0], ids[1]}
    assert hits("--run", "r2") == [ids[3]]
    assert hits("--source", "agent") == [ids[4]]
    assert hits("--meta", "project=Atlas") == [ids[2]]
    assert set(hits("--meta-in", "project=Atlas,Borealis")) == {ids[2], ids[3]}
    assert hits("--meta-in", "project=Atlas,Borealis", "--meta", "tier=silver") == [ids[3]]
    assert set(hits("--min-confidence", "0")) == set(ids)
    code, out, err = cli("search", "Ann", "--meta", "x", "--user", "ann", "--json")
    assert code == 2 and json_error(out, err)["field"] == "meta"


def test_add_stores_the_scope(cli: Any) -> None:
    code, out, _ = cli(
        "add",
        "Bo's deploy key rotates monthly",
        "--agent",
        "ops",
        "--run",
        "r7",
        "--user",
        "bo",
        "--json",
    )
    mid = json.loads(out)["id"]
    got = json.loads(cli("get", mid, "--user", "bo", "--json")[1])
    assert (got["agent_id"], got["run_id"]) == ("ops", "r7")


def test_scalar_values_are_json_when_they_parse() -> None:
    assert scalar("2024") == 2024 and scalar("1.5") == 1.5 and scalar("true") is True
    assert scalar('"042"') == "042" and scalar("Atlas") == "Atlas" and scalar("") == ""


@pytest.mark.services
def test_list_and_filters_on_mariadb(
    cli: Any, mysql_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GRAPHMEM_RECORDS_BACKEND", "mysql")
    monkeypatch.setenv("GRAPHMEM_MYSQL_URL", mysql_url)
    ids = []
    for content, when, flags in NOTES:
        code, out, err = cli(
            "add", content, "--created-at", when, *flags, "--user", "ann", "--json"
        )
        assert code == 0, err
        ids.append(json.loads(out)["id"])
    assert listed(cli) == ids[::-1]
    assert listed(cli, "--agent", "travel", "--sort", "oldest") == [ids[0], ids[1]]
    assert listed(cli, "--meta-in", "tier=gold,silver", "--meta", "year=2024") == [ids[2]]
    code, out, _ = cli("list", "--limit", "3", "--user", "ann", "--json")
    page = json.loads(out)
    code, out, _ = cli(
        "list", "--limit", "3", "--cursor", page["next_cursor"], "--user", "ann", "--json"
    )
    assert [m["id"] for m in json.loads(out)["memories"]] == [ids[1], ids[0]]


def test_observe_import_and_export_keep_the_scope(cli: Any, tmp_path: Path) -> None:
    turns = tmp_path / "turns.jsonl"
    turns.write_text('"I love hiking in the Alps."\n')
    code, out, _ = cli(
        "observe", str(turns), "--agent", "coach", "--run", "r3", "--user", "cy", "--json"
    )
    [kept] = json.loads(out)["decisions"]
    assert code == 0 and kept["action"] == "write"
    got = json.loads(cli("get", kept["memory_ids"][0], "--user", "cy", "--json")[1])
    assert (got["agent_id"], got["run_id"]) == ("coach", "r3")

    exported = tmp_path / "cy.jsonl"
    assert cli("export", str(exported), "--user", "cy")[0] == 0
    assert cli("import", str(exported), "--user", "cy2")[0] == 0
    code, out, _ = cli("list", "--agent", "coach", "--run", "r3", "--user", "cy2", "--json")
    assert [m["content"] for m in json.loads(out)["memories"]] == ["I love hiking in the Alps."]
