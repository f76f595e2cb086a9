"""HTML building blocks: escaping, the page frame, tables, forms.

Every value that reaches a page goes through `esc` (or is a number the code formats), so a
memory's content, however hostile, is shown as text and never runs as markup: memories are
written by agents, and a quarantined one is exactly the text an attacker chose. The page
frame sets no inline style or script, which lets the Content-Security-Policy forbid both.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import quote, urlencode

from graphmem.ui.sessions import Session

Html = str
CONTENT_PREVIEW = 240


def esc(value: object) -> Html:
    """Text as HTML text: markup characters escaped, quotes too (safe inside attributes)."""
    return html.escape("" if value is None else str(value), quote=True)


def seg(value: str) -> str:
    """A value as one URL path segment (a user id or a memory id)."""
    return quote(value, safe="")


def query(params: Mapping[str, Any]) -> str:
    """A query string of the non-empty params, or ''."""
    kept = {k: v for k, v in params.items() if v not in (None, "")}
    return "?" + urlencode(kept) if kept else ""


def preview(text: str, limit: int = CONTENT_PREVIEW) -> Html:
    return esc(text if len(text) <= limit else text[: limit - 1] + "…")


def pretty(value: Any) -> Html:
    return esc(json.dumps(value, ensure_ascii=False, indent=2, default=str, sort_keys=True))


def fmt(value: Any, digits: int = 3) -> Html:
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return esc(value)


def table(head: Sequence[str], rows: Iterable[Sequence[Html]], cls: str = "") -> Html:
    """A table of cells that are already HTML (the caller escaped each)."""
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    th = "".join(f"<th>{esc(h)}</th>" for h in head)
    return f'<table class="{esc(cls)}"><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>'


def pairs(items: Iterable[tuple[str, Html]]) -> Html:
    """A two-column definition list of already-escaped values."""
    return "<dl>" + "".join(f"<dt>{esc(k)}</dt><dd>{v}</dd>" for k, v in items) + "</dl>"


def csrf_field(session: Session) -> Html:
    return f'<input type="hidden" name="csrf" value="{esc(session.csrf)}">'


def select(name: str, options: Sequence[str], chosen: str | None, blank: str = "any") -> Html:
    opts = [f'<option value="">{esc(blank)}</option>'] if blank else []
    for o in options:
        mark = " selected" if o == chosen else ""
        opts.append(f'<option value="{esc(o)}"{mark}>{esc(o)}</option>')
    return f'<select name="{esc(name)}" id="f-{esc(name)}">{"".join(opts)}</select>'


def text_input(name: str, value: str | None, label: str, *, size: int = 12) -> Html:
    return (
        f'<label for="f-{esc(name)}">{esc(label)}</label>'
        f'<input type="text" name="{esc(name)}" id="f-{esc(name)}" size="{size}"'
        f' value="{esc(value or "")}">'
    )


NAV = (
    ("memories", "Memories"),
    ("search", "Search"),
    ("timeline", "Timeline"),
    ("quarantine", "Quarantine"),
    ("health", "Health"),
)


def page(
    title: str,
    body: Html,
    *,
    session: Session | None = None,
    user: str | None = None,
    active: str = "",
    message: str = "",
    error: str = "",
) -> Html:
    """The frame of every page: the navigation for the user being inspected, who is logged
    in and as what, a message or an error, then the page's own body."""
    nav = ""
    who = ""
    if session is not None:
        role = "operator" if session.is_operator else "agent (read-only)"
        who = (
            f'<div class="who">logged in as <b>{esc(session.info.label)}</b> · {esc(role)}'
            f'<form method="post" action="/logout" class="inline">{csrf_field(session)}'
            '<button type="submit" id="logout">Log out</button></form></div>'
        )
        if user is not None:
            links = "".join(
                f'<a href="/u/{seg(user)}/{key}" id="nav-{key}"'
                f"{' class=active' if key == active else ''}>{esc(label)}</a>"
                for key, label in NAV
            )
            nav = f'<nav><span class="user">user <b id="current-user">{esc(user)}</b></span>{links}'
            if session.is_operator:
                nav += (
                    '<form method="get" action="/choose" class="inline">'
                    '<label for="f-choose">another user</label>'
                    '<input type="text" name="user" id="f-choose" size="12">'
                    '<button type="submit">Go</button></form>'
                )
            nav += "</nav>"
    notes = ""
    if message:
        notes += f'<p class="message" id="message">{esc(message)}</p>'
    if error:
        notes += f'<p class="error" id="error">{esc(error)}</p>'
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)} · graphmem</title>"
        '<link rel="stylesheet" href="/static/ui.css"></head><body>'
        f'<header><span class="brand">graphmem inspector</span>{who}</header>{nav}'
        f"<main><h1>{esc(title)}</h1>{notes}{body}</main></body></html>"
    )


__all__ = [
    "Html",
    "csrf_field",
    "esc",
    "fmt",
    "page",
    "pairs",
    "preview",
    "pretty",
    "query",
    "seg",
    "select",
    "table",
    "text_input",
]
