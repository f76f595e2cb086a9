"""The graphmem image's entrypoint: puts the MySQL and Redis passwords into their URLs,
percent-encoded, then runs the command (by default `graphmem serve`).

Compose copies a .env value into the environment as it is, so a password written straight into
`mysql://graphmem:${MYSQL_PASSWORD}@mysql:3306/graphmem` breaks as soon as it holds "@", "/",
":" or "#": the URL parser then reads another host, port or path, and the error names none of
them. compose.yaml therefore passes each URL without a password and the password on its own
(GRAPHMEM_MYSQL_PASSWORD, GRAPHMEM_REDIS_PASSWORD, or a *_FILE variant naming a file, as with
Docker secrets); graphmem's URL parsers percent-decode the user and password, so the quoted
form below reaches the server byte for byte. Neo4j and Qdrant take their secrets as separate
settings already (GRAPHMEM_NEO4J_PASSWORD, GRAPHMEM_QDRANT_API_KEY).

Standard library only: it runs before anything else in the image and in the healthcheck's
interpreter, so it must not depend on the installed packages.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, MutableMapping
from urllib.parse import quote, urlsplit, urlunsplit

# URL setting -> the setting that holds its password.
PASSWORDS = {
    "GRAPHMEM_MYSQL_URL": "GRAPHMEM_MYSQL_PASSWORD",
    "GRAPHMEM_REDIS_URL": "GRAPHMEM_REDIS_PASSWORD",
}
DEFAULT_COMMAND = ["graphmem", "serve"]


class ConfigError(Exception):
    """A setting the container cannot start with; the message names it and says what to do."""


def with_password(url: str, password: str) -> str:
    """`url` with `password` as its percent-encoded password; the user part stays as given."""
    parts = urlsplit(url)
    userinfo, at, hostport = parts.netloc.rpartition("@")
    if not at:
        userinfo, hostport = "", parts.netloc
    if ":" in userinfo:
        raise ConfigError("already holds a password")
    netloc = f"{userinfo}:{quote(password, safe='')}@{hostport}"
    return urlunsplit(parts._replace(netloc=netloc))


def read_password(env: Mapping[str, str], name: str) -> str | None:
    """The password from `name`, else from the file `name`_FILE names (one trailing newline
    dropped: editors and `echo` add one, passwords do not end in one)."""
    if name in env:
        return env[name]
    path = env.get(name + "_FILE")
    if not path:
        return None
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise ConfigError(f"{name}_FILE: cannot read {path}: {e.strerror}") from e
    return text[:-1] if text.endswith("\n") else text


def fill_passwords(env: MutableMapping[str, str]) -> None:
    """Move each separate password into its URL, in place; the separate copies are removed so
    the server process holds each secret once."""
    for url_name, pw_name in PASSWORDS.items():
        password = read_password(env, pw_name)
        env.pop(pw_name, None)
        env.pop(pw_name + "_FILE", None)
        if not password:  # unset, or compose's empty value for an unset .env entry
            continue
        url = env.get(url_name)
        if not url:
            raise ConfigError(f"{pw_name} is set but {url_name} is not: set both, or neither")
        try:
            env[url_name] = with_password(url, password)
        except ConfigError as e:
            raise ConfigError(
                f"{url_name} {e}: give the password in the URL or in {pw_name}, not both"
            ) from None


def main(argv: list[str]) -> int:
    try:
        fill_passwords(os.environ)
    except ConfigError as e:
        print(f"graphmem: {e}", file=sys.stderr)
        return 2
    command = argv or DEFAULT_COMMAND
    try:
        os.execvp(command[0], command)
    except OSError as e:
        print(f"graphmem: cannot run {command[0]!r}: {e.strerror}", file=sys.stderr)
        return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
