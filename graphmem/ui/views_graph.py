"""The Graph and Timeline pages.

Graph: a memory's neighbourhood drawn as rings around it (one ring per hop), each node a link
that re-centres the picture on that memory, so the graph is explored a click at a time with
no script; edges carry their relation type and are drawn as thick as they are strong.
Timeline: memories and their versions over time, newest first and grouped by day, a version
that was replaced struck through.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from graphmem.domain.model import Memory
from graphmem.domain.requests import MemoryPage
from graphmem.ui.html import Html, esc, fmt, query, seg, table
from graphmem.ui.views_memories import memory_link

RING = 170
MARGIN = 110
# The most memories one picture draws: a hub memory's three hops reach about a thousand at
# 100k memories, which took seconds to read and lay out and could not be read once drawn; the
# strongest-linked are kept and the page says how many were left out.
MAX_NODES = 120
# A picture with more edges than this carries each edge's relation as a tooltip, not as text on
# the line: 300 labels over one another cannot be read, and laying them out was most of the
# browser's time on a 2-hop page at 100k memories (the Relations table below lists them all).
MAX_LABELLED_EDGES = 60


def _distances(center: str, edges: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Hops from the centre, over edges in either direction (breadth first)."""
    near: dict[str, set[str]] = {}
    for e in edges:
        near.setdefault(e["from"], set()).add(e["to"])
        near.setdefault(e["to"], set()).add(e["from"])
    dist = {center: 0}
    frontier = [center]
    while frontier:
        nxt = []
        for node in frontier:
            for other in sorted(near.get(node, ())):
                if other not in dist:
                    dist[other] = dist[node] + 1
                    nxt.append(other)
        frontier = nxt
    return dist


def _layout(
    center: str, ids: Sequence[str], dist: Mapping[str, int], size: float
) -> dict[str, tuple[float, float]]:
    """The centre in the middle, each hop on its own ring, spread evenly from the top."""
    rings: dict[int, list[str]] = {}
    for i in ids:
        rings.setdefault(dist.get(i, 1), []).append(i)
    mid = size / 2
    pos = {center: (mid, mid)}
    for d, members in sorted(rings.items()):
        if d == 0:
            continue
        for k, node in enumerate(sorted(members)):
            angle = -math.pi / 2 + 2 * math.pi * k / len(members) + (d - 1) * 0.5
            pos[node] = (mid + d * RING * math.cos(angle), mid + d * RING * math.sin(angle))
    return pos


def graph_svg(user: str, center: str, graph: Mapping[str, Any], hops: int) -> Html:
    nodes = {n["id"]: n for n in graph.get("nodes", [])}
    edges = [e for e in graph.get("edges", []) if e["from"] in nodes and e["to"] in nodes]
    dist = _distances(center, edges)
    size = 2 * (RING * max([1, *(d for i, d in dist.items() if i in nodes)]) + MARGIN)
    pos = _layout(center, list(nodes), dist, size)
    out = [
        f'<svg class="graph" id="graph" width="{size}" height="{size}"'
        f' viewBox="0 0 {size} {size}"'
        ' role="img" aria-label="the memory\'s neighbourhood">'
    ]
    labelled = len(edges) <= MAX_LABELLED_EDGES
    for e in edges:
        (x1, y1), (x2, y2) = pos[e["from"]], pos[e["to"]]
        width = 1 + 3 * float(e.get("strength", 0.5))
        label = f"{esc(e.get('type'))} {fmt(e.get('strength'), 2)}"
        line = (
            f'<line x1="{x1:.0f}" y1="{y1:.0f}" x2="{x2:.0f}" y2="{y2:.0f}" stroke="#8a9bb3"'
            f' stroke-width="{width:.1f}"'
        )
        if labelled:
            out.append(
                f"{line}/>"
                f'<text x="{(x1 + x2) / 2:.0f}" y="{(y1 + y2) / 2 - 4:.0f}" text-anchor="middle"'
                f' font-size="10" fill="#4a5568">{label}</text>'
            )
        else:
            out.append(f"{line}><title>{label}</title></line>")
    for mid, n in nodes.items():
        x, y = pos[mid]
        fill = "#34557f" if mid == center else "#dce8f7"
        label = str(n.get("content", mid))
        label = label if len(label) <= 30 else label[:29] + "…"
        href = f"/u/{seg(user)}/graph/{seg(mid)}{query({'hops': hops})}"
        out.append(
            f'<a href="{esc(href)}" class="node" id="node-{esc(mid)}">'
            f'<circle cx="{x:.0f}" cy="{y:.0f}" r="14" fill="{fill}" stroke="#22324a"/>'
            f'<text x="{x:.0f}" y="{y + 28:.0f}" text-anchor="middle" font-size="11">'
            f"{esc(label)}</text></a>"
        )
    out.append("</svg>")
    return "".join(out)


def graph_body(user: str, center: str, graph: Mapping[str, Any], hops: int) -> Html:
    nodes = {n["id"]: n for n in graph.get("nodes", [])}
    more = (
        f'<a href="/u/{seg(user)}/graph/{seg(center)}{query({"hops": hops + 1})}"'
        f' id="more-hops">show {hops + 1} hops</a>'
        if hops < 3
        else ""
    )
    fewer = (
        f'<a href="/u/{seg(user)}/graph/{seg(center)}{query({"hops": hops - 1})}"'
        f' id="fewer-hops">show {hops - 1} hop{"s" if hops > 2 else ""}</a>'
        if hops > 1
        else ""
    )
    head = (
        f"<p>{memory_link(user, center, str(nodes.get(center, {}).get('content', center)))}:"
        f" {len(nodes) - 1} memories within {hops} hop{'s' if hops != 1 else ''}."
        + (
            f" The most strongly linked are drawn; {graph['not_shown']} more reached were left"
            " out (centre on one of the outer memories to see beyond it)."
            if graph.get("not_shown")
            else ""
        )
        + f" Click a memory to centre on it. {' · '.join(x for x in (more, fewer) if x)}</p>"
    )
    rows = [
        (
            memory_link(user, e["from"], str(nodes.get(e["from"], {}).get("content", e["from"]))),
            esc(e.get("type")),
            fmt(e.get("strength")),
            memory_link(user, e["to"], str(nodes.get(e["to"], {}).get("content", e["to"]))),
        )
        for e in graph.get("edges", [])
    ]
    entities = [
        (
            memory_link(user, n["id"], str(n.get("content", n["id"]))),
            ", ".join(f'<span class="entity">{esc(x)}</span>' for x in n.get("entities") or []),
        )
        for n in nodes.values()
    ]
    return (
        head
        + graph_svg(user, center, graph, hops)
        + "<h2>Relations</h2>"
        + (
            _folded(
                table(("from", "relation", "strength", "to"), rows, "edges"), len(rows), "relations"
            )
            if rows
            else '<p class="muted">no relations</p>'
        )
        + "<h2>Entities</h2>"
        + _folded(table(("memory", "entities"), entities, "entities"), len(entities), "memories")
    )


def _folded(html: Html, count: int, what: str) -> Html:
    """A long table behind a disclosure: a closed <details> is not laid out, and a 2-hop page at
    100k memories lists about 300 relations of 120 memories, which the picture above shows."""
    if count <= MAX_LABELLED_EDGES:
        return html
    return f"<details><summary>all {count} {what}</summary>{html}</details>"


def timeline_body(user: str, result: MemoryPage, page_no: int, limit: int) -> Html:
    """Newest first, one heading per day; a replaced version struck through."""
    parts: list[str] = []
    day = ""
    for m in result.memories:
        d = m.created_at.strftime("%Y-%m-%d")
        if d != day:
            if day:
                parts.append("</ul>")
            parts.append(f'<h2 class="day">{esc(d)}</h2><ul class="timeline">')
            day = d
        parts.append(_entry(user, m))
    if day:
        parts.append("</ul>")
    else:
        parts.append('<p id="no-memories">no memories yet</p>')
    links = []
    if page_no > 1:
        links.append(f'<a href="/u/{seg(user)}/timeline" id="first-page">First page</a>')
    if result.next_cursor:
        nxt = {"cursor": result.next_cursor, "page": page_no + 1, "limit": limit}
        links.append(f'<a href="/u/{seg(user)}/timeline{query(nxt)}" id="next-page">Earlier</a>')
    return (
        f'<p class="count" id="page-info">page <b id="page-no">{page_no}</b></p>'
        + "".join(parts)
        + f'<p class="pager">{" · ".join(links)}</p>'
    )


def _entry(user: str, m: Memory) -> Html:
    text = memory_link(user, m)
    replaced = m.status.value == "superseded" or m.valid_to is not None
    if replaced:
        text = f"<del>{text}</del>"
    until = f" · valid until {esc(m.valid_to.strftime('%Y-%m-%d %H:%M'))}" if m.valid_to else ""
    return (
        f'<li class="{"replaced" if replaced else "current"}">'
        f'<span class="time">{esc(m.created_at.strftime("%H:%M:%S"))}</span>'
        f' <span class="tag">{esc(m.memory_type.value)}</span>'
        f' <span class="status {esc(m.status.value)}">{esc(m.status.value)}</span>{until}'
        f" {text}</li>"
    )


__all__ = ["graph_body", "timeline_body"]
