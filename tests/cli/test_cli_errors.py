"""How every `graphmem` command fails: the documented exit codes (0 ok, 1 not found, 2 bad
input, 3 store unavailable or held), one line on stderr, or under --json one
`{"error": {"field": ..., "message": ...}}` on stdout and nothing on stderr; the same when a
running server runs the command for the CLI. And each command's --help lists only the options
that apply to it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from graphmem.cli.main import build_parser, main
from tests.helpers.cli import graphmem, json_error, one_line
from tests.helpers.mcp import free_port


# ----------------------------------------------------------------------------- in-process
def test_success_is_0_and_an_unknown_id_is_1(cli: Any) -> None:
    code, out, _ = cli("add", "Ada keeps her bike in the basement", "--user", "ada", "--json")
    assert code == 0 and set(json.loads(out)) == {"id"}
    for argv in (["get", "no-such-id"], ["history", "no-such-id"], ["update", "no-such-id", "x"]):
        code, out, err = cli(*argv, "--user", "ada", "--json")
        assert code == 1, argv
        assert json_error(out, err) == {
            "field": "memory_id",
            "message": "no memory 'no-such-id' for this user",
        }
        code, out, err = cli(*argv, "--user", "ada")
        assert (code, out) == (1, "") and one_line(err).startswith("error: memory_id: no memory")


@pytest.mark.parametrize(
    ("argv", "field", "says"),
    [
        (["add", ""], "content", "empty"),
        (["add", "x", "--type", "opinion"], "memory_type", "opinion"),
        (["search", "x", "--time-range", "soon"], "time_range", "soon"),
        (["search", "x", "-k", "0"], "top_k", ""),
        (["update", "some-id", "x", "--metadata", "{bad"], "metadata", "not valid JSON"),
        (["forget"], "memory_id", "either memory ids or --query"),
        (["import", "/nonexistent/in.jsonl"], "file", "cannot open"),
        (["observe", "/nonexistent/turns.json"], "file", "cannot open"),
        (["forget-user", "--confirm", "someone-else"], "confirm", "--confirm"),
    ],
)
def test_bad_input_is_2_with_the_field(cli: Any, argv: list[str], field: str, says: str) -> None:
    code, out, err = cli(*argv, "--user", "ann", "--json")
    assert code == 2
    error = json_error(out, err)
    assert error["field"] == field and says in error["message"]
    assert not error["message"].startswith(f"{field}:")  # the field is said once, apart
    code, out, err = cli(*argv, "--user", "ann")
    assert (code, out) == (2, "") and one_line(err).startswith(f"error: {field}")


@pytest.mark.parametrize(
    ("argv", "field", "says"),
    [
        # (`add` alone is graphmem's own error since its text became optional: --image)
        (["get"], "memory_id", "the following arguments are required: memory_id"),
        (["forget-user"], "confirm", "required: --confirm"),
        (["search", "x", "-k", "many"], "top_k", "'many' is not an integer"),
        (["search", "x", "--threshold", "1"], None, "unrecognized arguments: --threshold 1"),
        (["quarantine", "sort"], "action", "invalid choice: 'sort'"),
        (["serve", "--role", "root"], "role", "invalid choice: 'root'"),
        (["no-such-command"], "command", "invalid choice: 'no-such-command'"),
        (["config", "--user", "ann"], None, "unrecognized arguments: --user ann"),
    ],
)
def test_a_command_line_argparse_refuses_is_2_and_json_too(
    cli: Any, argv: list[str], field: str | None, says: str
) -> None:
    code, out, err = cli(*argv, "--json")
    assert code == 2
    error = json_error(out, err)
    assert error["field"] == field and says in error["message"]
    # without --json: argparse's own usage and error, on stderr
    code, out, err = cli(*argv)
    assert (code, out) == (2, "")
    assert err.startswith("usage: graphmem") and "error: " in err and "Traceback" not in err


def test_json_after_a_double_dash_is_an_argument_not_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["get", "--data-dir", str(tmp_path / "data"), "--", "--json"])
    out, err = capsys.readouterr()
    assert (code, out) == (1, "") and one_line(err).startswith("error: memory_id")


def test_a_bad_log_setting_is_2_and_json_too(cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHMEM_LOG_LEVEL", "LOUD")
    code, out, err = cli("stats", "--json")
    assert code == 2 and json_error(out, err)["field"] is not None


def test_a_store_another_process_holds_is_3(held_store: Path, cli: Any) -> None:
    code, out, err = cli("stats", "--json")  # the same tmp_path / "data"
    assert code == 3
    assert json_error(out, err) == {
        "field": None,
        "message": f"the store in {held_store} is in use by another graphmem process; stop it,"
        " or wait for it to finish",
    }


@pytest.mark.parametrize(
    "argv", [["stats"], ["config"], ["doctor"], ["serve", "--add-token", "ann"], ["list"]]
)
def test_a_setting_that_does_not_parse_is_2_naming_it(
    cli: Any, monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    """Before: pydantic's ValidationError as a traceback, and exit 1."""
    monkeypatch.setenv("GRAPHMEM_EXPAND_HOPS", "two")
    code, out, err = cli(*argv, "--json")
    assert code == 2
    error = json_error(out, err)
    assert error["field"] == "graph.expand_hops" and "valid integer" in error["message"]
    assert "two" not in error["message"]  # a setting's value may be a secret: never echoed
    code, out, err = cli(*argv)
    assert (code, out) == (2, "") and one_line(err).startswith("error: graph.expand_hops: ")


def test_an_unreachable_records_store_is_3(cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHMEM_RECORDS_BACKEND", "mysql")
    monkeypatch.setenv("GRAPHMEM_MYSQL_URL", "mysql://u:p@127.0.0.1:1/nothing")  # refused
    code, out, err = cli("stats", "--json")
    assert code == 3
    error = json_error(out, err)
    assert error["field"] is None and "unreachable" in error["message"]
    code, out, err = cli("stats")
    assert (code, out) == (3, "") and "unreachable" in one_line(err)


# ----------------------------------------------------------------------------- --help
def help_of(command: str) -> str:
    return str(build_parser()._subparsers._group_actions[0].choices[command].format_help())  # type: ignore[union-attr]


def test_serve_help_lists_only_what_applies_to_serve() -> None:
    text = " ".join(help_of("serve").split())
    for flag in ("--stdio", "--host", "--port", "--add-token", "--role", "--label", "--data-dir"):
        assert flag in text
    # --user and --json are serve's own, with the mode they apply to; not the generic ones
    assert "--user USER with --stdio:" in text and "over HTTP each token names its user" in text
    assert "--json with --add-token:" in text
    assert "machine-readable JSON output" not in text and "user id (default" not in text


def test_commands_that_take_no_user_do_not_list_it() -> None:
    for command in ("config", "doctor", "version"):
        assert "--user" not in help_of(command), command
    assert "--data-dir" not in help_of("version")
    for command in ("compact", "backfill"):  # --user narrows them; without it, every user
        assert "only this user's memories (default: every user's)" in " ".join(
            help_of(command).split()
        )
    assert "--user" in help_of("add") and "--json" in help_of("add")


# ----------------------------------------------------------------------------- through a server
def test_errors_through_a_running_server_are_the_same(http_serve: tuple[Path, int]) -> None:
    data_dir, pid = http_serve
    code, out, err = graphmem(data_dir, "search", "x", "--time-range", "soon", "--json")
    assert code == 2 and json_error(out, err)["field"] == "time_range"

    code, out, err = graphmem(data_dir, "get", "no-such-id", "--json")
    assert code == 1
    assert json_error(out, err) == {
        "field": "memory_id",
        "message": "no memory 'no-such-id' for this user",
    }
    code, out, err = graphmem(data_dir, "get", "no-such-id")
    assert (code, out) == (1, "") and one_line(err).startswith("error: memory_id")

    code, out, err = graphmem(data_dir, "add", "--json")
    assert code == 2 and json_error(out, err)["field"] == "content"

    for argv in (("doctor",), ("compact",), ("serve", "--port", str(free_port()))):
        code, out, err = graphmem(data_dir, *argv, "--json")
        assert code == 3, argv
        error = json_error(out, err)
        assert error["field"] is None
        assert error["message"].startswith(f"the store in {data_dir} is in use by graphmem serve")
        assert f"(pid {pid})" in error["message"]


def test_list_goes_through_a_running_server(http_serve: tuple[Path, int]) -> None:
    data_dir, _ = http_serve
    code, out, err = graphmem(data_dir, "list", "--json")
    assert (code, err) == (0, "")
    page = json.loads(out)
    assert page["next_cursor"] is None
    assert any("Lisbon" in m["content"] for m in page["memories"])
    code, out, err = graphmem(data_dir, "list", "--limit", "0", "--json")
    assert code == 2 and json_error(out, err)["field"] == "limit"
