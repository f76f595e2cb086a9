"""One user's relations prepared for the walk: ranked adjacency in flat arrays.

Reading a hop from the records costs two index range reads per frontier memory and a
`GraphEdge` per row (about 6 ms of a hybrid search at 100,000 memories, docs/benchmarks.md
"Issue 33"). Here the user's relations are read once, every memory's incident edges are
ranked once by `port.edge_order`, and a hop reads the head of each memory's ranked list:
the same `per_node` strongest edges the records adapter cuts, filtered by type and validity
before the cut exactly as its SQL does.

Layout (compressed sparse rows; an edge is a position in the edge arrays):

- `ids`: the user's memory ids on some edge, sorted, so a memory's index is also its rank
  in string order (edge_order compares ids as strings);
- `source`, `target` (int32 indices), `kind` (int8 index into `types`, sorted names),
  `strength` (float64, as stored), `valid_from`, `valid_to` (float64 epoch seconds, NaN when
  open);
- `start`, `slots`: memory i's incident edges are `slots[start[i]:start[i + 1]]`, ranked. A
  self-loop appears twice in its memory's list, as the records adapter counts it.

About 41 bytes per relation plus the ids: 70 MB for 1.7 million relations at 100,000
memories, against 3.5 GB for the networkx copy of the same graph.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from graphmem.stores.graph.port import GraphEdge

EDGE_OBJECTS = 65_536
"""GraphEdges kept for reuse per user (a walk reads ~800): made on demand, never all 1.7M."""

_NONE_I = np.zeros(0, dtype=np.int32)
_NONE_K = np.zeros(0, dtype=np.int8)

RelationRow = tuple[Any, ...]
"""(source, target, type, strength, valid_from, valid_to) as the records return them."""


class Adjacency:
    __slots__ = (
        "_edges",
        "_open",
        "ids",
        "index",
        "kind",
        "slots",
        "source",
        "start",
        "strength",
        "target",
        "types",
        "user_id",
        "valid_from",
        "valid_to",
    )

    def __init__(
        self, user_id: str, rows: Iterable[RelationRow], epoch: Callable[[Any], float | None]
    ) -> None:
        """Build from the user's relation rows; `epoch` turns a stored validity bound into
        epoch seconds the way the records adapter does (so `GraphEdge`s compare equal)."""
        self.user_id = user_id
        # Rows are read once and reduced as they come: each id is kept once (its first
        # string) and an edge is numbers in typed arrays, so a build never holds the 1.7
        # million row tuples (at 100,000 memories they took 0.9 GB that the allocator kept).
        seen: dict[str, int] = {}
        kinds: dict[str, int] = {}
        src, dst, kind = array("i"), array("i"), array("i")
        strengths, starts, ends = array("d"), array("d"), array("d")
        nan = math.nan
        for s, t, rt, w, vf, vt in rows:
            src.append(seen.setdefault(s, len(seen)))
            dst.append(seen.setdefault(t, len(seen)))
            kind.append(kinds.setdefault(rt, len(kinds)))
            strengths.append(float(w))
            a, b = epoch(vf), epoch(vt)
            starts.append(nan if a is None else a)
            ends.append(nan if b is None else b)
        # Index ids and types in sorted order, so that comparing indices compares strings.
        self.ids: list[str] = sorted(seen)
        self.index: dict[str, int] = {m: i for i, m in enumerate(self.ids)}
        rank = np.fromiter((self.index[m] for m in seen), np.int32, len(seen))
        self.types: list[str] = sorted(kinds)
        type_rank = np.asarray([self.types.index(t) for t in kinds], dtype=np.int8)
        del seen
        self.source = rank[np.frombuffer(src, dtype=np.int32)] if len(src) else _NONE_I
        self.target = rank[np.frombuffer(dst, dtype=np.int32)] if len(dst) else _NONE_I
        self.kind = type_rank[np.frombuffer(kind, dtype=np.int32)] if len(kind) else _NONE_K
        self.strength = np.array(strengths, dtype=np.float64)
        self.valid_from = np.array(starts, dtype=np.float64)
        self.valid_to = np.array(ends, dtype=np.float64)
        self._open = bool(np.isnan(self.valid_from).all() and np.isnan(self.valid_to).all())
        self._rank()
        self._edges: dict[int, GraphEdge] = {}

    def _rank(self) -> None:
        """Each memory's incident edges in edge_order: (-strength, the other end, type,
        source). Ids and types are indexed in sorted order, so comparing indices compares
        the strings."""
        n_edges = len(self.source)
        edge = np.arange(n_edges, dtype=np.int32)
        node = np.concatenate([self.source, self.target])  # the memory the entry belongs to
        other = np.concatenate([self.target, self.source])
        both = np.concatenate([edge, edge])
        order = np.lexsort(
            (
                self.source[both],
                self.kind[both],
                other,
                -self.strength[both],
                node,
            )
        )
        self.slots = both[order]
        counts = np.bincount(node, minlength=len(self.ids))
        self.start = np.zeros(len(self.ids) + 1, dtype=np.int64)
        np.cumsum(counts, out=self.start[1:])

    @property
    def edge_count(self) -> int:
        return len(self.source)

    def nbytes(self) -> int:
        """The arrays' bytes (ids and the index dict not counted): for the memory bound."""
        return sum(
            a.nbytes
            for a in (
                self.source,
                self.target,
                self.kind,
                self.strength,
                self.valid_from,
                self.valid_to,
                self.slots,
                self.start,
            )
        )

    def neighbours(
        self,
        memory_ids: list[str],
        relation_types: tuple[str, ...] | None,
        per_node: int,
        at: float | None = None,
    ) -> list[GraphEdge]:
        """port.GraphStore.neighbours over the prepared arrays: the strongest `per_node`
        incident edges of each memory (edge_order), type and validity filtered before the
        cut. An unknown memory has no edges."""
        if per_node <= 0 or (relation_types is not None and not relation_types):
            return []
        wanted: np.ndarray | None = None
        if relation_types is not None:
            codes = [i for i, t in enumerate(self.types) if t in relation_types]
            if not codes:
                return []
            if len(codes) < len(self.types):
                wanted = np.zeros(len(self.types), dtype=bool)
                wanted[codes] = True
        timed = at is not None and not self._open
        taken: dict[int, None] = {}
        index, start, slots = self.index, self.start, self.slots
        for mid in dict.fromkeys(memory_ids):
            i = index.get(mid)
            if i is None:
                continue
            lo, hi = int(start[i]), int(start[i + 1])
            if wanted is None and not timed:
                for e in slots[lo : min(hi, lo + per_node)].tolist():
                    taken[e] = None
                continue
            mine = slots[lo:hi]
            keep = np.ones(len(mine), dtype=bool)
            if wanted is not None:
                keep &= wanted[self.kind[mine]]
            if timed:
                vf, vt = self.valid_from[mine], self.valid_to[mine]
                keep &= (np.isnan(vf) | (vf <= at)) & (np.isnan(vt) | (vt > at))
            for e in mine[keep][:per_node].tolist():
                taken[e] = None
        return self.edges(list(taken))

    def edges(self, order: list[int]) -> list[GraphEdge]:
        """These edges as GraphEdges: made once per edge (reused by later walks), the missing
        ones read from the arrays in one gather per column (a numpy scalar read per field
        cost more than the rest of the hop)."""
        made = self._edges
        missing = [e for e in order if e not in made]
        if len(made) + len(missing) > EDGE_OBJECTS:
            made.clear()
            missing = order
        if missing:
            at = np.asarray(missing, dtype=np.int64)
            ids, types, user = self.ids, self.types, self.user_id
            # GraphEdge's frozen __init__ sets its seven fields one object.__setattr__ at a
            # time: a third of a hop's cost. Its fields go in as one dict instead; the
            # result is the same GraphEdge (tests/test_graph_adjacency compares them).
            new, setattr_ = object.__new__, object.__setattr__
            for e, s, t, k, w, vf, vt in zip(
                missing,
                self.source[at].tolist(),
                self.target[at].tolist(),
                self.kind[at].tolist(),
                self.strength[at].tolist(),
                self.valid_from[at].tolist(),
                self.valid_to[at].tolist(),
                strict=True,
            ):
                edge = new(GraphEdge)
                setattr_(
                    edge,
                    "__dict__",
                    {
                        "user_id": user,
                        "source_id": ids[s],
                        "target_id": ids[t],
                        "relation_type": types[k],
                        "strength": w,
                        "valid_from": None if vf != vf else vf,  # NaN: open
                        "valid_to": None if vt != vt else vt,
                    },
                )
                made[e] = edge
        return [made[e] for e in order]
