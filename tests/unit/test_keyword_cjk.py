"""Chinese in the keyword channel: single-character words match (unigrams beside bigrams),
function words are tokens too (each user's idf weighs them), English tokens are what they were,
and a store holding an older tokenizer's tokens is rewritten before it is searched with the new
ones."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.cli.doctor import check_keywords, diagnose
from graphmem.domain.text import TOKENIZER_VERSION, _encode, query_terms, tokens
from graphmem.embedding import Embedder
from graphmem.usecases.backfill import TOKENIZER_META, rebuild

TEA_Q, TEA = "我平时喝什么茶？", "我喜欢喝龙井茶。"
OTHERS = ["我住在北京。", "明天下午三点开会。", "我哥哥平时在上海工作。", "I like black coffee."]
KEYWORD_ONLY = "keyword=1"


def enc(*words: str) -> set[str]:
    return {_encode(w) for w in words}


def v1_tokens(text: str) -> list[str]:
    """Version 1 of `tokens` for CJK (bigrams only, the short stop list): what old stores hold."""
    from graphmem.domain.text import CJK_STOP_CHARS, search_text

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
    assert q & m == enc("我", "喝", "茶")
    assert enc("龙井", "喜欢") <= m  # bigrams are still there for two-character words


# Version 2's stop lists, as it dropped them: what a store written by it holds.
V2_STOP_CHARS = frozenset(
    "的了是在我你他她它们这那就都也和与及或而吗呢吧啊呀么您咱俺自己其之此该各每某些个什谁哪怎几多"
    "嘛啦哦哈嗯呃哎噢哇着过得地被把给让从向对于以为由自到往跟同并且但却则即若如因所将已曾"
    "很太更最挺还又再才只仅会能要可应该不没"
)
V2_STOP_WORDS = frozenset(
    """什么 怎么 怎样 为什么 哪里 哪儿 哪个 那个 这个 这些 那些 一个 一些 我们 你们 他们 她们
    它们 咱们 自己 可以 因为 所以 但是 如果 就是 还是 或者 而且 然后 已经 没有 不是 一下 一点
    有点 有些 这样 那样 这么 那么 其实 比较 非常 一直 时候 平时 通常 一般 经常 常常 总是
    有时 往往 大概 可能 应该 需要 然后 现在 刚才""".split()
)


def v2_tokens(text: str) -> list[str]:
    """Version 2 of `tokens` for Chinese (unigrams and bigrams less the stop lists)."""
    out: list[str] = []
    for run in re.findall("[\u4e00-\u9fff]+", text):
        pairs = [run[i : i + 2] for i in range(len(run) - 1)]
        covered = {j for i, p in enumerate(pairs) if p in V2_STOP_WORDS for j in (i, i + 1)}
        for i, a in enumerate(run):
            if i not in covered and a not in V2_STOP_CHARS:
                out.append(_encode(a))
            if (
                i < len(pairs)
                and pairs[i] not in V2_STOP_WORDS
                and not (a in V2_STOP_CHARS and pairs[i][1] in V2_STOP_CHARS)
            ):
                out.append(_encode(pairs[i]))
    return out


LATEST_Q = "装修期间我现在住在哪里？"
LATEST = ["装修期间我暂时住在我姐家。", "我从我姐家搬出来了，现在在公司附近短租了一套公寓。"]


def test_function_words_are_tokens() -> None:
    """What version 2 dropped as function words: 现在 (now) is all a latest-value question
    shares with the update it asks for, beyond what it shares with the value replaced."""
    toks = set(tokens("我们的这个什么了吗？你们都在哪里呢"))
    assert enc("我", "的", "什么", "我们", "哪里") <= toks
    assert enc("现在") <= set(tokens(LATEST_Q)) & set(tokens(LATEST[1]))
    assert not set(v2_tokens(LATEST_Q)) & set(v2_tokens(LATEST[1]))
    assert tokens("的") == [_encode("的")] and tokens("茶") == [_encode("茶")]


def test_a_version_2_store_is_rewritten_and_finds_the_update(
    tmp_path: Path, embedder: Embedder
) -> None:
    """A store written by version 2 (stop lists dropped at indexing) holds no token the update
    shares with the question; opened by this version it is re-tokenised, and the keyword
    channel finds the update."""
    data = tmp_path / "d"
    svc = MemoryService(Settings(data_dir=data), embedder=embedder)
    svc.write_many("u", [{"content": c} for c in [*OTHERS, *LATEST]])
    svc.records.set_search_texts(
        [(m.user_id, m.id, " ".join(v2_tokens(m.content))) for _, m in svc.records.scan(0, 99)]
    )
    svc.records.set_meta(TOKENIZER_META, "2")
    svc.close()
    records = __import__("graphmem.stores", fromlist=["open_records"]).open_records(
        Settings(data_dir=data)
    )
    found = records.get(
        "u", [i for i, _ in records.keyword_search(_query(), query_terms(LATEST_Q), 5)]
    )
    assert LATEST[1] not in {m.content for m in found.values()}, "version 2 finds no update"
    records.close()

    svc = MemoryService(Settings(data_dir=data), embedder=embedder)
    try:
        assert svc.records.meta(TOKENIZER_META) == str(TOKENIZER_VERSION)
        hits = svc.search("u", LATEST_Q, top_k=3, weights=KEYWORD_ONLY, expand_hops=0).hits
        assert LATEST[1] in {h.memory.content for h in hits}
        stats = _df(data)
        svc.records.rebuild_keyword_stats()
        assert _df(data) == stats, "the statistics were kept in step with the rewrite"
    finally:
        svc.close()


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
    """喝 and 茶 match. Among these five memories 平时 (usually) is as rare as 喝, so plain BM25
    ranks "我哥哥平时在上海工作。" first and the tea memory second; the keyword channel ranks as
    plain BM25 does (version 2's stop list put the tea memory first here, and ranked below plain
    BM25 on the Chinese recall set's tune half)."""
    svc = MemoryService(Settings(data_dir=tmp_path / "d"), embedder=embedder)
    try:
        svc.write_many("u", [{"content": c} for c in [*OTHERS, TEA]])
        hits = svc.search("u", TEA_Q, top_k=3, weights=KEYWORD_ONLY, expand_hops=0).hits
        ranked = [h.memory.content for h in hits]
        assert TEA in ranked[:2]
        assert hits[ranked.index(TEA)].scores["keyword"] > 0
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
        assert TEA in [h.memory.content for h in hits[:2]]  # beside 平时's memory, as BM25 ranks
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
        assert TEA in [h.memory.content for h in hits[:2]]  # beside 平时's memory, as BM25 ranks
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
