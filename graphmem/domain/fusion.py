"""Learned fusion of the vector and keyword channels: what the default search ranks by.

Dividing a channel by the query's best hit (what ranking did before) lets a channel be full
whatever it found: a query that shares one character with every memory still gave its best
keyword match 1.0, and an English-only embedder's noise on a Chinese query still gave its best
cosine the whole vector weight. So hybrid could rank below its own best channel. Here each
channel is calibrated to what the query could reach, not to its best hit:

- vector: the cosine above the model's noise floor (ranking.above_floor), as before;
- keyword: a saturating transform of the raw BM25, bm25 / (bm25 + scale), with
  scale = keyword_scale * n ** keyword_length_power for a query of n distinct terms. A single
  shared term scores its idf (a few units) and stays far below 1; a hit that matches most of
  a question's terms approaches 1.

The calibrated channels, each channel's rank among this query's candidates (as 1 / (1 + rank /
RANK_SCALE), 0 where the channel did not find the memory) and their agreement (the geometric
mean of the two calibrated channels) are the features. Their weights are fitted per embedder
and per query language on the tuning splits only (bench/fit_fusion.py: a logistic regression
with non-negative weights over LoCoMo conv-26 + conv-30 and the Chinese set's tune half) and
shipped as data (graphmem/domain/fusion_weights.json, naming the split and the command). A hit's
match score is the weighted sum of its features with the weights normalised to sum 1, so it stays in
[0, 1] and keeps the logistic model's order.
"""

from __future__ import annotations

import json
import math
from bisect import bisect_left
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from graphmem.domain.ranking import above_floor
from graphmem.domain.text import query_terms

FEATURES = (
    "vector",
    "keyword",
    "vector_rank",
    "keyword_rank",
    "agreement",
    "across",
    "across_rank",
)
"""`across`, `across_rank`: the keyword channel's match in another script, the English words a
Chinese question translates to (graphmem.domain.glossary), calibrated like `keyword` over the number
of those words; 0 for every query the glossary adds nothing to (every English one)."""
RANK_SCALE = 10.0
"""A channel's rank r (0 = its best) becomes 1 / (1 + r / RANK_SCALE): its tenth hit is 0.5."""

CJK_SHARE = 0.3
"""A query is Chinese (zh) when at least this share of its letters are CJK characters: a name
like 王伟 in an English question does not make it Chinese, an English name in a Chinese one does
not make it English."""

WEIGHTS_FILE = "fusion_weights.json"


def _is_cjk(ch: str) -> bool:
    o = ord(ch)
    return (
        0x3040 <= o <= 0x30FF
        or 0x3400 <= o <= 0x4DBF
        or 0x4E00 <= o <= 0x9FFF
        or 0xF900 <= o <= 0xFAFF
        or 0xAC00 <= o <= 0xD7AF
    )


def language(query: str) -> str:
    """'zh' when CJK characters make up at least CJK_SHARE of the query's letters, else 'en'."""
    cjk = letters = 0
    for ch in query:
        if ch.isalpha():
            letters += 1
            cjk += _is_cjk(ch)
    return "zh" if letters and cjk >= CJK_SHARE * letters else "en"


@dataclass(frozen=True)
class FusionModel:
    """One embedder's and one language's fitted fusion: feature weights (normalised to sum 1)
    and the keyword calibration."""

    weights: Mapping[str, float]
    keyword_scale: float = 8.0
    keyword_length_power: float = 0.0
    name: str = "builtin"
    fitted_on: str = ""
    metrics: Mapping[str, Any] = field(default_factory=dict)
    across_scale: float | None = None
    """The keyword calibration's scale for `across` (keyword_scale when None)."""

    def keyword(self, bm25: float, terms: int, scale: float | None = None) -> float:
        """A raw BM25 calibrated to [0, 1): what the query could reach, not its best hit."""
        if bm25 <= 0:
            return 0.0
        base = self.keyword_scale if scale is None else scale
        return bm25 / (bm25 + base * max(1, terms) ** self.keyword_length_power)

    def across(self, bm25: float, terms: int) -> float:
        """A BM25 on a Chinese question's English words calibrated like `keyword`."""
        return self.keyword(bm25, terms, self.across_scale)

    def contributions(self, features: Mapping[str, float]) -> dict[str, float]:
        """Each feature's share of the match score (weight x value); they sum to the score."""
        return {f: self.weights.get(f, 0.0) * features.get(f, 0.0) for f in FEATURES}

    def score(self, features: Mapping[str, float]) -> float:
        return sum(self.contributions(features).values())


BUILTIN = FusionModel(
    {"vector": 0.5, "keyword": 0.3, "vector_rank": 0.1, "keyword_rank": 0.1, "agreement": 0.0}
)
"""Used for an embedder the weights file does not know: both channels calibrated, the vector
channel ahead as the default weights had it."""


def rank_feature(rank: int | None) -> float:
    return 0.0 if rank is None else 1.0 / (1.0 + rank / RANK_SCALE)


def ranks(scores: Mapping[str, float]) -> dict[str, int]:
    """Each memory's rank in one channel (0 = best; ties by id, as the results are ordered)."""
    ordered = sorted((kv for kv in scores.items() if kv[1] > 0), key=lambda kv: (-kv[1], kv[0]))
    return {mid: r for r, (mid, _) in enumerate(ordered)}


def features(
    vector: float,
    keyword: float,
    vector_rank: int | None,
    keyword_rank: int | None,
    across: float = 0.0,
    across_rank: int | None = None,
) -> dict[str, float]:
    """A candidate's features from its calibrated channels and its rank in each."""
    return {
        "vector": vector,
        "keyword": keyword,
        "vector_rank": rank_feature(vector_rank),
        "keyword_rank": rank_feature(keyword_rank),
        "agreement": math.sqrt(max(0.0, vector) * max(0.0, keyword)),
        "across": across,
        "across_rank": rank_feature(across_rank),
    }


def embedder_key(model_name: str) -> str:
    """'intfloat/multilingual-e5-small' and 'multilingual-e5-small' name the same weights."""
    return model_name.rsplit("/", 1)[-1].lower()


def _model(entry: Mapping[str, Any]) -> FusionModel:
    raw = entry["weights"]
    total = sum(max(0.0, float(raw.get(f, 0.0))) for f in FEATURES)
    if total <= 0:
        return BUILTIN
    return FusionModel(
        {f: max(0.0, float(raw.get(f, 0.0))) / total for f in FEATURES},
        float(entry.get("keyword_scale", BUILTIN.keyword_scale)),
        float(entry.get("keyword_length_power", 0.0)),
        str(entry.get("name", "fitted")),
        str(entry.get("fitted_on", "")),
        dict(entry.get("metrics", {})),
        float(entry["across_scale"]) if "across_scale" in entry else None,
    )


def parse(data: Mapping[str, Any]) -> dict[tuple[str, str], FusionModel]:
    """The weights file's models, by (embedder key, language)."""
    out: dict[tuple[str, str], FusionModel] = {}
    for emb, langs in data.get("models", {}).items():
        for lang, entry in langs.items():
            out[(embedder_key(emb), lang)] = _model({"fitted_on": data.get("fitted_on"), **entry})
    return out


@lru_cache(maxsize=1)
def models() -> dict[tuple[str, str], FusionModel]:
    """The shipped fitted models; none (the builtin fusion) when the file is absent."""
    try:
        text = resources.files("graphmem.domain").joinpath(WEIGHTS_FILE).read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    return parse(json.loads(text))


def model_for(model_name: str, lang: str) -> FusionModel:
    """The fitted model for this embedder and query language; the other language's when only
    that one was fitted, the builtin when the embedder was never fitted."""
    fitted = models()
    key = embedder_key(model_name)
    return fitted.get((key, lang)) or fitted.get((key, "en")) or fitted.get((key, "zh")) or BUILTIN


def weighs_across(model_name: str, query: str) -> bool:
    """Whether the fitted fusion for this embedder and query gives the glossary's features any
    weight: only then is a query's translation worth looking up (graphmem.domain.glossary)."""
    weights = model_for(model_name, language(query)).weights
    return weights.get("across", 0.0) + weights.get("across_rank", 0.0) > 0


class QueryFusion:
    """One query's fusion: its language's model, and the channels' candidates in rank order
    (so a memory reached later, over the graph, is ranked against the same candidates)."""

    def __init__(
        self,
        model: FusionModel,
        terms: int,
        floor: float,
        cosines: Iterable[float],
        bm25s: Iterable[float],
        weights: Mapping[str, float] | None = None,
        lang: str = "en",
    ) -> None:
        self.model, self.terms, self.floor, self.language = model, terms, floor, lang
        self._vector = sorted(-v for v in cosines)
        self._keyword = sorted(-v for v in bm25s if v > 0)
        # recency and frequency keep their configured share; the rest is the fitted match
        self.recency = (weights or {}).get("recency", 0.0)
        self.frequency = (weights or {}).get("frequency", 0.0)
        self.best = 1.0
        self._across: list[float] = []
        self.across_terms = 0

    def across(self, bm25s: Mapping[str, float], terms: int) -> QueryFusion:
        """The candidates' BM25 on the English words of a Chinese question (features
        `across`, `across_rank`); none for any other query."""
        self._across = sorted(-v for v in bm25s.values() if v > 0)
        self.across_terms = terms
        return self

    def anchored(self, candidates: Iterable[tuple[float, float, float]]) -> QueryFusion:
        """Match scores over the best candidate's (cosine, BM25 pairs): the fit ranks, and a
        fitted keyword scale can leave every match near 0.1, where the graph walk, which adds
        to a hit as if its match could reach 1 (graphmem.domain.associative.combine_graph), lifted
        every neighbour of the best seed above the answers ranked below it. Anchored, the best
        match scores 1 whatever the fitted scale; the order of the candidates is unchanged."""
        top = max((self._raw(c, b, x)[0] for c, b, x in candidates), default=0.0)
        self.best = top if top > 0 else 1.0
        return self

    @classmethod
    def for_query(
        cls,
        model_name: str,
        query: str,
        vector: Mapping[str, float],
        keyword: Mapping[str, float],
        floor: float,
        weights: Mapping[str, float],
    ) -> QueryFusion:
        """The fitted model for this embedder and the query's language."""
        lang = language(query)
        return cls(
            model_for(model_name, lang),
            len(query_terms(query)),
            floor,
            vector.values(),
            keyword.values(),
            weights,
            lang,
        )

    def _raw(self, cosine: float, bm25: float, across: float) -> tuple[float, dict[str, Any]]:
        """The unanchored match, and how it was made."""
        v = above_floor(cosine, self.floor)
        k = self.model.keyword(bm25, self.terms)
        x = self.model.across(across, self.across_terms)
        ranks = {
            "vector": bisect_left(self._vector, -cosine) if v > 0 else None,
            "keyword": bisect_left(self._keyword, -bm25) if k > 0 else None,
            "across": bisect_left(self._across, -across) if x > 0 else None,
        }
        feats = features(v, k, ranks["vector"], ranks["keyword"], x, ranks["across"])
        parts = self.model.contributions(feats)
        return sum(parts.values()), {
            "raw": {"vector": cosine, "keyword": bm25, "across": across},
            "calibrated": {"vector": v, "keyword": k, "across": x},
            "ranks": ranks,
            "features": feats,
            "contributions": parts,
        }

    def match(
        self, cosine: float, bm25: float, across: float = 0.0
    ) -> tuple[float, dict[str, Any]]:
        """The fused match score of one candidate, and how it was made (explain)."""
        raw, why = self._raw(cosine, bm25, across)
        share = (1.0 - self.recency - self.frequency) / self.best
        why["contributions"] = {f: share * c for f, c in why["contributions"].items()}
        if not self.across_terms:  # the query has no English words to find: nothing to show
            for part in ("raw", "calibrated", "ranks"):
                why[part].pop("across")
        return share * raw, {
            "fusion": f"learned:{self.model.name}",
            "language": self.language,
            **why,
        }

    def combine(self, match: float, channels: Mapping[str, float]) -> float:
        return (
            match
            + self.recency * channels.get("recency", 0.0)
            + self.frequency * channels.get("frequency", 0.0)
        )
