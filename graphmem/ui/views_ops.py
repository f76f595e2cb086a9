"""The Search, Quarantine and Health pages.

Search shows why each hit came back: every channel's contribution to its score (the
service's `explain`), and the graph path that reached it, drawn as a small graph. Quarantine
lists what the firewall held and why; only an operator gets the buttons. Health gives the
figures of `memory_health` and `doctor` that the service can tell without closing its stores.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from graphmem.domain.associative import TracedHit
from graphmem.domain.model import MemoryType
from graphmem.domain.requests import Hit, SearchResult
from graphmem.ui.html import Html, csrf_field, esc, fmt, pairs, preview, seg, select, table
from graphmem.ui.sessions import Session
from graphmem.ui.views_memories import memory_link
from graphmem.usecases.review import HeldMemory

CHANNELS = ("vector", "keyword", "recency", "frequency")
TYPES = tuple(t.value for t in MemoryType)


def search_form(user: str, session: Session, given: Mapping[str, str]) -> Html:
    """A POST form: the query is memory-like text, so it never goes into a URL (or a log)."""
    hops = given.get("expand_hops", "")
    return (
        f'<form method="post" action="/u/{seg(user)}/search" class="search" id="search-form">'
        f"{csrf_field(session)}"
        '<label for="f-query">query</label>'
        f'<input type="text" name="query" id="f-query" size="60" value="{esc(given.get("query"))}"'
        " autofocus>"
        '<label for="f-top_k">hits</label>'
        f'<input type="number" name="top_k" id="f-top_k" min="1" max="50"'
        f' value="{esc(given.get("top_k") or 10)}">'
        '<label for="f-memory_type">type</label>'
        f"{select('memory_type', TYPES, given.get('memory_type'))}"
        '<label for="f-as_of">as of (ISO date)</label>'
        f'<input type="text" name="as_of" id="f-as_of" size="12" value="{esc(given.get("as_of"))}">'
        '<label for="f-expand_hops">graph hops</label>'
        f'<input type="number" name="expand_hops" id="f-expand_hops" min="0" max="3"'
        f' value="{esc(hops)}" placeholder="2">'
        '<button type="submit" id="search-button">Search</button></form>'
    )


def _contributions(hit: Hit) -> Html:
    """Each channel's share of the score, from `explain` when the service gave it."""
    explain = (hit.explain if isinstance(hit, TracedHit) else None) or {}
    parts: dict[str, float] = dict(explain.get("contributions") or {})
    walk = explain.get("walk") or {}
    if "added" in walk:
        parts["graph"] = float(walk["added"])
    image = explain.get("image") or {}  # the image channel (graphmem.usecases.image_search)
    if "added" in image:
        parts["image"] = float(image["added"])
    for extra in ("subject",):
        if extra in hit.scores and extra not in parts:
            parts[f"{extra} (boost)"] = float(hit.scores[extra])
    rows = [
        (
            esc(name),
            f'<meter min="0" max="1" value="{max(0.0, min(1.0, value)):.4f}"></meter>',
            fmt(value, 4),
            fmt(hit.scores.get(name.split(" ")[0]), 4),
        )
        for name, value in parts.items()
    ]
    return table(("channel", "", "contribution", "channel score"), rows, "channels")


def _path_svg(steps: Sequence[Mapping[str, Any]], labels: Mapping[str, str]) -> Html:
    """The path as a left-to-right chain of memory nodes joined by labelled edges; drawn on
    the server (plain SVG attributes), so no script is needed to see it."""
    ids: list[str] = []
    for s in steps:
        for key in ("from", "to"):
            if s[key] not in ids:
                ids.append(s[key])
    gap, r, h, margin = 240, 16, 110, 120
    width = gap * (len(ids) - 1) + 2 * margin
    pos = {mid: margin + gap * i for i, mid in enumerate(ids)}
    parts = [
        f'<svg class="path-graph" width="{width}" height="{h}" viewBox="0 0 {width} {h}"'
        ' role="img" aria-label="graph path">'
    ]
    for s in steps:
        x1, x2 = pos[s["from"]], pos[s["to"]]
        lo, hi = sorted((x1, x2))
        parts.append(
            f'<line x1="{lo + r}" y1="40" x2="{hi - r}" y2="40" stroke="#6b7a90"'
            f' stroke-width="{1 + 3 * float(s.get("strength", 0.5)):.1f}"/>'
        )
        parts.append(
            f'<text x="{(lo + hi) / 2:.0f}" y="30" text-anchor="middle" font-size="11">'
            f"{esc(s.get('type'))} {float(s.get('strength', 0)):.2f}"
            f"{' →' if x2 > x1 else ' ←'}</text>"
        )
    for mid in ids:
        x = pos[mid]
        label = labels.get(mid, mid[:8])
        parts.append(
            f'<circle cx="{x}" cy="40" r="{r}" fill="#dce8f7" stroke="#34557f"/>'
            f'<text x="{x}" y="80" text-anchor="middle" font-size="11">'
            f"{esc(label if len(label) <= 36 else label[:35] + '…')}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _path(user: str, hit: Hit, labels: Mapping[str, str]) -> Html:
    steps = [s.to_dict() for s in hit.path] if isinstance(hit, TracedHit) else []
    explain = (hit.explain if isinstance(hit, TracedHit) else None) or {}
    seed = (explain.get("walk") or {}).get("seed") or {}
    if not steps:
        return '<p class="muted">a direct hit: found by its own channels, not by the graph</p>'
    items = "".join(
        f"<li>{memory_link(user, s['from'], labels.get(s['from']))} —{esc(s['type'])}"
        f" ({float(s['strength']):.2f})→ {memory_link(user, s['to'], labels.get(s['to']))}</li>"
        for s in steps
    )
    why = ""
    if seed:
        chans = ", ".join(seed.get("channels") or [])
        why = (
            f"<p>seed {memory_link(user, seed['memory_id'], labels.get(seed['memory_id']))},"
            f" relevance {fmt(seed.get('relevance'))}, found by {esc(chans or 'no channel')}</p>"
        )
    return (
        f'<details class="path"><summary>graph path ({len(steps)} step'
        f"{'s' if len(steps) != 1 else ''})</summary>"
        f"{_path_svg(steps, labels)}{why}<ol>{items}</ol></details>"
    )


def search_results(user: str, result: SearchResult, labels: Mapping[str, str]) -> Html:
    if not result.hits:
        return '<p id="no-hits">no memory matches this query</p>'
    items = []
    for rank, hit in enumerate(result.hits, 1):
        m = hit.memory
        items.append(
            f'<li class="hit" id="hit-{rank}"><div class="hit-head">'
            f'<span class="rank">#{rank}</span>'
            f' <span class="score">score {hit.score:.4f}</span>'
            f' <span class="tag">{esc(m.memory_type.value)}</span>'
            f' <span class="tag">{esc(m.status.value)}</span></div>'
            f"<p>{memory_link(user, m)}</p>{_contributions(hit)}{_path(user, hit, labels)}</li>"
        )
    degraded = (
        f'<p class="error">degraded: {esc(", ".join(result.degraded))}</p>'
        if result.degraded
        else ""
    )
    return (
        f'<p class="count" id="took">{len(result.hits)} hits in {result.took_ms:.1f} ms</p>'
        f'{degraded}<ol class="hits">{"".join(items)}</ol>'
    )


def filter_effect(
    user: str, given: Mapping[str, str], filtered: SearchResult, plain: SearchResult
) -> Html:
    """The same query with and without its type / as_of filter, side by side: which hits the
    filter took out, and which it brought in (as_of brings back versions since replaced)."""
    kept = {h.memory.id for h in filtered.hits}
    unfiltered = {h.memory.id for h in plain.hits}
    named = ", ".join(
        f"{label} {given[key]}"
        for key, label in (("memory_type", "type"), ("as_of", "as of"))
        if given.get(key)
    )
    rows = []
    for rank in range(max(len(filtered.hits), len(plain.hits))):
        with_f = filtered.hits[rank] if rank < len(filtered.hits) else None
        without = plain.hits[rank] if rank < len(plain.hits) else None
        rows.append(
            (
                f"#{rank + 1}",
                _compared(user, with_f, unfiltered, "only with the filter"),
                _compared(user, without, kept, "taken out by the filter"),
            )
        )
    out = sum(1 for i in unfiltered if i not in kept)
    added = sum(1 for i in kept if i not in unfiltered)
    return (
        f'<h2 id="filter-effect">What the filter changes ({esc(named)})</h2>'
        f'<p class="count" id="filter-counts">{out} of the unfiltered hits taken out,'
        f" {added} brought in</p>"
        + table(("rank", f"with {named}", "without the filter"), rows, "compare")
    )


def _compared(user: str, hit: Hit | None, other: set[str], note: str) -> Html:
    if hit is None:
        return ""
    mark = "" if hit.memory.id in other else f' <span class="tag changed">{esc(note)}</span>'
    return memory_link(user, hit.memory) + mark


def quarantine_body(user: str, session: Session, held: list[HeldMemory]) -> Html:
    if not held:
        return '<p id="nothing-held">nothing is held for review</p>'
    rows = []
    for h in held:
        m = h.memory
        # an agent may read the queue, but not open a held memory (the service withholds it)
        shown = memory_link(user, m) if session.is_operator else preview(m.content)
        actions = ""
        if session.is_operator:
            actions = "".join(
                f'<form method="post" action="/u/{seg(user)}/quarantine" class="inline">'
                f"{csrf_field(session)}"
                f'<input type="hidden" name="memory_id" value="{esc(m.id)}">'
                f'<button type="submit" name="action" value="{verb}" class="{verb}"'
                f' id="{verb}-{esc(m.id)}">{verb.capitalize()}</button></form>'
                for verb in ("approve", "reject")
            )
        rows.append(
            (
                esc(m.created_at.strftime("%Y-%m-%d %H:%M:%S")),
                f'<span class="held">{shown}</span>',
                f'<span class="reason">{esc(h.reason)}</span>',
                actions or '<span class="muted">operator only</span>',
            )
        )
    note = (
        ""
        if session.is_operator
        else '<p class="muted" id="read-only">an agent token may read this queue but not'
        " review it: approving its own held writes would switch the firewall off</p>"
    )
    return note + table(("held at", "memory", "why it was held", ""), rows, "quarantine")


def _kv(d: Mapping[str, Any] | None) -> Html:
    if not d:
        return '<span class="muted">none</span>'
    return ", ".join(f"{esc(k)} {fmt(v)}" for k, v in d.items())


def health_body(figures: Mapping[str, Any]) -> Html:
    """Counts and status, never content: the same things memory_health tells the same role."""
    stores = figures.get("stores") or {}
    store_rows = [
        (
            esc(name),
            esc(s.get("backend")),
            '<span class="ok">ok</span>' if s.get("ok") else '<span class="error">DOWN</span>',
        )
        for name, s in stores.items()
    ]
    rows: list[tuple[str, Html]] = [
        ("memories", esc(figures.get("total"))),
        ("by type", _kv(figures.get("by_type"))),
        ("by status", _kv(figures.get("by_status"))),
        ("graph", _kv(figures.get("graph"))),
        (
            "recall p50 / p95 ms",
            f"{fmt(figures.get('recall_p50_ms'))} / {fmt(figures.get('recall_p95_ms'))}",
        ),
    ]
    for key, label in (
        ("vectors", "vectors of this user"),
        ("all_users_total", "memories of all users"),
        ("outbox", "projection outbox"),
        ("drift", "records vs vectors"),
        ("cache_hit_rate", "cache hit rates"),
    ):
        if key in figures:
            value = figures[key]
            rows.append((label, _kv(value) if isinstance(value, Mapping) else esc(value)))
    erasures = figures.get("erasures") or []
    if erasures:
        receipts = table(
            ("when", "requested by", "deleted"),
            [
                (esc(e.get("when")), esc(e.get("requested_by")), _kv(e.get("deleted")))
                for e in erasures
            ],
            "erasures",
        )
    else:
        receipts = '<p class="muted" id="no-erasures">no erase of this user is on record</p>'
    return (
        f'<div id="health">{pairs(rows)}</div><h2>Stores</h2>'
        f"{table(('store', 'backend', 'status'), store_rows, 'stores')}"
        f"<h2>Erase receipts</h2>{receipts}"
    )


__all__ = ["health_body", "quarantine_body", "search_form", "search_results"]
