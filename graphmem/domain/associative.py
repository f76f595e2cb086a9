"""Associative recall: hybrid hits seed a k-hop expansion over typed, weighted edges.

A memory reached from seed s over edges e1..eh scores

    graph = relevance(s) * prod(factor(e_i)) * hop_decay ** (h - 1)
    factor(e) = type_weight(e) * strength(e), except where an edge is read for what it says:
      - a session-order edge followed forward from a seed that asks a question carries
        `reply_weight`: the next turn is where its answer is;
      - a `related` edge whose two memories share an entity the query does not name carries
        at least `bridge_weight`: the query reached one end through what it asked, and the
        shared entity is the bridge to what it did not ("my manager is Raj Patel" -> "Raj
        Patel leads the migration").

relevance(s) is (the seed's hybrid score / the best seed's) ** seed_sharpness. Above 1, as a
personalised PageRank restarts its walks at the best matches, expansion trusts the neighbours
of the few best seeds rather than those of every seed that made the list.

Reply weight 1 is the default (Settings.graph_reply_weight), chosen on LoCoMo's tuning split
(conv-26, conv-30, agent path) with sharpness 6; on the test split the two raised recall@5
0.582 -> 0.597 and recall@10 0.678 -> 0.688 (docs/benchmarks.md). That was with
all-MiniLM-L6-v2. With multilingual-e5-small, the default embedder since, sharpness 2 is the
default (Settings.graph_seed_sharpness): on the tuning split it raised recall@10 0.769 -> 0.793
and multi-hop recall@10 0.445 -> 0.457 over 6, and any value from 1.5 to 2.5 did about as well
(0.789-0.793), and the Chinese recall set's tune half did not change (hit@5 0.962).
Bridges stay off: with bridge 0.6 and graph_weight 0.5 as well the test split lost 1.1 points
of recall@10 and 1.7 of multi-hop (0.678 -> 0.667, 0.412 -> 0.395), though a bridged answer then
ranks beside its bridge (tests/service/test_multihop.py).

The best path wins and is returned with the hit. Each hop asks the graph store for the
neighbours of the current frontier *for this user*, so the walk cannot leave the user at any
hop. The expansion itself runs here, the same for every adapter, so networkx and Neo4j reach
the same memories.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from operator import attrgetter
from typing import Any

from graphmem.domain.model import Hit
from graphmem.domain.ranking import check_weight
from graphmem.domain.text import derived_cache, tokens
from graphmem.errors import InvalidInputError
from graphmem.stores.graph import RELATION_TYPES, GraphEdge, GraphStore


@dataclass(frozen=True)
class Step:
    source: str
    relation_type: str
    target: str
    strength: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "from": self.source,
            "type": self.relation_type,
            "to": self.target,
            "strength": round(self.strength, 6),
        }


@dataclass(slots=True)
class Reached:
    memory_id: str
    score: float
    seed: str
    edges: tuple[GraphEdge, ...]  # the path, seed first

    @property
    def path(self) -> list[Step]:
        """The path as steps; built on demand (a search reaches hundreds of memories and shows
        the paths of ten)."""
        return [Step(e.source_id, e.relation_type, e.target_id, e.strength) for e in self.edges]


@dataclass
class TracedHit(Hit):
    """A hit with the path that brought it: [] for a direct (vector/keyword) hit."""

    path: list[Step] = field(default_factory=list)
    # With `explain`: the channels before and after calibration, the fused contributions and
    # the walk (graphmem.usecases.search); None otherwise, and never cached.
    explain: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        d["path"] = [s.to_dict() for s in self.path]
        if self.explain is not None:
            d["explain"] = self.explain
        return d


BRIDGE_FROM = 0.05
"""Bridges are looked for only at memories whose path scores at least this: below it even a
full-weight bridge cannot lift a memory far, and reading entity names at every frontier memory
doubled the cost of an expansion."""


@dataclass(frozen=True)
class ExpansionConfig:
    hops: int = 2
    relation_types: tuple[str, ...] | None = None
    type_weights: Mapping[str, float] = field(default_factory=dict)
    hop_decay: float = 0.5
    per_node: int = 20
    max_nodes: int = 25
    at: float | None = None  # follow only edges valid then (epoch seconds); None: every edge
    seed_sharpness: float = 1.0
    reply_weight: float = 0.0  # 0: a question's next turn is an ordinary session neighbour
    bridge_weight: float = 0.0  # 0: a shared entity is not read as a bridge
    query_terms: frozenset[str] = frozenset()  # what the query names (graphmem.domain.text tokens)


def parse_relation_types(value: Any) -> tuple[str, ...] | None:
    """None / '' -> every type; 'causal,temporal' or a list -> those types."""
    if value is None or value == "" or value == []:
        return None
    items = value.split(",") if isinstance(value, str) else list(value)
    out = tuple(dict.fromkeys(str(v).strip().lower() for v in items if str(v).strip()))
    bad = [t for t in out if t not in RELATION_TYPES]
    if bad:
        raise InvalidInputError(
            "relation_types", f"{bad[0]!r} is not one of {', '.join(RELATION_TYPES)}"
        )
    return out or None


def check_hops(value: Any, field_name: str = "expand_hops", limit: int = 4) -> int:
    try:
        hops = int(value)
    except (TypeError, ValueError, OverflowError):  # OverflowError: int(float("inf"))
        raise InvalidInputError(field_name, f"{str(value)[:40]!r} is not an integer") from None
    if isinstance(value, bool) or not 0 <= hops <= limit:
        raise InvalidInputError(field_name, f"must be between 0 and {limit}")
    return hops


def split_graph_weight(weights: Any, channel: str = "graph") -> tuple[Any, float | None]:
    """Take a 'graph' entry (or another `channel` fused like it: 'image') out of per-call
    weights (dict, JSON or 'a=1,graph=0.5')."""
    if isinstance(weights, str) and weights.strip().startswith("{"):
        try:
            weights = json.loads(weights)
        except (ValueError, RecursionError):  # parse_weights reports it, naming the field
            return weights, None
    if isinstance(weights, Mapping) and channel in weights:
        others = {k: v for k, v in weights.items() if k != channel}
        return others or None, check_weight(channel, weights[channel], 1.0)
    if isinstance(weights, str) and f"{channel}=" in weights.replace(" ", ""):
        parts = [p for p in weights.split(",") if p.strip()]
        g = [p for p in parts if p.split("=", 1)[0].strip() == channel]
        rest = ",".join(p for p in parts if p not in g)
        return rest or None, check_weight(channel, g[-1].split("=", 1)[1], 1.0) if g else None
    return weights, None


def combine_graph(base: float, graph: float, weight: float) -> float:
    """The final score of a graph-reached hit: 1 - (1 - hybrid)(1 - weight * graph).

    It equals the hybrid score when graph is 0, never lowers a hit, and stays in [0, 1].
    """
    return 1.0 - (1.0 - base) * (1.0 - weight * graph)


SEED_MARGIN = 1e-9
"""A reached hit stays at least this far below its seed: equal scores are ordered by id, and a
tie would let a neighbour take its seed's place by chance."""


def capped_by_seed(before: float, walked: float, seed: float) -> float:
    """A reached hit's score after the walk: what the graph gave it, but not above the seed it
    was reached from (its own match score stays when that is higher already).

    The walk passes each seed's relevance relative to the best seed (seed_relevance), so a
    neighbour of the best seed gains the same whether that seed matched the query well or
    barely. Without the cap, on a weak best match (a paraphrased Chinese question, whose best
    keyword hit holds a small share of what the query could score) the neighbours of that
    hit outranked it, and the answer with it. A memory the graph reaches ranks beside its seed,
    which is what the walk is for (the reply after a question, the fact behind a bridge).

    Every memory the best seed reaches over a strong edge hits that cap, so the cap is not one
    score but a band one to two SEED_MARGINs below the seed, placed by the memory's own match
    (`before`): the reached memory that answers the query better on its own ranks first.
    With one score for all, they were ordered by memory id, which says nothing (LoCoMo tune:
    30 of 231 top-10 rankings reordered, recall and MRR unchanged; docs/benchmarks.md)."""
    own = min(1.0, max(0.0, before))
    return max(before, min(walked, seed - SEED_MARGIN * (2.0 - own)))


def seed_relevance(scores: Mapping[str, float], sharpness: float) -> dict[str, float]:
    """Each seed's score over the best seed's, raised to `sharpness` (1: proportional)."""
    top = max(scores.values(), default=0.0)
    if top <= 0:
        return {}
    return {m: (v / top) ** sharpness if v > 0 else 0.0 for m, v in scores.items()}


def expand(
    graph: GraphStore,
    user_id: str,
    seeds: Mapping[str, float],
    cfg: ExpansionConfig,
    asks: frozenset[str] = frozenset(),
) -> dict[str, Reached]:
    """Best-scoring path to every memory within cfg.hops of a seed (seeds reach each other).

    The hot loop of associative recall (about 600 edges, walked both ways, per search at
    100,000 memories): a path is kept as the tuple of edges it took and the memories on it as a
    tuple, so an improvement costs one tuple; Reached objects are built once per memory at
    the end, and its Steps only when a caller reads its path. Two hops from 10 seeds over a
    random graph of 20,000 memories and 340,000 edges, neighbour lookups included, alternating
    runs: 3.5-6.3 ms per expansion before, 2.2-3.2 ms after; same results on 30 random graphs.

    `seeds` are relevances in [0, 1] (seed_relevance); `asks` the seeds that ask a question,
    whose next session turn carries cfg.reply_weight. With cfg.bridge_weight, each hop reads
    the entity names of the memories on its `related` edges (one graph call per hop, bounded
    by per_node and max_nodes like the hop itself).
    """
    # memory -> (score, seed, edges taken, memories on the path including the seed)
    best: dict[str, tuple[float, str, tuple[GraphEdge, ...]]] = {}
    frontier: dict[str, tuple[float, str, tuple[GraphEdge, ...], tuple[str, ...]]] = {
        s: (w, s, (), (s,)) for s, w in seeds.items() if w > 0
    }
    weights = cfg.type_weights
    for hop in range(1, cfg.hops + 1):
        if not frontier:
            break
        edges = graph.neighbours(
            user_id, sorted(frontier), cfg.relation_types, cfg.per_node, at=cfg.at
        )
        edges.sort(key=_edge_key)
        bridges: set[tuple[str, str, str]] = set()
        if cfg.bridge_weight > 0:
            strong = {m for m, state in frontier.items() if state[0] >= BRIDGE_FROM}
            bridges = _bridges(graph, user_id, edges, strong, cfg.query_terms)
        decay = cfg.hop_decay if hop > 1 else 1.0
        nxt: dict[str, tuple[float, str, tuple[GraphEdge, ...], tuple[str, ...]]] = {}
        at_frontier, best_of, next_of = frontier.get, best.get, nxt.get
        for e in edges:
            strength = e.strength
            factor = weights.get(e.relation_type, 0.5) * (
                0.0 if strength < 0.0 else 1.0 if strength > 1.0 else strength
            )
            if bridges and factor < cfg.bridge_weight and _edge_key(e) in bridges:
                factor = cfg.bridge_weight
            src, dst = e.source_id, e.target_id
            reply = (
                cfg.reply_weight
                if hop == 1 and src in asks and e.relation_type == "temporal"
                else 0.0
            )
            if factor <= 0 and reply <= 0:
                continue  # no path through this edge scores above 0
            for here, there in ((src, dst), (dst, src)):
                state = at_frontier(here)
                if state is None:
                    continue
                score, seed, path, on_path = state
                if there in on_path:
                    continue  # no cycles back into the path
                # forward only: the turn after the question, not the one before it
                new = score * (max(factor, reply) if here == src else factor) * decay
                if new <= 0:
                    continue
                reached, queued = best_of(there), next_of(there)
                to_best = reached is None or new > reached[0] + 1e-12
                to_next = queued is None or new > queued[0] + 1e-12
                if not (to_best or to_next):
                    continue
                taken = (*path, e)
                if to_best:
                    best[there] = (new, seed, taken)
                if to_next:
                    nxt[there] = (new, seed, taken, (*on_path, there))
        ranked = sorted(nxt.items(), key=lambda kv: (-kv[1][0], kv[0]))[: cfg.max_nodes]
        frontier = dict(ranked)
    return {m: Reached(m, score, seed, taken) for m, (score, seed, taken) in best.items()}


def explain_walk(
    reached: Reached,
    seeds: Mapping[str, float],
    seed_channels: Mapping[str, list[str]],
    cfg: ExpansionConfig,
    asks: frozenset[str],
) -> dict[str, Any]:
    """Why the walk reached a memory: the seed it started from (its relevance and the channels
    that found it) and, per hop, the relation taken and what that hop carried."""
    steps: list[dict[str, Any]] = []
    here = reached.seed
    for hop, e in enumerate(reached.edges, start=1):
        forward = e.source_id == here
        there = e.target_id if forward else e.source_id
        weight = cfg.type_weights.get(e.relation_type, 0.5)
        carried = weight * min(1.0, max(0.0, e.strength))
        if hop == 1 and forward and here in asks and e.relation_type == "temporal":
            if cfg.reply_weight > carried:
                carried = cfg.reply_weight
                why = "the seed asks a question; the next turn of its session answers it"
            else:
                why = f"{e.relation_type} edge: type weight {weight:g} x strength"
        else:
            why = f"{e.relation_type} edge: type weight {weight:g} x strength"
        if e.relation_type == "related" and cfg.bridge_weight > carried:
            why += f" (at least the bridge weight {cfg.bridge_weight:g} when it shares an entity"
            why += " the query does not name)"
        steps.append(
            {
                "hop": hop,
                "from": here,
                "to": there,
                "type": e.relation_type,
                "direction": "forward" if forward else "backward",
                "strength": round(e.strength, 6),
                "carried": round(carried * (cfg.hop_decay if hop > 1 else 1.0), 6),
                "why": why + (f", times hop decay {cfg.hop_decay:g}" if hop > 1 else ""),
            }
        )
        here = there
    return {
        "seed": {
            "memory_id": reached.seed,
            "relevance": round(seeds.get(reached.seed, 0.0), 6),
            "channels": list(seed_channels.get(reached.seed, [])),
        },
        "steps": steps,
        "graph": round(reached.score, 6),
    }


_edge_key: Callable[[GraphEdge], tuple[str, str, str]] = attrgetter(
    "source_id", "target_id", "relation_type"
)
"""An edge's identity and the order the walk takes edges in (C-level: it sorts ~600 a search)."""


@derived_cache
@lru_cache(maxsize=65536)
def _words(name: str) -> frozenset[str]:
    """An entity name's keyword tokens; names recur across searches, stemming them is not free."""
    return frozenset(tokens(name))


def _bridges(
    graph: GraphStore,
    user_id: str,
    edges: list[GraphEdge],
    strong: set[str],
    query: frozenset[str],
) -> set[tuple[str, str, str]]:
    """The `related` edges at a `strong` memory whose two memories share an entity none of
    whose words the query has.

    An entity the query names already drew both memories by their own match; one it does not
    name is new information the first memory brings, and the second memory is about it.
    """
    related = [
        e
        for e in edges
        if e.relation_type == "related" and (e.source_id in strong or e.target_id in strong)
    ]
    if not related:
        return set()
    ids = sorted({m for e in related for m in (e.source_id, e.target_id)})
    names = {m: set(v) for m, v in graph.entity_names(user_id, ids).items()}

    def new_to_query(name: str) -> bool:
        words = _words(name)
        return bool(words) and words.isdisjoint(query)

    return {
        _edge_key(e)
        for e in related
        if any(
            new_to_query(n) for n in names.get(e.source_id, set()) & names.get(e.target_id, set())
        )
    }


def neighbourhood(
    graph: GraphStore,
    user_id: str,
    memory_id: str,
    hops: int,
    relation_types: tuple[str, ...] | None,
    per_node: int,
    max_nodes: int | None = None,
) -> tuple[list[str], list[GraphEdge], int]:
    """Memories within `hops` of one memory (breadth first), the edges between them, and how
    many memories reached were left out.

    `max_nodes` bounds the picture: three hops around a memory linked to hundreds of others
    reach about a thousand memories (seconds to read and draw at 100k, and unreadable), so
    once a hop brings more than there is room for, the ones joined by the strongest edge are
    kept and the walk goes no further. Without it every memory reached is returned."""
    seen = [memory_id]
    known = {memory_id}
    frontier = [memory_id]
    left_out = 0
    edges: dict[tuple[str, str, str], GraphEdge] = {}
    for _ in range(hops):
        found = graph.neighbours(user_id, frontier, relation_types, per_node)
        fresh: dict[str, float] = {}  # reached on this hop, in edge order, with its best edge
        for e in sorted(found, key=lambda e: (e.source_id, e.target_id, e.relation_type)):
            edges[(e.source_id, e.target_id, e.relation_type)] = e
            for m in (e.source_id, e.target_id):
                if m not in known:
                    fresh[m] = max(fresh.get(m, 0.0), e.strength)
        frontier = list(fresh)
        if max_nodes is not None and len(seen) + len(frontier) > max_nodes:
            room = max(0, max_nodes - len(seen))
            kept = set(sorted(frontier, key=lambda m: -fresh[m])[:room])  # stable: ties by order
            left_out = len(frontier) - len(kept)
            frontier = [m for m in frontier if m in kept]
            seen += frontier
            break
        seen += frontier
        known.update(frontier)
        if not frontier:
            break
    return seen, list(edges.values()), left_out
