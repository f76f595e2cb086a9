"""The keyword channel ranks at least as well as a plain BM25 (bench/bm25_ref.py) over the same
memories: long dialogue-context queries keep the question they end with, and a memory that shares
only common words with the query is still a candidate when it is the best one there is."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.domain.text import query_terms
from graphmem.embedding import Embedder
from graphmem.stores.records import RecordQuery
from graphmem.stores.records.sqlite import SQLiteRecords
from tests.helpers.records import mem, put

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from bm25_ref import BM25Ref  # noqa: E402

ZH = [
    "我对芒果过敏，吃了嘴唇会肿。",
    "周末我常去西湖边骑自行车。",
    "我哥哥在深圳做硬件工程师。",
    "我家的猫叫咪咪。",
    "明年打算去云南旅游。",
    "今年体检血压有点偏高，医生让少吃盐。",
]
# the dialogue the agent is in (not among the memories): none of it is about the question
ZH_CONTEXT = [
    "上个月换了新手机，拍照很清楚，就是电池不太耐用。",
    "邻居养了一只金毛，经常在小区里遛，孩子们都喜欢它。",
    "公司楼下新开了一家兰州拉面馆，中午排队的人很多。",
    "我女儿下学期要上钢琴课，老师是音乐学院毕业的。",
]
ZH_QUESTION = "我对什么水果过敏？"

EN = [
    "Melanie: I signed up for a pottery class last week, my first bowl came out lopsided.",
    "Caroline: The adoption agency called back about the interview on Thursday.",
    "Melanie: We drove up to the lake with the kids and camped for two nights.",
    "Caroline: My counselling course starts in September, I am nervous about the exams.",
    "Melanie: The dog chewed through another garden hose this morning, so I went to the"
    " hardware store before breakfast and bought a metal one.",
    "Caroline: I found an old photo of my grandmother's kitchen in Sweden yesterday, with the"
    " copper kettle and the blue tiles she loved.",
    "Melanie: Work has been hectic, the quarterly report is due on Friday afternoon.",
    "Caroline: I painted a sunrise over the harbour for the charity auction downtown.",
]
EN_CONTEXT = EN[4:]
EN = EN[:4]
EN_QUESTION = "What did Melanie make in her pottery class?"


def _service(tmp_path: Path, embedder: Embedder) -> MemoryService:
    return MemoryService(Settings(data_dir=tmp_path / "d"), embedder=embedder)


def _reference_first(texts: list[str], query: str) -> str:
    ref = BM25Ref((str(i), t) for i, t in enumerate(texts))
    return texts[int(ref.search(query, 1)[0][0])]


@pytest.mark.parametrize(
    ("texts", "context", "question", "want"),
    [(ZH, ZH_CONTEXT, ZH_QUESTION, ZH[0]), (EN, EN_CONTEXT, EN_QUESTION, EN[0])],
    ids=["zh", "en"],
)
def test_a_dialogue_context_query_keeps_its_question(
    tmp_path: Path,
    embedder: Embedder,
    texts: list[str],
    context: list[str],
    question: str,
    want: str,
) -> None:
    """The question comes last, after a dialogue holding more distinct terms than the channel
    once kept (32, the first ones): the channel must rank the answer first, as plain BM25 does.
    The dialogue shares words with other memories, not with the answer."""
    query = "\n".join([*context, question])
    assert len(query_terms("\n".join(context))) > 32
    assert _reference_first(texts, query) == want
    svc = _service(tmp_path, embedder)
    try:
        svc.write_many("u", [{"content": t} for t in texts])
        hits = svc.search("u", query, top_k=3, weights="keyword=1", expand_hops=0).hits
        assert hits and hits[0].memory.content == want
    finally:
        svc.close()


def test_a_memory_sharing_only_common_terms_is_still_a_candidate(tmp_path: Path) -> None:
    """Among a few memories, a term in a third of them is not noise (its idf is near 1): the
    memory holding three such terms beats one holding a single rare term, in plain BM25 and in
    the channel, which once left it out of the candidates altogether."""
    texts = [
        "green tea leaves",
        "green apples",
        "green door",
        "tea party",
        "tea cups",
        "dry leaves",
        "leaves falling",
        "morning run",
        "evening walk",
    ]
    query = "green tea leaves morning"
    assert _reference_first(texts, query) == "green tea leaves"
    store = SQLiteRecords(tmp_path / "r.sqlite3")
    try:
        mems = put(store, *[mem("u", t) for t in texts])
        by_id = {m.id: m.content for m in mems}
        got = store.keyword_search(RecordQuery("u"), query_terms(query), 3)
        assert got and by_id[got[0][0]] == "green tea leaves"
    finally:
        store.close()


def test_one_shared_common_character_does_not_outrank_the_answer(
    tmp_path: Path, embedder: Embedder
) -> None:
    """Every memory shares a common character with the query (在, 家); short ones share
    nothing else. The memory that holds the question's words must still come first."""
    texts = [f"他在家{x}。" for x in "睡吃坐看写读"] + ["我在家里种了三盆绿萝和一棵发财树。"]
    query = "我在家里种了哪些绿植？"
    assert _reference_first(texts, query) == texts[-1]
    svc = _service(tmp_path, embedder)
    try:
        svc.write_many("u", [{"content": t} for t in texts])
        hits = svc.search("u", query, top_k=3, weights="keyword=1", expand_hops=0).hits
        assert hits and hits[0].memory.content == texts[-1]
    finally:
        svc.close()
