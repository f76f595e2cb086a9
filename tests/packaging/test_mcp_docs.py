"""docs/mcp.md's reference is generated from the server's own listing; this fails when the
two drift (a tool, argument, bound or result key added, renamed or removed without
regenerating it with `python scripts/mcp_docs.py`)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
Listing = dict[str, Any]


def mcp_docs() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mcp_docs", ROOT / "scripts" / "mcp_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["mcp_docs"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def docs() -> ModuleType:
    return mcp_docs()


@pytest.fixture(scope="module")
def listing(docs: ModuleType) -> Listing:
    return docs.listing()


def test_the_reference_in_docs_mcp_md_is_current(docs: ModuleType, listing: Listing) -> None:
    text = docs.DEFAULT_PATH.read_text(encoding="utf-8")
    new = docs.update(text, docs.render(listing, docs.budgets()))
    assert new == text, "docs/mcp.md is out of date: run python scripts/mcp_docs.py"


def test_every_tool_prompt_and_resource_is_in_the_reference(
    docs: ModuleType, listing: Listing
) -> None:
    text = docs.DEFAULT_PATH.read_text(encoding="utf-8")
    block = text[text.index(docs.BEGIN) : text.index(docs.END)]
    for tool in listing["tools"]:
        assert f"### `{tool['name']}`" in block
        for arg in tool["inputSchema"].get("properties", {}):
            assert f"| `{arg}` |" in block, (tool["name"], arg)
    for prompt in listing["prompts"]:
        assert f"`{prompt['name']}`" in block
    for template in listing["templates"]:
        assert template["uriTemplate"] in block


def test_check_fails_with_a_diff_when_the_file_drifts(
    docs: ModuleType,
    listing: Listing,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    stale = docs.DEFAULT_PATH.read_text(encoding="utf-8").replace(
        "| `top_k` | integer | `5` | 1-50 |", "| `top_k` | integer | `5` | 1-20 |"
    )
    path = tmp_path / "mcp.md"
    path.write_text(stale, encoding="utf-8")
    monkeypatch.setattr(docs, "listing", lambda: listing)
    assert docs.main([str(path), "--check"]) == 1
    out = capsys.readouterr().out
    assert (
        "-| `top_k` | integer | `5` | 1-20 |" in out
        and "+| `top_k` | integer | `5` | 1-50 |" in out
    )
    assert docs.main([str(path)]) == 0  # rewriting it
    assert docs.main([str(path), "--check"]) == 0
    assert path.read_text(encoding="utf-8") == docs.DEFAULT_PATH.read_text(encoding="utf-8")
    path.write_text("no markers here", encoding="utf-8")
    assert docs.main([str(path), "--check"]) == 2
