"""The English keywords a Chinese question adds to the keyword channel (graphmem.domain.glossary),
and what they are for: a Chinese question finds the memory the user wrote in English.

multilingual-e5-small carries meaning across the two languages weakly in that direction (on the
Chinese set's tune half it put the English answer first for none of 13 such questions), and a
Chinese question shares no keyword with an English memory, so without the glossary neither
channel finds it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.domain import fusion
from graphmem.domain.glossary import english_terms, segment, table
from graphmem.domain.text import tokens
from graphmem.embedding import Embedder


@pytest.mark.parametrize(
    ("run", "words"),
    [
        # longest match from both ends; on a tie the backward reading: 外语 (a foreign language),
        # not 门外 (outside the door)
        ("我在学哪门外语", ["外语"]),
        ("食品经营许可证要在什么时候之前续办", ["食品", "经营", "许可证", "什么时候", "之前"]),
        ("外婆复查要带什么资料", ["外婆", "复查", "什么", "资料"]),
    ],
)
def test_a_chinese_run_is_cut_into_dictionary_words(run: str, words: list[str]) -> None:
    found = segment(run, table())
    assert [w for w in found if w in words] == words


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        ("我现在用什么电子书阅读器？", {"electronic", "book", "reader"}),
        ("我在学哪门外语？", {"foreign", "language"}),
        ("外婆复查要带什么资料？", {"grandmother", "material"}),
    ],
)
def test_a_chinese_question_gets_the_english_words_of_its_own_words(
    question: str, wanted: set[str]
) -> None:
    terms = english_terms(question)
    assert {t for w in wanted for t in tokens(w)} <= set(terms)


def test_question_words_add_nothing_and_english_text_gets_no_glossary() -> None:
    # 什么 ("what") glosses as "anything": a question word, not what the user asks about
    assert english_terms("什么") == []
    assert english_terms("what e-book reader do I use now?") == []
    assert len(english_terms("我们" + "外婆复查要带什么资料，" * 20)) <= 16


def test_the_fitted_fusion_has_the_across_features_and_old_files_still_parse() -> None:
    assert {"across", "across_rank"} <= set(fusion.FEATURES)
    old = {"models": {"m": {"zh": {"weights": {"vector": 0.5, "keyword": 0.5}}}}}
    model = fusion.parse(old)[("m", "zh")]
    assert model.weights["across"] == 0.0 and model.weights["across_rank"] == 0.0


@pytest.fixture
def store(tmp_path: Path, embedder: Embedder) -> Iterator[MemoryService]:
    svc = MemoryService(Settings(data_dir=tmp_path), embedder=embedder)
    for text in [
        "我的车是一辆特斯拉Model 3。",
        "我在上海一家外资咨询公司工作，做数据分析。",
        "周末我经常和同事去武康路拍照。",
        "我妈妈退休后喜欢跳舞。",
        "我每天早上喝一杯燕麦拿铁。",
        "女儿朵朵今年上小学二年级。",
        "Switched from the Kindle to a Boox e-reader last month; the Kindle went to my sister.",
        "My English name is Jessica; colleagues call me Jess.",
        "I'm learning Spanish on Duolingo, currently on a 120-day streak.",
        "My passport expires in March 2027, renew it before the Japan trip.",
        "Grandmother's check-up next week: bring her previous scan reports and insurance card.",
    ]:
        svc.write("u", text)
    yield svc
    svc.close()


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("我现在用什么电子书阅读器？", "Boox e-reader"),
        ("我的护照什么时候过期？", "passport expires"),
        ("外婆复查要带什么资料？", "scan reports"),
    ],
)
def test_a_chinese_question_finds_the_memory_written_in_english(
    store: MemoryService, question: str, answer: str
) -> None:
    hits = store.search("u", question, 3, track_access=False).hits
    assert any(answer in h.memory.content for h in hits), [h.memory.content for h in hits]


def test_explain_shows_the_english_words_match(store: MemoryService) -> None:
    from graphmem.domain.requests import SearchRequest

    req = SearchRequest(query="我的护照什么时候过期？", top_k=3, explain=True, track_access=False)
    hits = store.search_request("u", req).hits
    (hit,) = [h for h in hits if "passport" in h.memory.content]
    assert hit.explain is not None and hit.explain["fusion"].startswith("learned:")
    assert hit.explain["raw"]["across"] > 0 and hit.explain["ranks"]["across"] == 0
    assert hit.explain["contributions"]["across"] > 0
    english = store.search_request(
        "u", SearchRequest(query="when does my passport expire?", top_k=1, explain=True)
    ).hits[0]
    assert "across" not in english.explain["raw"]  # type: ignore[index]
