"""The cap on a reached memory's score (graphmem.domain.associative.capped_by_seed): below its seed,
and among memories capped at the same seed, in the order of their own match to the query."""

from __future__ import annotations

from graphmem.domain.associative import SEED_MARGIN, capped_by_seed


def test_memories_capped_at_one_seed_keep_the_order_of_their_own_match() -> None:
    seed = 0.64
    better, worse = capped_by_seed(0.55, 0.9, seed), capped_by_seed(0.44, 0.9, seed)
    assert seed > better > worse >= seed - 2 * SEED_MARGIN


def test_the_cap_never_reaches_the_seed_and_never_lowers_a_hit() -> None:
    assert capped_by_seed(0.59, 1.0, 0.6) <= 0.6 - SEED_MARGIN
    assert capped_by_seed(0.7, 0.8, 0.6) == 0.7  # its own match is above the seed already
    assert capped_by_seed(0.2, 0.3, 0.6) == 0.3  # the walk's score is below the cap
