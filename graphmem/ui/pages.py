"""The pages, one handler each: read the request, check its input, ask the service, render.

Each handler runs after graphmem.ui.app.guarded has checked the session, the tenant rule and
the CSRF token. Input is checked here before the service is asked, so bad input (a huge
query, control characters, a page number that is not one) gets a message naming the field
and changes nothing. The service is called in a worker thread: its calls block.

Reading is side-effect free: searches are made with track_access=False, so looking at what
an agent remembers does not change what it will recall (access counts feed the frequency
channel and forgetting).
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from graphmem.domain.requests import MAX_LIST_LIMIT, ListRequest, SearchRequest
from graphmem.domain.visibility import Viewer
from graphmem.errors import InvalidInputError, NotFoundError
from graphmem.ui.html import page, seg
from graphmem.ui.sessions import Refused, Session
from graphmem.ui.views_graph import MAX_NODES, graph_body, timeline_body
from graphmem.ui.views_memories import FILTERS, STATUSES, memories_body, memory_body
from graphmem.ui.views_ops import (
    filter_effect,
    health_body,
    quarantine_body,
    search_form,
    search_results,
)

if TYPE_CHECKING:
    from graphmem.service.facade import MemoryService

MAX_QUERY = 2000
MAX_FIELD = 200
MAX_PAGE = 1_000_000
PAGE_SIZE = 50
AUDIT_SCAN = 5000
"""Audit rows read for one memory's trail (newest first); older rows fall off the page."""
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def service_of(request: Request) -> MemoryService:
    service: MemoryService = request.app.state.inspector.service
    return service


def viewer_of(session: Session) -> Viewer:
    return Viewer.OPERATOR if session.is_operator else Viewer.AGENT


def clean(value: Any, field: str, limit: int = MAX_FIELD) -> str:
    """A text field as the service may take it, or InvalidInputError naming the field."""
    text = value if isinstance(value, str) else ""
    if len(text) > limit:
        raise InvalidInputError(field, f"is {len(text):,} characters long; at most {limit:,}")
    if _CONTROL.search(text):
        raise InvalidInputError(field, "contains control characters; type plain text")
    return text.strip()


def whole(value: str | None, field: str, low: int, high: int, default: int) -> int:
    if value in (None, ""):
        return default
    assert value is not None
    if not value.strip().isdigit() or not low <= int(value) <= high:
        raise InvalidInputError(field, f"{value[:20]!r} is not a whole number from {low} to {high}")
    return int(value)


def render(
    request: Request,
    session: Session,
    user: str,
    title: str,
    body: str,
    active: str,
    *,
    status: int = 200,
    error: str = "",
) -> HTMLResponse:
    del request
    return HTMLResponse(
        page(
            title,
            body,
            session=session,
            user=user,
            active=active,
            message=session.take_flash(),
            error=error,
        ),
        status_code=status,
    )


# ----------------------------------------------------------------------------- memories
async def memories(
    request: Request, session: Session, user: str, form: FormData | None
) -> Response:
    q = request.query_params
    given = {k: clean(q.get(k), k) for k in (*FILTERS, "cursor")}
    statuses = STATUSES if session.is_operator else tuple(s for s in STATUSES if s != "quarantined")
    page_no = whole(q.get("page"), "page", 1, MAX_PAGE, 1)
    limit = whole(q.get("limit"), "limit", 1, MAX_LIST_LIMIT, PAGE_SIZE)
    if given["status"] and given["status"] not in statuses:
        raise InvalidInputError(
            "status", f"{given['status']!r} is not one of {', '.join(statuses)}"
        )
    req = ListRequest(
        limit=limit,
        cursor=given["cursor"] or None,
        sort=given["sort"] or "newest",
        memory_type=given["type"] or None,
        status=given["status"] or None,
        source=given["source"] or None,
        session_id=given["session"] or None,
        agent_id=given["agent"] or None,
        run_id=given["run"] or None,
        valid_at=given["valid_at"] or None,
        metadata=metadata_filter(given["metadata"]),
    )
    svc = service_of(request)
    result = await run_in_threadpool(svc.list_memories, user, req, viewer=viewer_of(session))
    body = memories_body(user, result, given, page_no, limit, statuses)
    return render(request, session, user, "Memories", body, "memories")


def metadata_filter(text: str) -> dict[str, Any] | None:
    """`key=value` pairs, comma-separated, as `memory_list`'s metadata filter; `a|b` is one of.

    A form field is always text, while metadata keeps numbers and booleans as they were
    written, so each value also matches its number or boolean reading: `i=7` finds {"i": 7}
    and {"i": "7"} alike."""
    if not text.strip():
        return None
    wanted: dict[str, Any] = {}
    for part in text.split(","):
        key, sep, value = (x.strip() for x in part.partition("="))
        if not sep or not key or not value:
            raise InvalidInputError("metadata", f"{part.strip()!r} is not key=value")
        options: list[Any] = []
        for v in (x.strip() for x in value.split("|")):
            options += [v, *_typed(v)]
        wanted[key] = {"in": options}
    return wanted


def _typed(value: str) -> list[Any]:
    if value in ("true", "false"):
        return [value == "true"]
    for kind in (int, float):
        try:
            number = kind(value)
        except ValueError:
            continue
        return [number] if math.isfinite(number) else []
    return []


def _trail(svc: MemoryService, user: str, memory_id: str) -> list[dict[str, Any]]:
    rows = []
    for r in svc.records.audit_rows(user, AUDIT_SCAN):
        details = r.get("details") or {}
        if (
            memory_id in (r.get("memory_ids") or [])
            or memory_id in (details.get("flagged") or {})
            or details.get("held_for_review") == memory_id
        ):
            rows.append(r)
    return rows


async def memory(request: Request, session: Session, user: str, form: FormData | None) -> Response:
    memory_id = clean(request.path_params["memory_id"], "memory id", 100)
    svc = service_of(request)
    viewer = viewer_of(session)

    def load() -> tuple[Any, ...]:
        m = svc.get(user, memory_id, viewer=viewer)
        versions = svc.history(user, memory_id, viewer=viewer)
        graph = svc.graph(user, memory_id, 1, viewer=viewer, max_nodes=MAX_NODES)
        return m, versions, graph, _trail(svc, user, memory_id)

    m, versions, graph, trail = await run_in_threadpool(load)
    body = memory_body(user, m, versions, graph, trail)
    return render(request, session, user, "Memory", body, "memories")


# ------------------------------------------------------------------------ graph, timeline
async def graph(request: Request, session: Session, user: str, form: FormData | None) -> Response:
    memory_id = clean(request.path_params["memory_id"], "memory id", 100)
    hops = whole(request.query_params.get("hops"), "hops", 1, 3, 1)
    svc = service_of(request)
    found = await run_in_threadpool(
        lambda: svc.graph(user, memory_id, hops, viewer=viewer_of(session), max_nodes=MAX_NODES)
    )
    return render(request, session, user, "Graph", graph_body(user, memory_id, found, hops), "")


async def timeline(
    request: Request, session: Session, user: str, form: FormData | None
) -> Response:
    q = request.query_params
    page_no = whole(q.get("page"), "page", 1, MAX_PAGE, 1)
    limit = whole(q.get("limit"), "limit", 1, MAX_LIST_LIMIT, PAGE_SIZE)
    statuses = ["active", "superseded", "archived"]
    if session.is_operator:
        statuses.append("quarantined")
    req = ListRequest(
        limit=limit,
        cursor=clean(q.get("cursor"), "cursor") or None,
        sort="newest",
        status=statuses,
    )
    svc = service_of(request)
    result = await run_in_threadpool(svc.list_memories, user, req, viewer=viewer_of(session))
    body = timeline_body(user, result, page_no, limit)
    return render(request, session, user, "Timeline", body, "timeline")


# ------------------------------------------------------------------------------- search
async def search(request: Request, session: Session, user: str, form: FormData | None) -> Response:
    if form is None:
        body = search_form(user, session, {})
        return render(request, session, user, "Search", body, "search")
    given = {
        "query": clean(form.get("query"), "query", MAX_QUERY),
        "top_k": clean(form.get("top_k"), "hits", 10),
        "memory_type": clean(form.get("memory_type"), "type", 40),
        "as_of": clean(form.get("as_of"), "as of", 40),
        "expand_hops": clean(form.get("expand_hops"), "graph hops", 10),
    }
    if not given["query"]:
        raise InvalidInputError("query", "type something to search for")
    req = SearchRequest(
        query=given["query"],
        top_k=whole(given["top_k"], "hits", 1, 50, 10),
        memory_type=given["memory_type"] or None,
        as_of=given["as_of"] or None,
        expand_hops=whole(given["expand_hops"], "graph hops", 0, 3, 2)
        if given["expand_hops"]
        else None,
        track_access=False,
        explain=True,
    )
    svc = service_of(request)
    viewer = viewer_of(session)

    filtered = bool(req.memory_type or req.as_of)

    def run() -> tuple[Any, Any, dict[str, str]]:
        # with a filter, also the same query without it, so the page can show what the
        # filter changed (graphmem.usecases.compare: the second search reads only what the
        # first did not)
        if filtered:
            result, plain = svc.search_compared(user, req)
        else:
            result, plain = svc.search_request(user, req), None
        labels = {h.memory.id: h.memory.content for h in result.hits}
        for h in result.hits:
            explain = getattr(h, "explain", None) or {}
            seed = (explain.get("walk") or {}).get("seed") or {}
            wanted = [*(x for s in getattr(h, "path", []) for x in (s.source, s.target))]
            if seed.get("memory_id"):
                wanted.append(seed["memory_id"])
            for mid in wanted:
                if mid not in labels:
                    try:
                        labels[mid] = svc.get(user, mid, viewer=viewer).content
                    except NotFoundError:
                        labels[mid] = "(not visible)"
        return result, plain, labels

    result, plain, labels = await run_in_threadpool(run)
    body = search_form(user, session, given) + search_results(user, result, labels)
    if plain is not None:
        body += filter_effect(user, given, result, plain)
    return render(request, session, user, "Search", body, "search")


# --------------------------------------------------------------------------- quarantine
async def quarantine(
    request: Request, session: Session, user: str, form: FormData | None
) -> Response:
    svc = service_of(request)
    if form is not None:
        if not session.is_operator:
            raise Refused(
                403,
                "reviewing held memories is an operator's act: this is an agent token, which"
                " may read the queue but not approve or reject; nothing was changed",
            )
        action = form.get("action")
        if action not in ("approve", "reject"):
            raise InvalidInputError("action", "must be approve or reject")
        memory_id = clean(form.get("memory_id"), "memory id", 100)
        if not memory_id:
            raise InvalidInputError("memory id", "name the memory to review")
        done = await run_in_threadpool(
            svc.review, user, [memory_id], approve=action == "approve", reviewer=session.actor
        )
        if not done:
            raise InvalidInputError("memory id", "no held memory of this user has this id")
        session.flash = (
            f"approved {memory_id}: it is back in recall"
            if action == "approve"
            else f"rejected {memory_id}: deleted from every store"
        )
        return RedirectResponse(f"/u/{seg(user)}/quarantine", status_code=303)
    held = await run_in_threadpool(svc.held_for_review, user, 200)
    body = quarantine_body(user, session, held)
    return render(request, session, user, "Quarantine", body, "quarantine")


# ------------------------------------------------------------------------------- health
def health_figures(svc: MemoryService, user: str, operator: bool) -> dict[str, Any]:
    """memory_health's figures for this role: a tenant sees its own counts and whether each
    store is up; an operator also the service-wide counts, the outbox and the drift check of
    `doctor` (records against vector points). The erase receipts are the `forget_user` audit
    rows, which an erase keeps (under the keyed hash of the user's id) with who asked and
    the counts deleted from each table, never content."""
    st = dict(svc.stats(user))
    erasures = [
        {"when": r.get("created_at"), **(r.get("details") or {})}
        for r in svc.records.audit_rows(user, AUDIT_SCAN)
        if r.get("action") == "forget_user"
    ]
    stores = dict(st.get("stores") or {})
    out: dict[str, Any] = {
        k: st.get(k)
        for k in (
            "total",
            "by_type",
            "by_status",
            "graph",
            "recall_p50_ms",
            "recall_p95_ms",
            "vectors",
        )
    }
    out["erasures"] = erasures
    if not operator:
        out["stores"] = {
            k: {"backend": v.get("backend"), "ok": v.get("ok")} for k, v in stores.items()
        }
        return out
    out["stores"] = stores
    records = svc.records
    total = records.count()
    out["all_users_total"] = total
    pending = records.outbox_count()
    oldest = records.outbox_oldest() if pending else None
    from graphmem.domain.model import utcnow

    age = max(0.0, (utcnow() - oldest).total_seconds()) if oldest else 0.0
    out["outbox"] = {"pending": pending, "oldest_seconds": round(age, 1)}
    points = (stores.get("vectors") or {}).get("points")
    if isinstance(points, int):
        out["drift"] = {"records": total, "vector_points": points, "ok": points == total}
    out["cache_hit_rate"] = {
        k[: -len("_cache_hit_rate")]: v for k, v in st.items() if k.endswith("_cache_hit_rate")
    }
    return out


async def health(request: Request, session: Session, user: str, form: FormData | None) -> Response:
    svc = service_of(request)
    figures = await run_in_threadpool(health_figures, svc, user, session.is_operator)
    return render(request, session, user, "Health", health_body(figures), "health")


__all__ = ["graph", "health", "memories", "memory", "quarantine", "search", "timeline"]
