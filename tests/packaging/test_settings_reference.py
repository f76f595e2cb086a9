"""docs/settings.md lists every setting as the code declares it."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from graphmem.settings import SECTIONS, Settings
from graphmem.settings.reference import env_names, render, update

DOC = Path(__file__).resolve().parents[2] / "docs" / "settings.md"


def test_docs_settings_md_is_up_to_date() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert update(text) == text, "run: python -m graphmem.settings.reference"


def test_every_variable_of_the_tree_is_in_the_reference() -> None:
    out = render()
    classes: list[type[BaseModel]] = [Settings, *SECTIONS.values()]
    for cls in classes:
        for name, field in cls.model_fields.items():
            if cls is Settings and name in SECTIONS:
                continue
            for env in env_names(cls, name, field):
                assert f"`{env}`" in out, env
