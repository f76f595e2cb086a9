"""The default extractor on real models: spaCy's English model and jieba, offline."""

from __future__ import annotations

import pytest

from extractors import NullExtractor, RuleExtractor, make_extractor
from extractors.normalize import Normalizer


@pytest.fixture(scope="module")
def x() -> RuleExtractor:
    return RuleExtractor(aliases={"Big Apple": "New York"})


def keys(ex) -> set[str]:
    return set(ex.keys)


def test_one_person_however_written() -> None:
    n = Normalizer()
    spellings = ["Zhang San", "zhang  san", "ZHANG-SAN", "Mr. Zhang San's", "San Zhang"]
    assert {n.key(s) for s in spellings} == {"san zhang"}
    assert n.key("Acme Corp.") == n.key("ACME Inc") == "acme"
    assert n.key("Project Apollo") == n.key("apollo") == "apollo"
    assert n.key("NYC") == n.key("New York City") == "new york"
    assert Normalizer({"Big Apple": "New York"}).key("the Big Apple") == "new york"


def test_english_entities_resolve_across_memories(x: RuleExtractor) -> None:
    a, b = x.extract_many([
        "I'm Zhang San, I do debt-risk analysis for Project Apollo at Acme Corp.",
        "Zhang San met Priya Raman in the Big Apple.",
    ])
    assert {"san zhang", "apollo", "acme"} <= keys(a)
    assert {"san zhang", "priya raman", "new york"} <= keys(b)
    zhang = [e for e in a.entities if e.key == "san zhang"][0]
    assert zhang.name == "Zhang San" and zhang.entity_type == "person"
    assert len([e for e in b.entities if e.key == "san zhang"]) == 1  # one entity per key


def test_chinese_entities_with_jieba_and_rules(x: RuleExtractor) -> None:
    (ex,) = x.extract_many(["我叫张三，在阿波罗项目做医疗行业的债务风险分析，去过华为公司"])
    assert {"张三", "阿波罗项目", "华为公司"} <= keys(ex)
    assert {e.key: e.entity_type for e in ex.entities}["张三"] == "person"


@pytest.mark.parametrize(
    ("text", "kind", "earlier", "later"),
    [
        ("Apollo slipped because Priya Raman left Acme.", "causal", {"priya raman", "acme"},
         {"apollo"}),
        ("Priya Raman left Acme, so Apollo slipped.", "causal", {"priya raman", "acme"},
         {"apollo"}),
        ("The Acme merger led to the Apollo delay.", "causal", {"acme"}, {"apollo"}),
        ("因为张三离开了华为公司，所以阿波罗项目延期了", "causal", {"张三", "华为公司"},
         {"阿波罗项目"}),
        ("张三离职导致阿波罗项目延期", "causal", {"张三"}, {"阿波罗项目"}),
        ("After the Apollo review, I called Priya Raman.", "temporal", {"apollo"},
         {"priya raman"}),
        ("I called Priya Raman before the Apollo review.", "temporal", {"priya raman"},
         {"apollo"}),
        ("I met Priya Raman, then we flew to Oslo.", "temporal", {"priya raman"}, {"oslo"}),
        ("见了张三之后去了北京", "temporal", {"张三"}, {"北京"}),
        ("去北京之前见了张三", "temporal", {"张三"}, {"北京"}),
    ],
)
def test_causal_and_temporal_cues_know_which_side_came_first(
    x: RuleExtractor, text: str, kind: str, earlier: set[str], later: set[str]
) -> None:
    cues = [c for c in x.extract(text).cues if c.kind == kind]
    assert any(earlier <= c.earlier and later <= c.later for c in cues), cues
    assert all(0 < c.strength <= 1 for c in cues)


def test_a_memory_opening_with_so_points_to_the_previous_one(x: RuleExtractor) -> None:
    (ex,) = x.extract_many(["So we had to hire a new engineer."])
    assert [(c.kind, c.to_previous) for c in ex.cues] == [("causal", True)]
    assert [(c.kind, c.to_previous) for c in x.extract("所以我们取消了旅行").cues] == [
        ("causal", True)]
    assert x.extract("I think so too.").cues == []
    assert x.extract("").mentions == []


def test_null_extractor_and_factory() -> None:
    assert NullExtractor().extract_many(["Zhang San"])[0].mentions == []
    assert isinstance(make_extractor("rules"), RuleExtractor)
    with pytest.raises(ValueError):
        make_extractor("magic")
