"""The effective settings, each with where its value came from, secrets masked:
what `graphmem config` prints.

A value comes from, in pydantic-settings' order: a command-line flag (the CLI passes it as an
argument), an environment variable, the .env file in the working directory, else the default.
Secrets never leave: SecretStr fields, fields named like credentials, and the password in a
URL are shown as `***` (set or not is still visible).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, SecretStr

from graphmem.settings import SECTIONS, Settings
from graphmem.settings.paths import LEGACY_DIR
from graphmem.settings.reference import env_names

MASK = "***"
SECRET_WORDS = ("password", "token", "api_key", "secret", "hash_key")


@dataclass(frozen=True)
class Effective:
    """One setting: its dotted name, its value as shown (masked) and its source."""

    name: str
    value: Any
    source: str


def dotenv_names(env_file: Path | None) -> set[str]:
    """The variable names the .env file sets (upper-case: settings names are
    case-insensitive)."""
    if env_file is None or not env_file.is_file():
        return set()
    from dotenv import dotenv_values

    return {k.upper() for k, v in dotenv_values(env_file).items() if v is not None}


def mask_url(value: str) -> str:
    """The URL with its password replaced by ***; a value that is no URL is kept."""
    try:
        parts = urlsplit(value)
        if not parts.password:
            return value
        user = parts.username or ""
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
        return urlunsplit(parts._replace(netloc=f"{user}:{MASK}@{host}{port}"))
    except ValueError:
        return MASK  # unparseable, but it may hold a secret


def shown(name: str, value: Any) -> Any:
    """How a value may be shown: JSON-friendly and without secrets."""
    if value is None:
        return None
    if isinstance(value, SecretStr) or any(w in name.lower() for w in SECRET_WORDS):
        return MASK
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, str) and "://" in value:
        return mask_url(value)
    if isinstance(value, Mapping | list | tuple):
        return json.loads(json.dumps(value, default=str))
    return value


def dotted_name(model: str, loc: tuple[Any, ...]) -> str:
    """Where a validation error's field sits in the tree: the section of the settings class
    named `model` (a pydantic error's title) and the field, also when the error names it by
    the variable it was read from ("GraphSettings", ("GRAPHMEM_EXPAND_HOPS",)) ->
    "graph.expand_hops"."""
    parts = [str(p) for p in loc]
    section = next((n for n, cls in SECTIONS.items() if cls.__name__ == model), None)
    if section is None or not parts:
        return ".".join(parts)
    cls = SECTIONS[section]
    parts[0] = next(
        (n for n, f in cls.model_fields.items() if parts[0] in env_names(cls, n, f)), parts[0]
    )
    return ".".join([section, *parts])


def explain(
    settings: Settings, *, flags: Mapping[str, str] | None = None, env_file: Path | None = None
) -> list[Effective]:
    """Every setting of the tree in `settings`, with its source. `flags` maps the dotted
    names the command line set to the flag that set them (e.g. data_dir -> --data-dir)."""
    flags = flags or {}
    env = {k.upper() for k, v in os.environ.items() if v != ""}
    dotenv = dotenv_names(env_file if env_file is not None else Path(".env"))
    rows: list[Effective] = []

    def walk(model: BaseModel, prefix: str, skip: frozenset[str]) -> None:
        cls = type(model)
        for name, field in cls.model_fields.items():
            if name in skip:
                continue
            dotted = prefix + name
            value = getattr(model, name)
            names = env_names(cls, name, field)
            if dotted in flags:
                source = f"flag {flags[dotted]}"
            elif found := next((n for n in names if n in env), None):
                source = f"env {found}"
            elif found := next((n for n in names if n in dotenv), None):
                source = f".env {found}"
            elif (
                dotted == "data_dir" and value == LEGACY_DIR and name not in model.model_fields_set
            ):
                source = "default (./data holds a store made before the user data dir default)"
            else:
                source = "default"
            rows.append(Effective(dotted, shown(name, value), source))

    walk(settings, "", frozenset(SECTIONS))
    for section in SECTIONS:
        walk(getattr(settings, section), f"{section}.", frozenset())
    return rows


__all__ = ["MASK", "Effective", "dotted_name", "explain", "mask_url", "shown"]
