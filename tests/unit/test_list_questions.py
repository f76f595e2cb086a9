"""List and aggregate questions are told from single-fact ones by their wording alone
(graphmem.domain.aggregate), in English and Chinese: the table is the contract recall's facet
fan-out (graphmem.usecases.fanout) relies on."""

from __future__ import annotations

import pytest

from graphmem.domain.aggregate import is_list_question, plural

LIST_QUESTIONS = [
    "What activities does Melanie partake in?",
    "Which books has Melanie read?",
    "Which cities has Jon visited?",
    "What are Melanie's hobbies?",
    "What are some changes Caroline has faced?",
    "all the places Jon went to",
    "List all the concerts I went to",
    "In what ways is Caroline participating in the community?",
    "How many times has Melanie gone to the beach?",
    "What has Melanie painted?",
    "Where has Melanie camped?",
    "What types of pottery have Melanie and her kids made?",
    "What do Jon and Gina both have in common?",
    "What instruments does Melanie play?",
    "她有哪些爱好？",
    "他都去过哪里？",
    "我们公司有哪些福利？",
    "晓芸去过几次北京？",
    "他平时都做什么运动？",
]

SINGLE_FACT_QUESTIONS = [
    "What book did Melanie read from Caroline's suggestion?",
    "What is Caroline's identity?",
    "What is Caroline's relationship status?",
    "Where did Caroline move from 4 years ago?",
    "When did Melanie go on a hike after the roadtrip?",
    "What does Jon's dance studio offer?",
    "Why did Gina decide to start her own clothing store?",
    "What did Caroline research?",
    "我的猫叫什么名字？",
    "晓芸在哪里工作？",
    "",
]


@pytest.mark.parametrize("question", LIST_QUESTIONS)
def test_list_questions_are_detected(question: str) -> None:
    assert is_list_question(question)


@pytest.mark.parametrize("question", SINGLE_FACT_QUESTIONS)
def test_single_fact_questions_are_not(question: str) -> None:
    assert not is_list_question(question)


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("books", True),
        ("cities", True),
        ("children", True),
        ("activities", True),
        ("status", False),
        ("business", False),
        ("Melanie's", False),
        ("book", False),
        ("is", False),
    ],
)
def test_plural_head_nouns(word: str, expected: bool) -> None:
    assert plural(word) is expected
