"""One data home: the default data directory is the platform's user data dir, not ./data of
wherever a command runs; a ./data store made before keeps working, with a notice; the first
run says where the store is; `graphmem config` says where every setting came from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from graphmem.cli.main import main
from graphmem.settings import Settings
from graphmem.settings.explain import MASK, explain, mask_url
from graphmem.settings.paths import LEGACY_DIR, legacy_notice, user_data_dir


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory and a user data dir of the test's own, nothing configured."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    for name in ("GRAPHMEM_DATA_DIR", "GRAPHMEM_USER_ID"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def test_the_default_is_the_user_data_dir_wherever_a_command_runs(home: Path) -> None:
    assert user_data_dir() == home / "xdg" / "graphmem"
    assert Settings(_env_file=None).data_dir == home / "xdg" / "graphmem"
    (home / "data").mkdir()  # some folder called data, no store in it: not used
    assert Settings(_env_file=None).data_dir == home / "xdg" / "graphmem"


def test_a_data_store_made_before_is_kept_with_a_notice(home: Path) -> None:
    (home / "data").mkdir()
    (home / "data" / "graphmem.sqlite3").touch()
    settings = Settings(_env_file=None)
    assert settings.data_dir == LEGACY_DIR
    notice = legacy_notice(settings.data_dir, defaulted=True)
    assert notice is not None and "GRAPHMEM_DATA_DIR=" in notice and "\n" not in notice
    # asked for explicitly, ./data is just the data directory
    assert legacy_notice(Path("data"), defaulted=False) is None


def test_the_variable_wins_over_the_legacy_store(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (home / "data").mkdir()
    (home / "data" / "graphmem.sqlite3").touch()
    monkeypatch.setenv("GRAPHMEM_DATA_DIR", str(home / "elsewhere"))
    assert Settings(_env_file=None).data_dir == home / "elsewhere"


def test_the_cli_keeps_using_a_legacy_store_and_says_so(
    home: Path, capsys: pytest.CaptureFixture[str], embedder: Any
) -> None:
    assert main(["add", "Ann likes tea", "--data-dir", "data"]) == 0  # an older graphmem's store
    capsys.readouterr()
    assert main(["stats", "--json"]) == 0  # nothing set: the default finds ./data
    out, err = capsys.readouterr()
    assert json.loads(out)["total"] == 1
    assert err.count("\n") == 1 and "because ./data was the default before" in err


def test_the_first_run_says_where_the_new_store_is(cli: Any, tmp_path: Path) -> None:
    code, _, err = cli("search", "anything")
    assert code == 0
    assert err == (
        f"graphmem: created a new store in {(tmp_path / 'data').resolve()}"
        " (GRAPHMEM_DATA_DIR or --data-dir chooses another)\n"
    )
    code, _, err = cli("search", "anything")
    assert (code, err) == (0, "")  # only the first


def test_a_first_run_with_bad_input_prints_only_its_error(cli: Any) -> None:
    code, out, err = cli("add", "")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: content")


def test_config_says_where_each_value_came_from_and_masks_secrets(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GRAPHMEM_RECORDS_BACKEND", "mysql")
    monkeypatch.setenv("GRAPHMEM_MYSQL_URL", "mysql://gm:s3cr%40t:x@db.local:3306/graphmem")
    monkeypatch.setenv("GRAPHMEM_NEO4J_PASSWORD", "neo-secret")
    monkeypatch.setenv("GRAPHMEM_LLM_API_KEY", "sk-very-secret")
    monkeypatch.setenv("GRAPHMEM_SUMMARY_LLM_MODEL", "tiny")  # a deprecated alias
    monkeypatch.setenv("GRAPHMEM_TOKENS", "tok-0123456789abcdef=ann")
    (home / ".env").write_text("GRAPHMEM_EXPAND_HOPS=1\nGRAPHMEM_REDIS_URL=redis://:pw@r:6379/0\n")

    assert main(["config", "--json", "--data-dir", str(home / "d")]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    for secret in ("s3cr", "neo-secret", "sk-very-secret", "tok-0123456789abcdef", ":pw@"):
        assert secret not in out
    rows = json.loads(out)
    assert rows["data_dir"] == {"value": str(home / "d"), "source": "flag --data-dir"}
    assert rows["records.backend"] == {"value": "mysql", "source": "env GRAPHMEM_RECORDS_BACKEND"}
    assert rows["records.mysql_url"]["value"] == f"mysql://gm:{MASK}@db.local:3306/graphmem"
    assert rows["neo4j.password"] == {"value": MASK, "source": "env GRAPHMEM_NEO4J_PASSWORD"}
    assert rows["llm.api_key"]["value"] == MASK
    assert rows["llm.model"] == {"value": "tiny", "source": "env GRAPHMEM_SUMMARY_LLM_MODEL"}
    assert rows["server.tokens"]["value"] == MASK
    assert rows["graph.expand_hops"] == {"value": 1, "source": ".env GRAPHMEM_EXPAND_HOPS"}
    assert rows["redis_url"] == {
        "value": f"redis://:{MASK}@r:6379/0",
        "source": ".env GRAPHMEM_REDIS_URL",
    }
    assert rows["ranking.candidate_pool"]["source"] == "default"
    assert rows["neo4j.user"] == {"value": "neo4j", "source": "default"}

    assert main(["config", "--changed"]) == 0
    out, _ = capsys.readouterr()
    lines = out.splitlines()
    assert any(line.startswith("data_dir ") and "(default)" in line for line in lines)
    assert any(line.startswith("graph.expand_hops ") for line in lines)
    assert not any(line.startswith("neo4j.user ") for line in lines)
    assert "neo-secret" not in out


def test_config_names_a_legacy_data_dir_as_such(home: Path) -> None:
    (home / "data").mkdir()
    (home / "data" / "vectors").mkdir()
    rows = {r.name: r for r in explain(Settings(_env_file=None))}
    assert rows["data_dir"].value == "data"
    assert rows["data_dir"].source.startswith("default (./data holds a store")


def test_mask_url_keeps_what_is_not_secret() -> None:
    assert mask_url("bolt://127.0.0.1:7687") == "bolt://127.0.0.1:7687"
    assert mask_url("redis://u:p@h/0") == f"redis://u:{MASK}@h/0"
