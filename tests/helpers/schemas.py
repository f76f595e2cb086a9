"""Checking the MCP tools' output schemas strictly and a result against its schema."""

from __future__ import annotations

import copy
from typing import Any

import jsonschema


def strict(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with `additionalProperties: false` wherever an object lists its properties
    and says nothing about others, so an undeclared key fails validation."""
    out = copy.deepcopy(schema)

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "properties" in node and "additionalProperties" not in node:
                node["additionalProperties"] = False
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(out)
    return out


def resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return resolve(schema, schema["$defs"][ref.split("/")[-1]])
    return node


def nulls_in_optional_keys(schema: dict[str, Any], node: dict[str, Any], data: Any) -> list[str]:
    """Paths of optional keys sent as null: those are left out instead."""
    node = resolve(schema, node)
    found: list[str] = []
    if isinstance(data, dict) and "properties" in node:
        required = set(node.get("required", ()))
        for key, value in data.items():
            sub = node["properties"].get(key)
            if value is None and key not in required:
                found.append(key)
            elif sub is not None:
                found += [f"{key}.{p}" for p in nulls_in_optional_keys(schema, sub, value)]
    elif isinstance(data, list):
        for item in data:
            for option in [node.get("items", {})] + node.get("anyOf", []):
                found += nulls_in_optional_keys(schema, option, item)
    for option in node.get("anyOf", []):
        if isinstance(data, dict):
            found += nulls_in_optional_keys(schema, option, data)
    return found


def check_schema_strictly(schema: dict[str, Any], tool: str, data: Any) -> None:
    """`data` matches `schema`, declares every key it sends and sends no optional null."""
    assert isinstance(data, dict), tool
    jsonschema.Draft202012Validator(strict(schema)).validate(data)
    assert nulls_in_optional_keys(schema, schema, data) == [], tool


def assert_typed(schema: dict[str, Any] | None, tool: str) -> None:
    """A real schema: an object with its properties named, not `{"type": "object"}` with
    anything allowed, and not a value wrapped under `result`."""
    assert schema is not None, f"{tool} has no outputSchema"
    assert schema.get("type") == "object" and schema.get("properties"), (tool, schema)
    assert schema.get("additionalProperties") is not True, tool
    assert "x-fastmcp-wrap-result" not in schema, tool
    assert schema.get("required"), f"{tool}: a result with no key always sent"
    jsonschema.Draft202012Validator.check_schema(schema)
