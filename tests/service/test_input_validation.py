"""Bad input is refused with one error naming the field and the limit, before anything is
written: non-finite and unbounded numbers, control characters, invisible text, oversized or
too deeply nested metadata, overlong time ranges and endless import streams.

Every store is real (SQLite, Qdrant Edge, networkx); MCP tools are called in-process through
fastmcp's Client, the CLI through its main().
"""

from __future__ import annotations

import asyncio
import io
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client, FastMCP

from graphmem import MemoryService, Settings
from graphmem.cli import userdata as cli_module
from graphmem.domain.associative import check_hops
from graphmem.domain.model import MAX_METADATA_BYTES, check_metadata, parse_time_range
from graphmem.domain.ranking import MAX_WEIGHT
from graphmem.embedding import Embedder
from graphmem.errors import InvalidInputError
from graphmem.mcp.server import create_server
from graphmem.stores import open_working


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Iterator[MemoryService]:
    service = MemoryService(
        Settings(data_dir=tmp_path_factory.mktemp("validation") / "data"), embedder=embedder
    )
    service.write("val", "I drink green tea every morning", "preference")
    yield service
    service.close()


@pytest.fixture(scope="module")
def server(svc: MemoryService) -> FastMCP:
    return create_server(svc, working=open_working("memory"), default_user="val")


def call(server: FastMCP, tool: str, args: dict[str, Any]) -> Any:
    async def go() -> Any:
        async with Client(server) as c:
            return await c.call_tool(tool, args, raise_on_error=False)

    return asyncio.run(go())


def counts(svc: MemoryService, user: str = "val") -> tuple[int, int]:
    return svc.records.count(user), svc.vectors.count(user)


def refused(svc: MemoryService, field: str, **write: Any) -> str:
    """Write one memory that must be refused for `field`; nothing may reach any store."""
    before = counts(svc)
    fields = {"content": "The project is called Atlas", "memory_type": "fact", **write}
    with pytest.raises(InvalidInputError) as e:
        svc.write("val", fields.pop("content"), fields.pop("memory_type"), **fields)
    assert e.value.field == field, str(e.value)
    assert counts(svc) == before
    return str(e.value)


# ------------------------------------------------------------------ non-finite numbers (item 6)
@pytest.mark.parametrize(
    ("metadata", "field"),
    [
        ({"score": math.nan}, "metadata.score"),
        ({"score": math.inf}, "metadata.score"),
        ({"score": -math.inf}, "metadata.score"),
        ({"run": {"scores": [0.5, {"best": math.nan}]}}, "metadata.run.scores[1].best"),
        ('{"score": NaN}', "metadata.score"),  # JSON text with NaN, as some clients send it
        ('{"a": [Infinity]}', "metadata.a[0]"),
    ],
)
def test_non_finite_metadata_is_refused_naming_the_path(
    svc: MemoryService, metadata: Any, field: str
) -> None:
    message = refused(svc, field, metadata=metadata)
    assert "not a finite number" in message


def test_a_nan_sent_as_json_text_over_mcp_never_poisons_later_searches(
    server: FastMCP, svc: MemoryService
) -> None:
    before = counts(svc)
    res = call(
        server,
        "memory_write",
        {"content": "My exam score was high", "memory_type": "fact", "metadata": '{"score": NaN}'},
    )
    assert res.is_error and res.content[0].text.startswith("metadata.score:")
    assert counts(svc) == before
    res = call(server, "memory_search", {"query": "exam score"})
    assert not res.is_error, res.content[0].text


def test_update_refuses_non_finite_metadata_and_keeps_the_memory(svc: MemoryService) -> None:
    m = svc.write("val", "The budget for the Oslo trip is 3000 euros", "fact")
    with pytest.raises(InvalidInputError, match=r"^metadata\.budget: "):
        svc.update("val", m.id, metadata={"budget": math.inf})
    assert svc.get("val", m.id).metadata == {}


@pytest.mark.parametrize("weights", [{"vector": 1e308, "keyword": 1e308}, "vector=1e308"])
def test_weights_are_bounded_and_the_bound_is_in_the_error(
    svc: MemoryService, weights: Any
) -> None:
    with pytest.raises(InvalidInputError) as e:
        svc.search("val", "green tea", 3, weights=weights)
    assert e.value.field == "weights"
    assert e.value.message.startswith("vector: ") and f"[0, {MAX_WEIGHT:g}]" in e.value.message


@pytest.mark.parametrize("weights", ["vector=nan", '{"vector": NaN}', "vector=inf,graph=0.2"])
def test_non_finite_weights_are_refused(svc: MemoryService, weights: str) -> None:
    with pytest.raises(InvalidInputError, match=r"^weights: vector: .*not a finite number"):
        svc.search("val", "green tea", 3, weights=weights)


def test_large_but_bounded_weights_still_rank(svc: MemoryService) -> None:
    hits = svc.search("val", "green tea", 3, weights={"vector": 100, "keyword": 100}).hits
    assert hits and hits[0].score > 0


def test_infinite_expand_hops_is_a_validation_error_not_an_overflow(svc: MemoryService) -> None:
    with pytest.raises(InvalidInputError, match="^expand_hops: "):
        check_hops(math.inf)
    with pytest.raises(InvalidInputError, match="^expand_hops: "):
        svc.search("val", "green tea", 3, expand_hops=math.inf)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [10**19, -(10**19), 10**400])
def test_metadata_integers_must_fit_in_64_bits(svc: MemoryService, value: int) -> None:
    refused(svc, "metadata.n", metadata={"n": value})


# ------------------------------------------------------------------ metadata limits (item 6)
def test_metadata_limit_is_counted_in_bytes_of_json() -> None:
    assert MAX_METADATA_BYTES == 16_384
    euro = "€" * 6_000  # 6,000 characters but 18,000 bytes
    with pytest.raises(InvalidInputError) as e:
        check_metadata({"note": euro})
    assert e.value.field == "metadata" and "16384 bytes" in e.value.message
    assert check_metadata({"note": "€" * 5_000}) == {"note": "€" * 5_000}


def test_deeply_nested_metadata_is_refused_not_a_recursion_error(svc: MemoryService) -> None:
    deep: Any = "leaf"
    for _ in range(5_000):
        deep = [deep]
    message = refused(svc, "metadata.x" + "[0]" * 7, metadata={"x": deep})
    assert "limit of 8 levels" in message
    text = '{"x": ' + "[" * 8_000 + "]" * 8_000 + "}"  # under 16 KiB, too deep to parse
    assert "limit of 8 levels" in refused(svc, "metadata", metadata=text)


# ------------------------------------------------------------------ bad text (item 7)
@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("Meet Ana at noon\x00DROP", "U+0000"),
        ("ring the \x07bell", "U+0007"),
        ("escape \x1b[31mred", "U+001B"),
        ("\u200b\u200b", "no visible characters"),
        ("\ufeff \u2060\u200d\n\t", "no visible characters"),
        ("\u3164\u3164", "no visible characters"),
        ("broken \ud800 surrogate", "lone surrogate"),
    ],
)
def test_content_with_control_or_only_invisible_characters_is_refused(
    svc: MemoryService, content: str, needle: str
) -> None:
    assert needle in refused(svc, "content", content=content)


def test_tabs_newlines_and_visible_unicode_are_still_accepted(svc: MemoryService) -> None:
    m = svc.write("val", "Shopping:\n\t- oat milk\r\n\t- 绿茶 \u200b", "task")
    assert m.content.startswith("Shopping:\n\t- oat milk")


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"session_id": "s1\x00"}, "session_id"),
        ({"session_id": "\u200b"}, "session_id"),
        ({"summary": "short\x00"}, "summary"),
        ({"metadata": {"note": "a\x00b"}}, "metadata.note"),
        ({"metadata": {"bad\x01key": 1}}, "metadata['bad\\x01key']"),
    ],
)
def test_control_characters_in_other_text_fields_are_refused(
    svc: MemoryService, fields: dict[str, Any], field: str
) -> None:
    refused(svc, field, **fields)


def test_query_with_a_nul_byte_is_refused(svc: MemoryService) -> None:
    with pytest.raises(InvalidInputError, match="^query: contains the control character U"):
        svc.search("val", "green\x00tea", 3)


def test_working_memory_session_ids_follow_the_same_rule(server: FastMCP) -> None:
    res = call(server, "working_memory_get", {"session_id": "s\x00"})
    assert res.is_error and res.content[0].text.startswith("session_id: contains the control")


# ------------------------------------------------------------------ time ranges (item 7)
@pytest.mark.parametrize("value", ["3000y", "36501d", "99999999999999999999999y", "9" * 5000 + "m"])
def test_overlong_time_range_is_refused_with_the_limit(svc: MemoryService, value: str) -> None:
    with pytest.raises(InvalidInputError, match=r"^time_range: .*the limit is 36500 days"):
        svc.search("val", "green tea", 3, time_range=value)


def test_longest_time_range_still_searches(svc: MemoryService) -> None:
    assert parse_time_range("100y") is not None
    assert svc.search("val", "green tea", 3, time_range="100y").hits


def test_overlong_time_range_over_mcp_names_the_field(server: FastMCP) -> None:
    res = call(server, "memory_search", {"query": "tea", "time_range": "3000y"})
    assert res.is_error
    assert res.content[0].text.startswith("time_range: '3000y' is too long a range")


def test_overlong_time_range_in_the_cli_exits_2_with_one_line(cli: Any) -> None:
    code, out, err = cli("search", "tea", "--time-range", "3000y", "--user", "ann")
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith("error: time_range:") and "36500 days" in err


# ------------------------------------------------------------------ import (item 7)
def test_import_of_an_endless_line_stops_at_the_line_limit(cli: Any) -> None:
    code, out, err = cli("import", "/dev/zero", "--user", "imp")
    assert (code, out) == (2, "")
    limit = cli_module.MAX_IMPORT_LINE_BYTES
    assert err == f"error: line 1: is longer than the limit of {limit} bytes per line\n"
    assert json.loads(cli("stats", "--user", "imp", "--json")[1])["total"] == 0


def test_import_over_the_file_limit_writes_nothing(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = tmp_path / "many.jsonl"
    line = json.dumps({"content": "Flight to Oslo on May 3", "memory_type": "event"}) + "\n"
    src.write_text(line * 40, encoding="utf-8")
    monkeypatch.setattr(cli_module, "MAX_IMPORT_BYTES", 20 * len(line))  # not 128 MiB of test data
    code, _, err = cli("import", str(src), "--user", "imp")
    assert code == 2 and err.startswith("error: line 21: the file is larger than the import limit")
    assert json.loads(cli("stats", "--user", "imp", "--json")[1])["total"] == 0


def test_import_refuses_a_nul_in_any_line_before_writing(cli: Any, tmp_path: Path) -> None:
    src = tmp_path / "nul.jsonl"
    good = json.dumps({"content": "Flight to Oslo on May 3"})
    bad = json.dumps({"content": "fine", "session_id": "s\u0000"})
    src.write_text(good + "\n" + bad + "\n", encoding="utf-8")
    code, _, err = cli("import", str(src), "--user", "imp")
    assert code == 2 and err.startswith("error: line 2: session_id: contains the control")
    assert json.loads(cli("stats", "--user", "imp", "--json")[1])["total"] == 0


def test_observe_names_the_turn_that_holds_a_control_character(server: FastMCP) -> None:
    before = call(server, "memory_health", {}).structured_content["memories"]["total"]
    turns = ["I moved to Lisbon in 2023.", "Remember my locker code is \x1b[2J 4711"]
    res = call(server, "memory_observe", {"turns": turns})
    assert res.is_error and res.content[0].text.startswith("turns[1]: contains the control")
    assert call(server, "memory_health", {}).structured_content["memories"]["total"] == before


def test_observe_skips_a_turn_of_only_invisible_characters(server: FastMCP) -> None:
    res = call(server, "memory_observe", {"turns": ["Remember \u200b\u200b"], "dry_run": True})
    assert not res.is_error, res.content[0].text
    assert res.structured_content["decisions"][0]["action"] == "skip"


@pytest.mark.parametrize("field", ["created_at", "valid_from", "expires_at"])
@pytest.mark.parametrize("when", ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-12:00"])
def test_dates_outside_what_utc_can_hold_are_refused(
    svc: MemoryService, field: str, when: str
) -> None:
    assert "outside the years 1 to 9998" in refused(svc, field, **{field: when})


def test_as_of_outside_what_utc_can_hold_is_refused(svc: MemoryService) -> None:
    with pytest.raises(InvalidInputError, match="^as_of: .*outside the years"):
        svc.search("val", "green tea", 3, as_of="9999-12-31T23:59:59-12:00")


@pytest.mark.parametrize("threshold", ["abc", "nan", math.inf, 0, 1.5])
def test_forget_threshold_is_a_finite_number_in_range(svc: MemoryService, threshold: Any) -> None:
    with pytest.raises(InvalidInputError, match="^threshold: "):
        svc.forget_by_query("val", "green tea", threshold=threshold, dry_run=True)


class EndlessStdin(io.TextIOBase):
    """A stdin that never ends, like `graphmem add - < /dev/zero` (without the NULs)."""

    def read(self, size: int | None = -1) -> str:
        if size is None or size < 0:
            raise AssertionError("stdin read without a bound")
        return "a" * size


def test_add_from_stdin_reads_a_bounded_amount(cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", EndlessStdin())
    code, out, err = cli("add", "-", "--user", "ann")
    assert (code, out) == (2, "")
    assert err.startswith("error: content: is 1048577 characters; the limit is 8000")


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        ({"task_context": "plan the trip\x00"}, "content.task_context"),
        ({"add_turns": ["fine", "bad\x07"]}, "content.add_turns[1]"),
        ({"slots": {"names": {"manager": "Pri\x1bya"}}}, "content.slots.names.manager"),
        ({"slots": {"numbers": {"bud\x00get": 5}}}, "content.slots.numbers"),
    ],
)
def test_working_memory_text_follows_the_control_character_rule(
    server: FastMCP, patch: dict[str, Any], field: str
) -> None:
    res = call(server, "working_memory_set", {"session_id": "wm-ctl", "content": patch})
    assert res.is_error and res.content[0].text.startswith(f"{field}: contains the control")
    now = call(server, "working_memory_get", {"session_id": "wm-ctl"}).structured_content
    assert (now["task_context"], now["recent_turns"]) == ("", [])
    assert not any(now["slots"].values())
