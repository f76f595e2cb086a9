from datetime import timedelta

import pytest

from graphmem.domain import ranking
from graphmem.domain.model import check_content, check_top_k, parse_memory_type, parse_time_range
from graphmem.domain.summary import MAX_SUMMARY, summarize
from graphmem.domain.text import query_terms, tokens
from graphmem.errors import InvalidInputError
from graphmem.settings import DEFAULT_PROFILES, DEFAULT_WEIGHTS


@pytest.mark.parametrize(
    ("text", "delta"),
    [
        ("24h", timedelta(hours=24)),
        ("7d", timedelta(days=7)),
        ("30d", timedelta(days=30)),
        ("15m", timedelta(minutes=15)),
        ("2w", timedelta(days=14)),
        (" 1Y ", timedelta(days=365)),
    ],
)
def test_time_range_parses(text: str, delta: timedelta) -> None:
    assert parse_time_range(text) == delta


@pytest.mark.parametrize("bad", ["7", "d7", "0d", "-1d", "7days", "3q", "1.5h"])
def test_time_range_rejects_with_field_name(bad: str) -> None:
    with pytest.raises(InvalidInputError) as e:
        parse_time_range(bad)
    assert e.value.field == "time_range"


def test_memory_type_and_top_k_and_content_validation() -> None:
    assert parse_memory_type(" Preference ").value == "preference"
    with pytest.raises(InvalidInputError, match="memory_type"):
        parse_memory_type("opinion")
    for bad in (0, -3, "x", 10_000):
        with pytest.raises(InvalidInputError, match="top_k"):
            check_top_k(bad)
    with pytest.raises(InvalidInputError, match="content: must not be empty"):
        check_content("   ", 100)
    with pytest.raises(InvalidInputError, match="limit is 10"):
        check_content("x" * 11, 10)


def test_weights_default_profiles_and_overrides() -> None:
    w = ranking.parse_weights(None, DEFAULT_PROFILES, DEFAULT_WEIGHTS)
    assert w == pytest.approx({"vector": 0.6, "keyword": 0.2, "recency": 0.1, "frequency": 0.1})
    assert ranking.parse_weights("vector=1,keyword=1", DEFAULT_PROFILES, DEFAULT_WEIGHTS) == {
        "vector": 0.5,
        "keyword": 0.5,
        "recency": 0.0,
        "frequency": 0.0,
    }
    assert (
        ranking.parse_weights('{"keyword": 2}', DEFAULT_PROFILES, DEFAULT_WEIGHTS)["keyword"] == 1
    )
    support = ranking.parse_weights(None, DEFAULT_PROFILES, DEFAULT_WEIGHTS, profile="support")
    assert support["recency"] > w["recency"]
    for bad in ("vector=abc", "speed=1", "vector", '{"vector": -1}', "vector=0", "{nope"):
        with pytest.raises(InvalidInputError, match="weights"):
            ranking.parse_weights(bad, DEFAULT_PROFILES, DEFAULT_WEIGHTS)
    with pytest.raises(InvalidInputError, match="profile"):
        ranking.parse_weights(None, DEFAULT_PROFILES, DEFAULT_WEIGHTS, profile="nope")


def test_channels_are_in_unit_interval() -> None:
    assert ranking.frequency(0, 50) == 0.0
    assert 0 < ranking.frequency(5, 50) < ranking.frequency(40, 50) < 1
    assert ranking.frequency(10_000, 50) == 1.0


def test_tokens_english_and_chinese_are_ascii_and_long_enough() -> None:
    en = tokens("I'm Zhang San, I do debt-risk analysis for the medical industry")
    assert "risk" in en and "debt" in en and "the" not in en
    zh = tokens("我叫张三，在做医疗行业的债务风险分析")
    assert all(t.isascii() and len(t) >= 3 for t in en + zh)
    # the shared bigram 风险 ("risk") is what lets the Chinese follow-up question match
    assert set(zh) & set(query_terms("我刚才说的那个项目你觉得风险点在哪"))


def test_summary_is_short_and_extractive() -> None:
    s = summarize("I'm Zhang San. I do debt-risk analysis for the medical industry.")
    assert s == "I'm Zhang San."
    long = summarize("word " * 40)
    assert len(long) <= MAX_SUMMARY and long.endswith("…")
