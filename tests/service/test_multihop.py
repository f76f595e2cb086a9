"""Multi-hop recall through the real service: an answer that the query reaches only through a
bridge memory must rank beside the bridge, not below every memory that merely shares a word
with the query.

"What project is my manager in charge of?" matches "My manager at Northwind is Raj Patel." by
what it asks about, and the answer, "Raj Patel is leading the migration ...", only through the
entity the bridge introduces. Without reading a shared entity that the query does not name
as a bridge (graph_bridge_weight 0, the default), the answer ranks behind memories sharing
"manager" or "project" with the query; with graph_bridge_weight and graph_weight raised
(BRIDGING) it ranks right below the bridge.

With two bridges ("... Raj Patel" -> "Raj Patel runs the Atlas group" -> "The Atlas group is
rewriting ...") the answer is 6th before and after: the second hop is halved by hop_decay, and
when the first bridge is not the best seed its relevance is sharpened away. The test is kept,
as an expected failure, so the gap stays visible.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.embedding import Embedder

DISTRACTORS = [
    "I had lunch with my sister at the new ramen place downtown.",
    "My manager asked everyone to be on time for the standup.",
    "Our team at Northwind moved to the third floor.",
    "The weather has been rainy all week.",
    "I started a side project to learn the guitar.",
    "My sister's husband works as a nurse in Denver.",
    "Tom Lee from Acme is in charge of the onboarding revamp.",
]
EVERYDAY = [
    "My colleague Ana is organizing the holiday party.",
    "The office coffee machine broke again.",
    "I renewed my gym membership for another year.",
]
BRIDGE = "My manager at Northwind is Raj Patel."


# Sharpened seeds and reply hops are the defaults; bridges are opt-in: on, they lowered LoCoMo
# test-split recall (graphmem.domain.associative).
BRIDGING = {  # settings.graph
    "seed_sharpness": 6.0,
    "reply_weight": 1.0,
    "bridge_weight": 0.6,
    "weight": 0.5,
}


@pytest.fixture
def svc(tmp_path: Path, embedder: Embedder) -> Iterator[MemoryService]:
    service = MemoryService(Settings(data_dir=tmp_path / "data", graph=BRIDGING), embedder=embedder)
    yield service
    service.close()


def rank_of(svc: MemoryService, user: str, query: str, content: str, **kw: object) -> int:
    hits = svc.search(user, query, top_k=10, track_access=False, **kw).hits  # type: ignore[arg-type]
    return next((i + 1 for i, h in enumerate(hits) if h.memory.content == content), 99)


def test_the_answer_behind_a_bridge_ranks_beside_it(svc: MemoryService) -> None:
    answer = "Raj Patel is leading the migration of the billing system to Kubernetes."
    for text in [BRIDGE, *DISTRACTORS[:4], answer, *DISTRACTORS[4:]]:
        svc.write("alice", text)
    query = "What project is my manager in charge of?"

    # multilingual-e5-small puts "I started a side project" and "Tom Lee ... is in charge of"
    # beside the bridge (all-MiniLM-L6-v2 put the bridge first): the three score within 0.005 of
    # each other, and their order differs between CPUs (ONNX Runtime's float kernels for
    # AVX-512 and AVX2 round differently, 7-bit weights or not). The answer, which only the walk
    # brings (below 6th without it), comes right after the bridge or after the one near-tie
    # below it.
    bridge = rank_of(svc, "alice", query, BRIDGE)
    assert bridge <= 3
    assert bridge < rank_of(svc, "alice", query, answer) <= bridge + 2
    assert rank_of(svc, "alice", query, answer, expand_hops=0) > 6  # the graph brought it


@pytest.mark.xfail(
    strict=True,
    reason="two bridges: the second hop carries hop_decay and the first bridge is not always"
    " the best seed, so the answer stays 6th; open (see the module docstring)",
)
def test_an_answer_two_bridges_away_reaches_the_top_five(svc: MemoryService) -> None:
    second = "Raj Patel runs the Atlas group."
    answer = "The Atlas group is rewriting the payments dashboard in Rust."
    for text in [BRIDGE, *DISTRACTORS[:3], second, *DISTRACTORS[3:], *EVERYDAY, answer]:
        svc.write("bob", text)
    query = "What is my manager's team building?"

    assert rank_of(svc, "bob", query, answer) <= 5
    assert rank_of(svc, "bob", query, answer, expand_hops=1) > 5  # one hop does not reach it
