"""Renders every setting of the tree into docs/settings.md, between the generated markers, so
the reference cannot drift from the code: `python -m graphmem.settings.reference` rewrites it,
`--check` fails when it is out of date (as the test suite does).
"""

from __future__ import annotations

import argparse
import json
import sys
import types
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import AliasChoices, BaseModel, SecretStr
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from graphmem.settings import SECTIONS, Settings

BEGIN = "<!-- BEGIN GENERATED SETTINGS: python -m graphmem.settings.reference -->"
END = "<!-- END GENERATED SETTINGS -->"
DEFAULT_PATH = Path("docs/settings.md")


def env_names(cls: type[BaseModel], name: str, field: FieldInfo) -> list[str]:
    """The variables a field is read from, the current name first, deprecated aliases after."""
    alias = field.validation_alias
    if isinstance(alias, AliasChoices):
        return [c for c in alias.choices if isinstance(c, str)]
    if isinstance(alias, str):
        return [alias]
    return [(str(cls.model_config.get("env_prefix", "")) + name).upper()]


def type_name(tp: Any) -> str:
    origin = get_origin(tp)
    if origin is Literal:
        return " | ".join(str(a) for a in get_args(tp))
    if origin in (Union, types.UnionType):
        return " | ".join(type_name(a) for a in get_args(tp))
    if origin is not None:
        return f"{origin.__name__}[{', '.join(type_name(a) for a in get_args(tp))}]"
    if tp is type(None):
        return "None"
    return getattr(tp, "__name__", str(tp))


def default_of(field: FieldInfo) -> str:
    if field.default_factory is not None:
        text = getattr(field.default_factory, "text", None)
        if isinstance(text, str):  # a default resolved per machine, described instead
            return text
        value = field.default_factory()  # type: ignore[call-arg]
    elif field.default is PydanticUndefined:
        return "required"
    else:
        value = field.default
    if value is None:
        return "unset"
    if isinstance(value, SecretStr):
        return "(secret)"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, dict | list):
        return json.dumps(value)
    return str(value)


def _cell(text: str, code: bool = False) -> str:
    text = text.replace("|", "\\|")
    if code:
        return f"`{text}`" if text else text
    return text.replace("<", "&lt;").replace(">", "&gt;")


def table(cls: type[BaseModel], skip: frozenset[str] = frozenset()) -> list[str]:
    rows = [
        "| Setting | Environment variable | Type | Default | Description |",
        "|---|---|---|---|---|",
    ]
    for name, field in cls.model_fields.items():
        if name in skip:
            continue
        first, *old = env_names(cls, name, field)
        env = _cell(first, code=True) + "".join(
            f"<br>{_cell(o, code=True)} (deprecated)" for o in old
        )
        rows.append(
            f"| `{name}` | {env} | {_cell(type_name(field.annotation), code=True)}"
            f" | {_cell(default_of(field), code=True)} | {_cell(field.description or '')} |"
        )
    return rows


def render() -> str:
    lines = [
        BEGIN,
        "",
        "### The root: `Settings()`",
        "",
        *table(Settings, frozenset(SECTIONS)),
    ]
    for name, cls in SECTIONS.items():
        prefix = cls.model_config.get("env_prefix", "")
        doc = (Settings.model_fields[name].description or "").strip()
        lines += ["", f"### `settings.{name}`: {doc} ({cls.__name__}, {prefix}*)", ""]
        lines += table(cls)
    lines += ["", END]
    return "\n".join(lines)


def update(text: str) -> str:
    """`text` with its generated block replaced by the current one."""
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start] + render() + text[end:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH)
    parser.add_argument("--check", action="store_true", help="fail if the file is out of date")
    args = parser.parse_args(argv)
    text = args.path.read_text(encoding="utf-8")
    return sync_generated(
        args.path, text, update(text), args.check, "python -m graphmem.settings.reference"
    )


def sync_generated(path: Path, text: str, new: str, check: bool, regenerate: str) -> int:
    """Write a generated document's new text, or with `check` only say whether it is stale
    (exit 1 and a diff, so a failing check shows what drifted). Shared by every generator of
    a reference document, so they check and report alike."""
    if new == text:
        return 0
    if check:
        import difflib

        sys.stdout.writelines(
            difflib.unified_diff(
                text.splitlines(keepends=True),
                new.splitlines(keepends=True),
                f"{path} (as it is)",
                f"{path} (as generated)",
            )
        )
        print(f"\n{path} is out of date: run {regenerate}")
        return 1
    path.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
