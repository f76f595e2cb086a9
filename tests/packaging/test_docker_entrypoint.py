"""The image's entrypoint (deploy/docker/entrypoint.py): separate passwords into their URLs,
percent-encoded, so that any character in a password reaches MySQL and Redis unchanged."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import redis.connection

from graphmem.settings import Settings
from graphmem.stores.records.mysql import parse_mysql_url
from tests.helpers.docker import SCRIPT, load_entrypoint

PASSWORDS = ["p@ss/w:rd", "#?&=+ %20é", "::@@//", "%", "plain"]


ep = load_entrypoint()


@pytest.mark.parametrize("password", PASSWORDS)
def test_mysql_and_redis_urls_carry_any_password(password: str) -> None:
    mysql = parse_mysql_url(ep.with_password("mysql://graphmem@db.example:3307/gm", password))
    assert mysql == {
        "host": "db.example",
        "port": 3307,
        "user": "graphmem",
        "password": password,
        "database": "gm",
    }
    rkw = redis.connection.parse_url(ep.with_password("redis://cache:6380/2", password))
    assert (rkw["host"], rkw["port"], rkw["db"], rkw["password"]) == ("cache", 6380, 2, password)
    assert "username" not in rkw  # no user: Redis's default user, as before
    acl = redis.connection.parse_url(ep.with_password("redis://app@cache:6379/0", password))
    assert (acl["username"], acl["password"]) == ("app", password)


def test_settings_take_neo4j_and_qdrant_secrets_as_they_are(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """These two never go through a URL, so compose can pass them straight through."""
    monkeypatch.setenv("GRAPHMEM_NEO4J_PASSWORD", "p@ss/w:rd#")
    monkeypatch.setenv("GRAPHMEM_QDRANT_API_KEY", "k@y/w:rd#")
    s = Settings()
    assert s.neo4j.password == "p@ss/w:rd#" and s.qdrant.api_key == "k@y/w:rd#"


def test_fill_passwords_moves_each_password_into_its_url(tmp_path: Path) -> None:
    secret = tmp_path / "redis_password"
    secret.write_text("from/a:file@\n", "utf-8")
    env = {
        "GRAPHMEM_MYSQL_URL": "mysql://graphmem@mysql:3306/graphmem",
        "GRAPHMEM_MYSQL_PASSWORD": "p@ss/w:rd",
        "GRAPHMEM_REDIS_URL": "redis://redis:6379/0",
        "GRAPHMEM_REDIS_PASSWORD_FILE": str(secret),
        "OTHER": "kept",
    }
    ep.fill_passwords(env)
    assert env == {
        "GRAPHMEM_MYSQL_URL": "mysql://graphmem:p%40ss%2Fw%3Ard@mysql:3306/graphmem",
        "GRAPHMEM_REDIS_URL": "redis://:from%2Fa%3Afile%40@redis:6379/0",
        "OTHER": "kept",
    }


def test_without_separate_passwords_the_urls_are_left_alone() -> None:
    env = {"GRAPHMEM_MYSQL_URL": "mysql://u:already%40encoded@h/db"}
    ep.fill_passwords(env)
    assert env == {"GRAPHMEM_MYSQL_URL": "mysql://u:already%40encoded@h/db"}
    # compose turns an unset .env entry into an empty value: no password, not an empty one
    env = {"GRAPHMEM_REDIS_URL": "redis://redis:6379/0", "GRAPHMEM_REDIS_PASSWORD": ""}
    ep.fill_passwords(env)
    assert env == {"GRAPHMEM_REDIS_URL": "redis://redis:6379/0"}


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"GRAPHMEM_MYSQL_URL": "mysql://u:old@h/db", "GRAPHMEM_MYSQL_PASSWORD": "new"},
            "GRAPHMEM_MYSQL_URL already holds a password",
        ),
        ({"GRAPHMEM_REDIS_PASSWORD": "pw"}, "GRAPHMEM_REDIS_PASSWORD is set but"),
        ({"GRAPHMEM_REDIS_PASSWORD_FILE": "/nonexistent/pw"}, "cannot read /nonexistent/pw"),
    ],
)
def test_a_contradictory_setting_is_one_line_naming_it(env: dict[str, str], message: str) -> None:
    with pytest.raises(ep.ConfigError, match=message):
        ep.fill_passwords(dict(env))


def _run(env: dict[str, str], *command: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    return subprocess.run(
        [sys.executable, str(SCRIPT), *command],
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_script_execs_the_command_with_the_filled_environment() -> None:
    show = (
        "import os; print(os.environ['GRAPHMEM_MYSQL_URL']);"
        " print('GRAPHMEM_MYSQL_PASSWORD' in os.environ)"
    )
    out = _run(
        {
            "GRAPHMEM_MYSQL_URL": "mysql://graphmem@mysql:3306/graphmem",
            "GRAPHMEM_MYSQL_PASSWORD": "p@ss/w:rd",
        },
        sys.executable,
        "-c",
        show,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["mysql://graphmem:p%40ss%2Fw%3Ard@mysql:3306/graphmem", "False"]


def test_the_script_fails_in_one_line_without_a_traceback() -> None:
    out = _run({"GRAPHMEM_MYSQL_PASSWORD": "pw"}, "true")
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        "graphmem: GRAPHMEM_MYSQL_PASSWORD is set but GRAPHMEM_MYSQL_URL is not: set both,"
        " or neither"
    ]
    missing = _run({}, "no-such-command-graphmem")
    assert missing.returncode == 127 and "Traceback" not in missing.stderr
