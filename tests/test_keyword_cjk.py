"""Chinese in the keyword channel: single-character words match (unigrams beside bigrams),
function words do not, English tokens are what they were, and a store holding an older
tokenizer's tokens is rewritten before it is searched with the new ones."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.cli.doctor import check_keywords, diagnose
from graphmem.embedder import Embedder
from graphmem.text import TOKENIZER_VERSION, ZH_STOP_CHARS, _encode, query_terms, tokens
from graphmem.usecases.backfill import TOKENIZER_META, rebuild

TEA_Q, TEA = "我平时喝什么茶？", "我喜欢喝龙井茶。"
OTHERS = ["我住在北京。", "明天下午三点开会。", "我哥哥平时在上海工作。", "I like black coffee."]
KEYWORD_ONLY = "keyword=1"


def enc(*words: str) -> set[str]:
    return {_encode(w) for w in words}


def v1_tokens(text: str) -> list[str]:
    """Version 1 of `tokens` for CJK (bigrams only, the short stop list): what old stores hold."""
    from graphmem.text import CJK_STOP_CHARS, search_text

    out = []
    for run in re.findall("[\u4e00-\u9fff]+", text):
        if len(run) == 1:
            out += [] if run in CJK_STOP_CHARS else [_encode(run)]
            continue
        out += [
            _encode(a + b)
            for a, b in zip(run, run[1:], strict=False)
            if not (a in CJK_STOP_CHARS and b in CJK_STOP_CHARS)
        ]
    latin = re.sub("[\u4e00-\u9fff]+", " ", text)
    return out + search_text(latin).split()


def test_single_character_words_are_shared() -> None:
    q, m = set(tokens(TEA_Q)), set(tokens(TEA))
    assert q & m == enc("喝", "茶")
    assert enc("龙井", "喜欢") <= m  # bigrams are still there for two-character words


def test_function_words_are_not_tokens() -> None:
    toks = set(tokens("我们的这个什么了吗？你们都在哪里呢"))
    assert not toks & enc(*ZH_STOP_CHARS), "function characters are not unigrams"
    assert not toks & enc("什么", "我们", "这个", "哪里", "你们"), "nor function-word bigrams"
    assert set(tokens("我哥哥平时在上海工作")) & set(tokens(TEA_Q)) == set()  # 平时: no 平, 时
    assert enc("了解", "在线") <= set(tokens("了解在线"))  # one function character: a word
    assert set(tokens("的")) == set() and tokens("茶") == [_encode("茶")]


def test_tokens_stay_ascii_of_three_characters_or_more() -> None:
    for text in [TEA_Q, TEA, *OTHERS, "東京に行きました", "서울에 살아요", "a b I'm ok 茶x"]:
        for t in tokens(text):
            assert t.isascii() and len(t) >= 3 and " " not in t, (text, t)


def test_english_tokens_are_unchanged() -> None:
    assert tokens("Caroline went to the LGBTQ support group on 7 May 2023; it's great!") == [
        "carolin",
        "went",
        "lgbtq",
        "support",
        "group",
        "x7x",
        "may",
        "2023",
        "great",
    ]
    assert query_terms("What did Melanie paint recently?") == ["melani", "paint", "recent"]


def test_tea_question_matches_in_the_keyword_channel(tmp_path: Path, embedder: Embedder) -> None:
    svc = MemoryService(Settings(data_dir=tmp_path / "d"), embedder=embedder)
    try:
        svc.write_many("u", [{"content": c} for c in [*OTHERS, TEA]])
        hits = svc.search("u", TEA_Q, top_k=3, weights=KEYWORD_ONLY, expand_hops=0).hits
        assert hits and hits[0].memory.content == TEA
        assert hits[0].scores["keyword"] > 0
    finally:
        svc.close()


def test_an_old_token_store_is_rewritten_on_open(tmp_path: Path, embedder: Embedder) -> None:
    """A store written by version 1 (no version recorded, bigram-only tokens): doctor says so,
    opening the service rewrites the keyword column and statistics, and the tea question then
    matches in the keyword channel."""
    data = tmp_path / "d"
    svc = MemoryService(Settings(data_dir=data), embedder=embedder)
    svc.write_many("u", [{"content": c} for c in [*OTHERS, TEA]])
    assert svc.records.meta(TOKENIZER_META) == str(TOKENIZER_VERSION)
    svc.close()
    db = sqlite3.connect(data / "graphmem.sqlite3")
    for mid, content in db.execute("SELECT id, content FROM memories").fetchall():
        db.execute(
            "UPDATE memories SET search_text = ? WHERE id = ?", (" ".join(v1_tokens(content)), mid)
        )
    db.execute("DELETE FROM store_meta")  # an old store recorded nothing
    db.commit()
    db.close()
    from graphmem.stores import open_records

    records = open_records(Settings(data_dir=data))
    records.rebuild_keyword_stats()  # version 1's statistics
    found = records.get(
        "u", [i for i, _ in records.keyword_search(_query(), query_terms(TEA_Q), 5)]
    )
    assert TEA not in {m.content for m in found.values()}
    assert check_keywords(records)["ok"] is False
    assert "version 1" in check_keywords(records)["hint"]
    records.close()
    assert diagnose(Settings(data_dir=data))["ok"] is False

    svc = MemoryService(Settings(data_dir=data), embedder=embedder)
    try:
        assert svc.records.meta(TOKENIZER_META) == str(TOKENIZER_VERSION)
        hits = svc.search("u", TEA_Q, top_k=3, weights=KEYWORD_ONLY, expand_hops=0).hits
        assert hits and hits[0].memory.content == TEA
        stats = _df(data)
        svc.records.rebuild_keyword_stats()  # what a full recount says
        assert _df(data) == stats, "the statistics were kept in step with the rewrite"
    finally:
        svc.close()
    assert diagnose(Settings(data_dir=data))["ok"] is True


def test_rebuild_rewrites_keywords_too(tmp_path: Path, embedder: Embedder) -> None:
    svc = MemoryService(Settings(data_dir=tmp_path / "d"), embedder=embedder)
    try:
        svc.write_many("u", [{"content": c} for c in [*OTHERS, TEA]])
        svc.records.set_search_texts(
            [(m.user_id, m.id, " ".join(v1_tokens(m.content))) for _, m in svc.records.scan(0, 99)]
        )
        svc.records.set_meta(TOKENIZER_META, "1")
        rebuild(svc.context)
        assert svc.records.meta(TOKENIZER_META) == str(TOKENIZER_VERSION)
        hits = svc.search("u", TEA_Q, top_k=3, weights=KEYWORD_ONLY, expand_hops=0).hits
        assert hits and hits[0].memory.content == TEA
    finally:
        svc.close()


def _query():  # noqa: ANN202 - a RecordQuery for user "u"
    from graphmem.stores.records import RecordQuery

    return RecordQuery(user_id="u")


def _df(data: Path) -> list[tuple[str, str, int]]:
    db = sqlite3.connect(data / "graphmem.sqlite3")
    try:
        return sorted(db.execute("SELECT user_id, term, df FROM keyword_df WHERE df != 0"))
    finally:
        db.close()


@pytest.mark.parametrize("text", [TEA, TEA_Q, "龙井"])
def test_v1_tokens_spell_what_version_1_wrote(text: str) -> None:
    """v1_tokens is only useful if it spells what version 1 wrote: bigrams only."""
    assert all(len(t) == 9 for t in v1_tokens(text))
