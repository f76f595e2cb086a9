"""Property test: no argument value crashes any MCP tool, and none leaves the stores drifted.

Every tool the server lists (none is named here) is called with arguments drawn from its own
input schema, mixed with arbitrary JSON, strings with control and zero-width characters, huge
integers, and NaN / Infinity. The calls go to the server object itself (`FastMCP.call_tool`,
middleware included) rather than through a client: a client serialises NaN to null, while a
raw JSON body with `NaN` reaches the server as a float, and that is what has to be survived.

Each call must either return a result or fail with a tool error whose text starts with the
field to fix; the masked "Error calling tool" means an unhandled exception and fails the test.
Afterwards `doctor` must find the records, vectors and graph in agreement.
"""

from __future__ import annotations

import asyncio
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import hypothesis
from fastmcp.exceptions import ToolError
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from graphmem import MemoryService, Settings
from graphmem.cli.doctor import diagnose
from graphmem.embedding import Embedder
from graphmem.guard import Guard, GuardSettings
from graphmem.mcp.server import create_server
from graphmem.stores import open_working

EXAMPLES_PER_TOOL = 25
ABSENT = object()
# "field: message", "field.sub[2]: message", "content['odd key']: message"
FIELD_PREFIX = re.compile(r"^([A-Za-z_]\w*)(?:[.\[][^:]*)?: \S")
# Fields an error may name besides the tool's arguments (and the unknown ones a call sent):
# the id a lookup did not find, the whole argument object (size limit), the rate budget, and
# the caller's role (an agent token asking for an operator's act).
SHARED_FIELDS = {"memory_id", "arguments", "rate_limit", "role"}


def often(usual: st.SearchStrategy[Any], rare: st.SearchStrategy[Any]) -> Any:
    """`usual` three times in four, `rare` otherwise."""
    return st.integers(0, 3).flatmap(lambda i: rare if i == 0 else usual)


CONTROL = st.characters(max_codepoint=0x1F)
INVISIBLE = st.sampled_from("\u200b\u200c\u200d\u2060\ufeff\u3164\u034f \t\n")
TEXT = st.text(st.one_of(CONTROL, INVISIBLE, st.characters(codec="utf-8")), max_size=40)
HOSTILE_NUMBERS = st.one_of(
    st.integers(),
    st.sampled_from([2**63, -(2**63) - 1, 10**400, 1e308, -1e308, 5e-324]),
    st.sampled_from([math.nan, math.inf, -math.inf]),
    st.floats(allow_nan=True, allow_infinity=True),
)
PLAUSIBLE = [
    "ERASE",
    "fact",
    "event",
    "user",
    "assistant",
    "causal",
    "24h",
    "3000y",
    "99999999999999999999y",
    "0001-01-01",
    "9999-12-31T23:59:59+14:00",
    "NaN",
    "Infinity",
    "-1e400",
    '{"score": NaN}',
    '{"a": [Infinity, 1e999]}',
    '{"task_context": "plan\\u0000"}',
    '["first", "second"]',
    "I moved to Lisbon in 2023 and my manager is Priya.",
    "\u200b\u200b",
    "x" * 9_000,
]
NUMBERS = st.one_of(st.integers(0, 5), st.floats(0, 1), HOSTILE_NUMBERS)
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, TEXT)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)


def typed(schema: dict[str, Any], defs: dict[str, Any], strings: st.SearchStrategy[str]) -> Any:
    """Values shaped like `schema` (so calls get past the schema into the tool body), each
    leaf drawn from the hostile pools above."""
    if "$ref" in schema:
        return typed(defs[schema["$ref"].rsplit("/", 1)[-1]], defs, strings)
    if "anyOf" in schema:
        return st.one_of([typed(s, defs, strings) for s in schema["anyOf"]])
    if "enum" in schema or "const" in schema:
        return st.sampled_from(schema.get("enum") or [schema["const"]])
    kind = schema.get("type")
    if kind == "string" and "pattern" in schema:  # e.g. time_range: valid form, any size
        return st.one_of(st.from_regex(schema["pattern"], fullmatch=True), strings)
    if kind == "string":
        return strings
    if kind in ("integer", "number"):
        return NUMBERS
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        return st.lists(typed(schema.get("items", {}), defs, strings), max_size=6)
    if kind == "object":
        props = schema.get("properties", {})
        if props:
            return st.fixed_dictionaries(
                {}, optional={k: typed(v, defs, strings) for k, v in props.items()}
            )
        return st.dictionaries(TEXT, JSON, max_size=4)
    return JSON


def arguments(tool: Any, strings: st.SearchStrategy[str]) -> st.SearchStrategy[dict[str, Any]]:
    """Mostly schema-shaped calls with hostile leaves (they reach the tool body, where the
    checks under test are); the rest swap whole arguments for arbitrary JSON or add unknown
    ones, which tests the schema and its error messages."""
    schema = tool.parameters
    defs = schema.get("$defs", {})
    props: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))

    def call(value: Callable[[dict[str, Any]], Any]) -> st.SearchStrategy[dict[str, Any]]:
        # Optional arguments are given three times in four: hypothesis' own `optional=` leaves
        # most of them out, and the checks under test sit behind them.
        drawn = st.fixed_dictionaries(
            {
                k: value(v) if k in required else often(value(v), st.just(ABSENT))
                for k, v in props.items()
            }
        )
        return drawn.map(lambda d: {k: v for k, v in d.items() if v is not ABSENT})

    shaped = call(lambda p: typed(p, defs, strings))
    wild = st.builds(
        lambda base, extra: {**base, **extra},
        call(lambda p: st.one_of(typed(p, defs, strings), JSON)),
        st.dictionaries(st.sampled_from(["user_id", "x"]), JSON, max_size=1),
    )
    return often(shaped, wild)


def outcome(server: Any, name: str, args: dict[str, Any]) -> str | None:
    """None for a result, else the tool error's text."""
    try:
        asyncio.run(server.call_tool(name, args))
    except ToolError as e:
        return str(e)
    return None


def check_call(server: Any, tool: Any, args: dict[str, Any]) -> None:
    error = outcome(server, tool.name, args)
    if error is None:
        return
    m = FIELD_PREFIX.match(error)
    assert m, f"{tool.name}({args!r:.300}) failed without naming a field: {error!r}"
    named = set(tool.parameters.get("properties", {})) | set(args) | SHARED_FIELDS
    assert m.group(1) in named, (
        f"{tool.name}: error names {m.group(1)!r}, not an argument: {error!r}"
    )


def fuzz_tool(server: Any, tool: Any, strings: st.SearchStrategy[str]) -> None:
    """Run EXAMPLES_PER_TOOL deterministic examples against one tool."""

    @hypothesis.settings(
        max_examples=EXAMPLES_PER_TOOL,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(args=arguments(tool, strings))
    def run(args: dict[str, Any]) -> None:
        check_call(server, tool, args)

    run()


def test_every_tool_survives_hostile_arguments_and_doctor_finds_no_drift(
    tmp_path: Path, embedder: Embedder
) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    # The firewall stays on; only the rate limiter is off, or the fuzz would test the budget.
    guard = Guard(GuardSettings(rate_limit_backend="off"))
    svc = MemoryService(settings, embedder=embedder, guard=guard)
    seeded = [
        svc.write("fuzz", "My manager is Priya and we ship Atlas in May.", "fact"),
        svc.write("fuzz", "I prefer window seats on long flights.", "preference"),
    ]
    # Real ids among the strings, so update/forget/relate/graph reach an existing memory.
    strings = st.one_of(st.sampled_from([*PLAUSIBLE, *(m.id for m in seeded)]), TEXT)
    server = create_server(svc, working=open_working("memory"), default_user="fuzz")
    tools = asyncio.run(server.list_tools())
    assert len(tools) >= 15  # the full tool set, read from the server

    try:
        for tool in tools:
            fuzz_tool(server, tool, strings)
        # Still serving, and nothing stored poisons a later read (a NaN kept in metadata made
        # every search that returned it fail).
        assert outcome(server, "memory_health", {}) is None
        for query in ("manager Priya", "window seats", "the", "x"):
            args = {"query": query, "top_k": 50, "include_history": True, "expand_hops": 2}
            assert outcome(server, "memory_search", args) is None, query
        assert outcome(server, "memory_quarantine_list", {"limit": 500}) is None
        svc.drain_outbox()
    finally:
        svc.close()
    report = diagnose(settings)
    assert report["drift"]["ok"], report["drift"]
    assert report["ok"], report
