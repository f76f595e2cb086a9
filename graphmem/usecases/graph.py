"""The memory graph as the user sees it: stating a relation, a memory's neighbourhood, and
its versions over time."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from graphmem.domain import associative
from graphmem.domain.model import Memory, check_user
from graphmem.domain.visibility import Viewer, only_visible, visible, within_hops
from graphmem.errors import InvalidInputError, NotFoundError
from graphmem.stores.graph import RELATION_TYPES
from graphmem.stores.records import GraphRows, Relation
from graphmem.usecases.ports import ChangePorts, GraphPorts
from graphmem.usecases.read import get


def relate(
    ctx: ChangePorts,
    user_id: str,
    source_id: str,
    target_id: str,
    relation_type: str = "related",
    strength: float = 1.0,
) -> Relation:
    """State a relation between two of the user's memories (kept, and re-weighted if it
    exists); it is projected to the graph like any other edge."""
    user_id = check_user(user_id)
    rtype = str(relation_type or "").strip().lower()
    if rtype not in RELATION_TYPES:
        raise InvalidInputError(
            "relation_type", f"{relation_type!r} is not one of {', '.join(RELATION_TYPES)}"
        )
    try:
        w = float(strength)
    except (TypeError, ValueError):
        raise InvalidInputError("strength", f"{strength!r} is not a number") from None
    if not 0.0 < w <= 1.0:
        raise InvalidInputError("strength", "must be in (0, 1]")
    if str(source_id) == str(target_id):
        raise InvalidInputError("target_id", "a memory cannot be related to itself")
    found = ctx.records.get(user_id, [str(source_id), str(target_id)])
    for mid in (source_id, target_id):
        if str(mid) not in found:
            raise NotFoundError(str(mid))
    rel = Relation(user_id, str(source_id), str(target_id), rtype, w)
    with ctx.serialised(user_id):
        ctx.records.save_graph(GraphRows(user_id, {}, [rel]), set_strength=True)
        ctx.projector.apply(ctx.records.outbox_for([rel.source_id, rel.target_id]))
        ctx.invalidate(user_id)  # last: a search cached before it was made is unreachable
        ctx.records.audit(
            user_id,
            "relate",
            [rel.source_id, rel.target_id],
            {"relation_type": rtype, "strength": w},
        )
    return rel


def neighbourhood(
    ctx: GraphPorts,
    user_id: str,
    memory_id: str,
    hops: int = 1,
    relation_types: str | list[str] | None = None,
    *,
    viewer: Viewer = Viewer.AGENT,
    max_nodes: int | None = None,
) -> dict[str, Any]:
    """A memory's neighbourhood in the graph: the memories within `hops` and their edges.

    Only what `viewer` may read is shown, and only what is reachable through it: a
    quarantined memory is neither a node nor a bridge to memories beyond it. With `max_nodes`
    the strongest-linked memories are kept (associative.neighbourhood) and `not_shown` says
    how many reached memories were left out."""
    user_id = check_user(user_id)
    hops = associative.check_hops(hops, "hops")
    rtypes = associative.parse_relation_types(relation_types)
    get(ctx, user_id, memory_id, viewer=viewer)
    ctx.maybe_drain()
    ids, edges, left_out = associative.neighbourhood(
        ctx.graph, user_id, str(memory_id), hops, rtypes, ctx.settings.graph.fanout, max_nodes
    )
    rows = only_visible(ctx.records.get(user_id, ids), viewer)
    edges = [e for e in edges if e.source_id in rows and e.target_id in rows]
    reached = set(within_hops(str(memory_id), edges, hops))
    rows = {i: m for i, m in rows.items() if i in reached}
    names = ctx.graph.entity_names(user_id, [i for i in ids if i in rows])
    return {
        "memory_id": str(memory_id),
        "hops": hops,
        "nodes": [
            {
                "id": i,
                "content": rows[i].content,
                "memory_type": rows[i].memory_type.value,
                "entities": names.get(i, []),
            }
            for i in ids
            if i in rows
        ],
        "edges": [
            {
                "from": e.source_id,
                "type": e.relation_type,
                "to": e.target_id,
                "strength": round(e.strength, 6),
                # an edge that no longer holds says since when and until when it did
                **(
                    {"valid_from": _epoch_iso(e.valid_from), "valid_to": _epoch_iso(e.valid_to)}
                    if e.valid_to is not None
                    else {}
                ),
            }
            for e in edges
            if e.source_id in rows and e.target_id in rows
        ],
        **({"not_shown": left_out} if left_out else {}),
    }


def history(
    ctx: GraphPorts, user_id: str, memory_id: str, *, viewer: Viewer = Viewer.AGENT
) -> list[Memory]:
    """Every version of a memory (what it superseded and what superseded it), oldest first;
    versions held in quarantine are left out unless an operator asks."""
    user_id = check_user(user_id)
    get(ctx, user_id, memory_id, viewer=viewer)
    return [m for m in ctx.temporal.versions(user_id, str(memory_id)) if visible(m, viewer)]


def _epoch_iso(value: float | None) -> str | None:
    return datetime.fromtimestamp(value, UTC).isoformat() if value is not None else None


__all__ = ["history", "neighbourhood", "relate"]
