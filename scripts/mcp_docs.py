"""Renders the MCP reference of docs/mcp.md (every tool with its arguments, result shape and
annotations; every prompt and resource) from the server's own listing, between the generated
markers, so the reference cannot drift from the code.

    python scripts/mcp_docs.py            # rewrite the generated part of docs/mcp.md
    python scripts/mcp_docs.py --check    # exit 1 and print a diff when it is out of date

The server is built over an embedded MemoryService in a temporary directory, with the default
settings (GRAPHMEM_* variables and .env are ignored, so the reference shows the defaults), and
listed through fastmcp's Client in process: what a client is told is what gets written down.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

BEGIN = "<!-- BEGIN GENERATED MCP REFERENCE: python scripts/mcp_docs.py -->"
END = "<!-- END GENERATED MCP REFERENCE -->"
ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PATH = ROOT / "docs" / "mcp.md"
HINTS = (
    ("readOnlyHint", "read-only"),
    ("destructiveHint", "destructive"),
    ("idempotentHint", "idempotent"),
    ("openWorldHint", "open world"),
)


# ----------------------------------------------------------------------------- the listing
@contextlib.contextmanager
def defaults_only() -> Iterator[None]:
    """No GRAPHMEM_* variable of the caller's shell reaches the settings, so the reference
    shows the defaults wherever it is generated."""
    saved = {k: v for k, v in os.environ.items() if k.startswith("GRAPHMEM_")}
    for key in saved:
        del os.environ[key]
    try:
        yield
    finally:
        os.environ.update(saved)


def listing() -> dict[str, Any]:
    """tools, prompts, resources and resource templates as a client gets them, as JSON."""
    sys.path.insert(0, str(ROOT))
    from fastmcp import Client

    from graphmem import MemoryService, Settings
    from graphmem.mcp.server import create_server
    from graphmem.stores import open_working

    async def go(server: Any) -> dict[str, Any]:
        async with Client(server) as c:
            return {
                "tools": [
                    t.model_dump(by_alias=True, exclude_none=True) for t in await c.list_tools()
                ],
                "prompts": [
                    p.model_dump(by_alias=True, exclude_none=True) for p in await c.list_prompts()
                ],
                "resources": [
                    r.model_dump(by_alias=True, exclude_none=True, mode="json")
                    for r in await c.list_resources()
                ],
                "templates": [
                    r.model_dump(by_alias=True, exclude_none=True)
                    for r in await c.list_resource_templates()
                ],
            }

    with defaults_only(), tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp) / "data", _env_file=None)  # type: ignore[call-arg]
        svc = MemoryService(settings)
        try:
            server = create_server(svc, working=open_working("memory"), default_user="docs")
            return asyncio.run(go(server))
        finally:
            svc.close()


def budgets() -> dict[str, str]:
    from graphmem.mcp.middleware import TOOL_BUDGETS

    return {tool: budget or "none" for tool, budget in TOOL_BUDGETS.items()}


# ----------------------------------------------------------------------------- rendering
def cell(text: Any) -> str:
    """Text fit for one table cell."""
    return " ".join(str(text).split()).replace("|", "\\|")


def code(value: Any) -> str:
    return (
        f"`{json.dumps(value, ensure_ascii=False)}`" if not isinstance(value, str) else f"`{value}`"
    )


def options(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The alternatives of a schema other than null, nested unions flattened."""
    alts = schema.get("anyOf") or schema.get("oneOf")
    if alts:
        return [o for a in alts if a.get("type") != "null" for o in options(a)]
    return [schema]


def nullable(schema: dict[str, Any]) -> bool:
    alts = schema.get("anyOf") or schema.get("oneOf") or []
    return schema.get("type") == "null" or any(nullable(a) for a in alts)


def grouped(text: str) -> str:
    return f"({text})" if " or " in text else text


def type_text(schema: dict[str, Any]) -> str:
    alts = options(schema)
    if len(alts) != 1 or alts[0] is not schema:
        several = len(alts) > 1
        texts = [
            inline(a)
            if several and a.get("type") == "object" and a.get("properties")
            else type_text(a)
            for a in alts
        ] + (["null"] if nullable(schema) else [])
        if len(texts) == 1:
            return texts[0]
        return " or ".join(f"({t})" if " " in t and t[0] != "{" else t for t in texts)
    if "enum" in schema:
        return "one of " + ", ".join(code(v) for v in schema["enum"])
    if "const" in schema:
        return code(schema["const"])
    kind = schema.get("type")
    if kind == "array":
        return f"list of {grouped(type_text(schema.get('items', {})))}"
    if kind == "object":
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict) and not schema.get("properties"):
            return f"map of string to {grouped(type_text(extra))}"
        return "object"
    if isinstance(kind, list):
        return " or ".join(kind)
    return str(kind or "any")


def inline(schema: dict[str, Any]) -> str:
    """A small object among other alternatives, spelled out: `{"in": list of string}`."""
    fields = ", ".join(f'"{k}": {type_text(v)}' for k, v in schema["properties"].items())
    return "{" + fields + "}"


def sized(low: int | None, high: int | None, unit: str) -> list[str]:
    if low == 1 and high is None:
        return ["not empty"]
    if low and high is not None:
        return [f"{low}-{high} {unit}"]
    if high is not None:
        return [f"at most {high} {unit}"]
    return [f"at least {low} {unit}"] if low else []


def bounds(schema: dict[str, Any]) -> str:
    parts = []
    for alt in options(schema):
        low, high = alt.get("minimum"), alt.get("maximum")
        if "exclusiveMinimum" in alt:
            parts.append(f"> {alt['exclusiveMinimum']}")
        if low is not None and high is not None:
            parts.append(f"{low}-{high}")
        elif low is not None:
            parts.append(f">= {low}")
        elif high is not None:
            parts.append(f"<= {high}")
        parts += sized(alt.get("minLength"), alt.get("maxLength"), "characters")
        parts += sized(alt.get("minItems"), alt.get("maxItems"), "items")
        if "pattern" in alt:
            parts.append(f"pattern `{alt['pattern']}`")
    return ", ".join(parts)


def nested(schema: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """Where a schema holds named fields: (path suffix, the object schema), or None."""
    alts = options(schema)
    if sum(1 for a in alts if a.get("type") in ("object", "array")) > 1:
        return None  # several shapes: spelled out inline by type_text
    for alt in alts:
        if alt.get("type") == "object" and alt.get("properties"):
            return "", alt
        if alt.get("type") == "array":
            inner = nested(alt.get("items", {}))
            if inner is not None:
                return "[]" + inner[0], inner[1]
        extra = alt.get("additionalProperties")
        if alt.get("type") == "object" and isinstance(extra, dict):
            inner = nested(extra)
            if inner is not None:
                return ".*" + inner[0], inner[1]
    return None


def fields(schema: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, dict[str, Any], bool]]:
    """(dotted path, schema, required) of every named field, depth first."""
    required = set(schema.get("required", ()))
    for name, sub in schema.get("properties", {}).items():
        path = f"{prefix}{name}"
        yield path, sub, name in required
        inner = nested(sub)
        if inner is not None:
            yield from fields(inner[1], f"{path}{inner[0]}.")


def argument_rows(schema: dict[str, Any]) -> list[str]:
    rows = ["| argument | type | default | bounds | description |", "|---|---|---|---|---|"]
    for path, sub, required in fields(schema):
        default = "required" if required else code(sub["default"]) if "default" in sub else ""
        rows.append(
            f"| `{path}` | {cell(type_text(sub))} | {cell(default)} | {cell(bounds(sub))}"
            f" | {cell(sub.get('description', ''))} |"
        )
    return rows


def result_rows(schema: dict[str, Any]) -> list[str]:
    rows = ["| key | type | sent | description |", "|---|---|---|---|"]
    for path, sub, required in fields(schema):
        sent = "always" if required else "when it applies"
        rows.append(
            f"| `{path}` | {cell(type_text(sub))} | {sent} | {cell(sub.get('description', ''))} |"
        )
    return rows


def hints(tool: dict[str, Any]) -> str:
    notes = tool.get("annotations", {})
    return ", ".join(label if notes.get(key) else f"not {label}" for key, label in HINTS)


def render(data: dict[str, Any], budget: dict[str, str]) -> str:
    tools = data["tools"]
    lines = [
        BEGIN,
        "",
        "### Tools at a glance",
        "",
        "| tool | title | rate-limit budget | read-only | destructive | idempotent | open world |",
        "|---|---|---|---|---|---|---|",
    ]
    for t in tools:
        notes = t.get("annotations", {})
        flags = " | ".join("yes" if notes.get(key) else "no" for key, _ in HINTS)
        title = cell(notes.get("title", ""))
        lines.append(f"| [`{t['name']}`](#{t['name']}) | {title} | {budget[t['name']]} | {flags} |")
    for t in tools:
        title = t.get("annotations", {}).get("title", "")
        lines += [
            "",
            f"### `{t['name']}`",
            "",
            f"**{title}** ({hints(t)}; rate-limit budget: {budget[t['name']]})",
            "",
            " ".join(t.get("description", "").split()),
            "",
        ]
        if t["inputSchema"].get("properties"):
            lines += ["Arguments:", "", *argument_rows(t["inputSchema"]), ""]
        else:
            lines += ["Arguments: none.", ""]
        lines += ["Result (`structuredContent`; the same JSON as text in `content`):", ""]
        lines += result_rows(t["outputSchema"])
    lines += ["", "### Prompts", ""]
    for p in data["prompts"]:
        args = ", ".join(f"`{a['name']}`" for a in p.get("arguments", [])) or "none"
        lines.append(f"- `{p['name']}` (arguments: {args}): {cell(p.get('description', ''))}")
    lines += ["", "### Resources", ""]
    for r in data["resources"]:
        lines.append(f"- `{r['uri']}` ({r.get('mimeType', '')}): {cell(r.get('description', ''))}")
    for r in data["templates"]:
        lines.append(
            f"- template `{r['uriTemplate']}` ({r.get('mimeType', '')}):"
            f" {cell(r.get('description', ''))}"
        )
    lines += ["", END]
    return "\n".join(lines)


def update(text: str, block: str) -> str:
    """`text` with its generated block replaced by `block`."""
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start] + block + text[end:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH)
    parser.add_argument("--check", action="store_true", help="exit 1 and show a diff if stale")
    args = parser.parse_args(argv)
    text = args.path.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        print(f"{args.path}: the markers {BEGIN} and {END} are missing", file=sys.stderr)
        return 2
    from graphmem.settings.reference import sync_generated

    new = update(text, render(listing(), budgets()))
    return sync_generated(args.path, text, new, args.check, "python scripts/mcp_docs.py")


if __name__ == "__main__":
    sys.exit(main())
