"""The Memories pages: a user's memories a page at a time, filtered like `memory_list`, and
one memory with its versions, relations and audit trail.

Paging is the service's keyset cursor (stable while an agent keeps writing); the page number
shown beside it is only a counter the links carry, checked like any other input.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphmem.domain.model import Memory, MemoryType, Source, Status
from graphmem.domain.requests import SORTS, MemoryPage
from graphmem.ui.html import (
    Html,
    esc,
    fmt,
    pairs,
    pretty,
    preview,
    query,
    seg,
    select,
    table,
    text_input,
)

STATUSES = tuple(s.value for s in Status)
TYPES = tuple(t.value for t in MemoryType)
FILTERS = ("type", "status", "source", "session", "agent", "run", "metadata", "sort", "valid_at")
SOURCES = tuple(s.value for s in Source)


def memory_link(user: str, m: Memory | str, text: str | None = None) -> Html:
    mid = m if isinstance(m, str) else m.id
    label = text if text is not None else (mid if isinstance(m, str) else m.content)
    return f'<a href="/u/{seg(user)}/m/{seg(mid)}" class="mem">{preview(label, 120)}</a>'


def filter_form(user: str, given: Mapping[str, str], statuses: tuple[str, ...]) -> Html:
    """The filters of `memory_list`, sent by GET: they are identifiers and choices, never
    memory content, so a filtered page can be bookmarked."""
    return (
        f'<form method="get" action="/u/{seg(user)}/memories" class="filters" id="filters">'
        f'<label for="f-type">type</label>{select("type", TYPES, given.get("type"))}'
        f'<label for="f-status">status</label>{select("status", statuses, given.get("status"))}'
        f'<label for="f-source">source</label>{select("source", SOURCES, given.get("source"))}'
        f"{text_input('session', given.get('session'), 'session')}"
        f"{text_input('agent', given.get('agent'), 'agent')}"
        f"{text_input('run', given.get('run'), 'run')}"
        f"{text_input('valid_at', given.get('valid_at'), 'valid at (ISO date)')}"
        f"{text_input('metadata', given.get('metadata'), 'metadata (key=value, …)', size=20)}"
        f'<label for="f-sort">sort</label>{select("sort", SORTS, given.get("sort"), blank="")}'
        '<button type="submit" id="apply-filters">Filter</button></form>'
    )


def memories_body(
    user: str,
    result: MemoryPage,
    given: Mapping[str, str],
    page_no: int,
    limit: int,
    statuses: tuple[str, ...],
) -> Html:
    rows = [
        (
            esc(m.created_at.strftime("%Y-%m-%d %H:%M:%S")),
            esc(m.memory_type.value),
            f'<span class="status {esc(m.status.value)}">{esc(m.status.value)}</span>',
            esc(m.source.value),
            memory_link(user, m),
        )
        for m in result.memories
    ]
    first = (page_no - 1) * limit + 1
    shown = (
        f'<p class="count" id="page-info">page <b id="page-no">{page_no}</b>: memories'
        f" {first}-{first + len(rows) - 1}</p>"
        if rows
        else '<p class="count" id="page-info">no memories match</p>'
    )
    kept = {k: given.get(k) for k in FILTERS}
    links = []
    if page_no > 1:
        links.append(
            f'<a href="/u/{seg(user)}/memories{query(kept)}" id="first-page">First page</a>'
        )
    if result.next_cursor:
        nxt = {**kept, "cursor": result.next_cursor, "page": page_no + 1, "limit": limit}
        links.append(f'<a href="/u/{seg(user)}/memories{query(nxt)}" id="next-page">Next page</a>')
    return (
        filter_form(user, given, statuses)
        + shown
        + table(("created", "type", "status", "source", "content"), rows, "memories")
        + f'<p class="pager">{" · ".join(links)}</p>'
    )


def _fields(m: Memory) -> Html:
    keep = (
        "id",
        "memory_type",
        "status",
        "source",
        "confidence",
        "session_id",
        "agent_id",
        "run_id",
        "slot",
        "created_at",
        "updated_at",
        "valid_from",
        "valid_to",
        "expires_at",
        "access_count",
        "last_access_at",
        "decay_score",
        "kind",
        "merged_into",
    )
    d = m.to_dict()
    return pairs((k, esc(d.get(k))) for k in keep if d.get(k) not in (None, ""))


def versions_html(user: str, current: Memory, versions: list[Memory]) -> Html:
    """Oldest first; a version that is no longer valid is struck through."""
    if len(versions) <= 1:
        return '<p class="muted" id="versions">one version: this memory was never updated</p>'
    items = []
    for v in versions:
        text = memory_link(user, v)
        superseded = v.status.value == "superseded" or v.valid_to is not None
        if superseded:
            text = f"<del>{text}</del>"
        mark = " (this one)" if v.id == current.id else ""
        items.append(
            f"<li>{esc(v.created_at.strftime('%Y-%m-%d %H:%M:%S'))} ·"
            f" {esc(v.status.value)}{esc(mark)}: {text}</li>"
        )
    return f'<ol class="versions" id="versions">{"".join(items)}</ol>'


def relations_html(user: str, memory_id: str, graph: Mapping[str, Any]) -> Html:
    nodes = {n["id"]: n for n in graph.get("nodes", [])}
    rows = []
    for e in graph.get("edges", []):
        if memory_id not in (e.get("from"), e.get("to")):
            continue
        other = e["to"] if e.get("from") == memory_id else e["from"]
        direction = "→" if e.get("from") == memory_id else "←"
        text = str(nodes.get(other, {}).get("content", other))
        rows.append(
            (
                esc(direction),
                esc(e.get("type")),
                fmt(e.get("strength")),
                memory_link(user, other, text),
            )
        )
    entities = nodes.get(memory_id, {}).get("entities") or []
    ent = (
        '<p id="entities">entities: '
        + ", ".join(f'<span class="entity">{esc(x)}</span>' for x in entities)
        + "</p>"
        if entities
        else ""
    )
    if not rows:
        return ent + '<p class="muted" id="relations">no relations to other memories</p>'
    return ent + table(("", "relation", "strength", "memory"), rows, "relations")


def audit_html(rows: list[dict[str, Any]]) -> Html:
    if not rows:
        return '<p class="muted" id="audit">no audit rows name this memory</p>'
    body = [
        (
            esc(r.get("created_at")),
            esc(r.get("action")),
            esc((r.get("details") or {}).get("by") or (r.get("details") or {}).get("reviewer")),
            f"<details><summary>details</summary><pre>{pretty(r.get('details'))}</pre></details>",
        )
        for r in rows
    ]
    return table(("when", "action", "by", "details"), body, "audit")


def memory_body(
    user: str,
    m: Memory,
    versions: list[Memory],
    graph: Mapping[str, Any],
    audit: list[dict[str, Any]],
) -> Html:
    meta = f"<pre>{pretty(m.metadata)}</pre>" if m.metadata else '<p class="muted">none</p>'
    return (
        f'<blockquote class="content" id="content">{esc(m.content)}</blockquote>'
        + _fields(m)
        + "<h2>Metadata</h2>"
        + meta
        + "<h2>Versions</h2>"
        + versions_html(user, m, versions)
        + "<h2>Relations</h2>"
        + f'<p><a href="/u/{seg(user)}/graph/{seg(m.id)}" id="open-graph">Open in the graph</a></p>'
        + relations_html(user, m.id, graph)
        + "<h2>Audit trail</h2>"
        + audit_html(audit)
    )


__all__ = ["FILTERS", "STATUSES", "memories_body", "memory_body", "memory_link"]
