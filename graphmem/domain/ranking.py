"""How a candidate's channels become one score. The definitions here are the documented ones.

Every channel is in [0, 1] before weighting:
- vector: cosine similarity of query and memory embeddings, floored at 0.
- keyword: the candidate's BM25 score divided by the larger of the best BM25 score among this
  query's hits and REACH_SHARE of what the query could score on one of the user's memories
  (`keyword`).
- recency: 0.5 ** (age_days / half_life_days), age from the memory's created_at.
- frequency: log(1 + access_count) / log(1 + saturation), capped at 1.
The final score is the weighted sum with weights normalised to sum to 1, so it is in [0, 1] too;
on a query in a language the embedding model was not trained on, the vector weight is scaled by
OUT_OF_LANGUAGE first and the weights renormalised (`language_weights`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from graphmem.domain.model import CHANNELS, check_number
from graphmem.errors import InvalidInputError

REACH_SHARE = 0.25
"""The keyword channel is full (1.0) only for a hit scoring at least this share of the query's
reach (graphmem.stores.records.keyword.reach). Divided by the best hit alone, a query sharing a
single common character with one memory gave it the whole channel. Chosen on the tuning splits
(LoCoMo conv-26 + conv-30, the Chinese set's tune half): 0.25 and 0.5 rank alike there, 1.0
lost recall (a good answer rarely holds most of a question's terms)."""

OUT_OF_LANGUAGE = 0.05
"""The vector channel's weight is multiplied by this on a query in a language the embedding
model was not trained on (all-MiniLM-L6-v2 on Chinese): there its cosines all sit near 0.6,
the answer a few hundredths above the rest, and at its full weight that noise outranked the
keyword channel (Chinese tune half hit@5 0.785 hybrid vs 0.873 keyword alone). Kept above 0 so
it still breaks the keyword channel's ties. Chosen on the Chinese tune half (0, 0.05, 0.1, 0.15
tried; 0.05 best with and without dialogue context)."""

MAX_WEIGHT = 100.0
"""Each per-call channel weight must be in [0, MAX_WEIGHT]. Weights are normalised to sum to 1,
so only their ratios matter and 100:1 is already more than any real profile uses; an unbounded
weight such as 1e308 overflows the sum to infinity and turned every score into 0."""


def parse_weights(
    value: str | Mapping[str, Any] | None,
    profiles: Mapping[str, Mapping[str, float]],
    default: Mapping[str, float],
    profile: str | None = None,
) -> dict[str, float]:
    """Weights from a profile name, a dict, JSON, or 'vector=0.5,keyword=0.5'.

    Channels left out of an explicit dict are 0: a caller asking for keyword-only gets exactly
    that. Each weight is a finite number in [0, MAX_WEIGHT]; the result is normalised to sum
    to 1.
    """
    if profile:
        if profile not in profiles:
            raise InvalidInputError("profile", f"{profile!r} is not one of {', '.join(profiles)}")
        base: Mapping[str, Any] = profiles[profile]
    else:
        base = default
    if value is None or value == "" or value == {}:
        raw: Mapping[str, Any] = base
    elif isinstance(value, str):
        text = value.strip()
        if text in profiles:
            raw = profiles[text]
        elif text.startswith("{"):
            try:
                raw = json.loads(text)
            except json.JSONDecodeError as e:
                raise InvalidInputError("weights", f"is not valid JSON: {e.msg}") from None
            except (ValueError, RecursionError):
                raise InvalidInputError(
                    "weights", "is not an object of channel -> number"
                ) from None
        else:
            pairs: dict[str, str] = {}
            for part in text.split(","):
                name, sep, num = part.partition("=")
                if not sep:
                    raise InvalidInputError(
                        "weights", f"{part.strip()!r} is not channel=number (e.g. vector=0.7)"
                    )
                pairs[name.strip()] = num.strip()
            raw = pairs
    else:
        raw = value
    if not isinstance(raw, Mapping):
        raise InvalidInputError("weights", "must be an object of channel -> number")
    weights: dict[str, float] = {}
    for name, num in raw.items():
        if name not in CHANNELS:
            raise InvalidInputError(
                "weights", f"unknown channel {name!r}; use {', '.join(CHANNELS)}"
            )
        weights[name] = check_weight(name, num, MAX_WEIGHT)
    total = sum(weights.values())
    if total <= 0:
        raise InvalidInputError("weights", "at least one channel needs a weight above 0")
    return {c: weights.get(c, 0.0) / total for c in CHANNELS}


def check_weight(channel: str, value: Any, high: float) -> float:
    """One channel's weight, finite and in [0, high]; the error names the channel."""
    if isinstance(value, bool):
        raise InvalidInputError("weights", f"{channel}={value!r} is not a number")
    try:
        return check_number(value, "weights", 0.0, high)
    except InvalidInputError as e:
        raise InvalidInputError("weights", f"{channel}: {e.message}") from None


def above_floor(cosine: float, floor: float) -> float:
    """A cosine rescaled so that `floor`, what unrelated texts score under this model, is 0.

    Models differ in where their cosines sit: all-MiniLM-L6-v2 gives unrelated sentences about
    0 and paraphrases 0.6-0.8, multilingual-e5 about 0.8 and 0.9. Fused as they are, e5's
    vector channel would separate answers from noise by a few hundredths while the keyword
    channel (divided by its best hit) spans 0-1, so one shared character would outweigh the
    model's whole judgement."""
    if floor <= 0.0:
        return max(0.0, cosine)
    return max(0.0, (cosine - floor) / (1.0 - floor))


def keyword(bm25: float, best: float, reach: float) -> float:
    """A hit's BM25 calibrated to [0, 1]: over the best hit, unless the best hit itself holds
    less than REACH_SHARE of what the query could score (`reach`): then over that share. So a
    channel whose best match is one common character cannot fill its weight."""
    scale = max(best, REACH_SHARE * reach)
    return min(1.0, bm25 / scale) if scale > 0 and bm25 > 0 else 0.0


def language_weights(
    weights: Mapping[str, float], query_language: str, model_languages: frozenset[str] | None
) -> dict[str, float]:
    """`weights` with the vector weight scaled by OUT_OF_LANGUAGE when the embedding model was
    not trained on the query's language (`model_languages` None: a multilingual model, or one
    whose languages are not known, is trusted in every language). Renormalised to sum 1, as
    every weight set is: the graph walk adds to a hit's score as if its match could reach 1
    (graphmem.domain.associative.combine_graph), and a Chinese query's best hit scored at most 0.43
    let the walk outrank the keyword channel's answer."""
    if model_languages is None or query_language in model_languages:
        return dict(weights)
    scaled = {**weights, "vector": weights.get("vector", 0.0) * OUT_OF_LANGUAGE}
    total = sum(scaled.values())
    return {c: v / total for c, v in scaled.items()} if total > 0 else dict(weights)


def recency(created_at: datetime, now: datetime, half_life_days: float) -> float:
    age_days = max(0.0, (now - created_at).total_seconds() / 86400.0)
    return 0.5 ** (age_days / half_life_days) if half_life_days > 0 else 1.0


def frequency(access_count: int, saturation: int) -> float:
    if access_count <= 0:
        return 0.0
    return min(1.0, math.log1p(access_count) / math.log1p(max(1, saturation)))


def combine(channels: Mapping[str, float], weights: Mapping[str, float]) -> float:
    return sum(weights.get(c, 0.0) * channels.get(c, 0.0) for c in CHANNELS)
