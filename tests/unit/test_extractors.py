"""The default extractor on real models: spaCy's English model and jieba, offline."""

from __future__ import annotations

from typing import Any

import pytest

from graphmem.extractors import Entity, Mention, NullExtractor, RuleExtractor, make_extractor
from graphmem.extractors.normalize import Normalizer


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
    a, b = x.extract_many(
        [
            "I'm Zhang San, I do debt-risk analysis for Project Apollo at Acme Corp.",
            "Zhang San met Priya Raman in the Big Apple.",
        ]
    )
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
        (
            "Apollo slipped because Priya Raman left Acme.",
            "causal",
            {"priya raman", "acme"},
            {"apollo"},
        ),
        (
            "Priya Raman left Acme, so Apollo slipped.",
            "causal",
            {"priya raman", "acme"},
            {"apollo"},
        ),
        ("The Acme merger led to the Apollo delay.", "causal", {"acme"}, {"apollo"}),
        (
            "因为张三离开了华为公司，所以阿波罗项目延期了",
            "causal",
            {"张三", "华为公司"},
            {"阿波罗项目"},
        ),
        ("张三离职导致阿波罗项目延期", "causal", {"张三"}, {"阿波罗项目"}),
        ("After the Apollo review, I called Priya Raman.", "temporal", {"apollo"}, {"priya raman"}),
        ("I called Priya Raman before the Apollo review.", "temporal", {"priya raman"}, {"apollo"}),
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
        ("causal", True)
    ]
    assert x.extract("I think so too.").cues == []
    assert x.extract("").mentions == []


def test_null_extractor_and_factory() -> None:
    assert NullExtractor().extract_many(["Zhang San"])[0].mentions == []
    assert isinstance(make_extractor("rules"), RuleExtractor)
    with pytest.raises(ValueError):
        make_extractor("magic")


def _two_pass_mentions(doc: Any, norm: Normalizer) -> list[Mention]:
    """doc_mentions as first written (two walks over the tokens, the stemmer uncached): the
    reference the single-pass version must reproduce exactly."""
    import snowballstemmer

    from graphmem.extractors.english import _CALENDAR, LABELS, TOPIC_PREFIX, has_cjk
    from graphmem.extractors.normalize import clean_name

    stemmer = snowballstemmer.stemmer("english")
    out: list[Mention] = []
    covered: set[int] = set()
    for ent in doc.ents:
        etype = LABELS.get(ent.label_)
        if etype is None or has_cjk(ent.text):
            continue
        key = norm.key(ent.text)
        if key:
            out.append(
                Mention(Entity(key, clean_name(ent.text), etype), ent.start_char, ent.end_char)
            )
            covered.update(range(ent.start, ent.end))
    run: list[Any] = []
    for tok in [*doc, None]:
        if tok is not None and tok.pos_ == "PROPN" and tok.i not in covered and tok.is_alpha:
            run.append(tok)
            continue
        if run and not has_cjk(run[0].text) and (len(run) > 1 or len(run[0].text) > 2):
            text = doc.text[run[0].idx : run[-1].idx + len(run[-1].text)]
            key = norm.key(text)
            if key and key not in _CALENDAR:
                end = run[-1].idx + len(run[-1].text)
                out.append(Mention(Entity(key, clean_name(text), "thing"), run[0].idx, end))
        run = []
    for tok in doc:
        word = tok.text.lower()
        if (
            tok.pos_ == "NOUN"
            and tok.is_alpha
            and len(word) > 3
            and not tok.is_stop
            and word not in _CALENDAR
            and tok.i not in covered
        ):
            stem = TOPIC_PREFIX + stemmer.stemWord(word)
            out.append(Mention(Entity(stem, word, "topic"), tok.idx, tok.idx + len(tok.text)))
    return out


VARIED = [
    "Caroline went to the LGBTQ support group on 7 May 2023 and felt really accepted there.",
    "Zhang San moved to Beijing after he joined Huawei. Then he met Li Si at Tsinghua.",
    "I visited the Louvre in Paris with Marie-Claire; afterwards we ate at Chez Panisse.",
    "So I decided to quit my job at Google and start pottery classes on Mondays.",
    "NASA's Artemis program, led by Bill Nelson, plans a Moon landing before 2026.",
    "Melanie painted a sunrise over Lake Tahoe, and her kids loved the camping trip in July.",
    "mixed 中文 and English: Apple 公司 in 深圳 with Tim Cook",
    "我们下周去上海见华为公司的张三，讨论阿波罗项目的预算。",
    "ok",
    "",
    "2023-05-08",
    "The the the potteries, pottery and POTTERY!",
    "Dr. Jane Goodall Jr. spoke at the United Nations General Assembly in New York City.",
    "Somebody told me something about everyone: anything goes, nobody minds the weather.",
]


def test_single_pass_mentions_match_the_two_pass_reference() -> None:
    """The reference reads spaCy's own coarse tags (the attribute ruler's); extraction runs
    without that component and must still find exactly the same mentions."""
    import spacy

    from graphmem.extractors.english import MODEL_PACKAGE, english_mentions, load_model

    assert "attribute_ruler" not in load_model().pipe_names
    norm = Normalizer()
    full = spacy.load(MODEL_PACKAGE, exclude=["parser", "lemmatizer"])
    got = english_mentions(VARIED, norm)
    for doc, mentions in zip(full.pipe(VARIED), got, strict=True):
        assert mentions == _two_pass_mentions(doc, norm), doc.text
