"""The tools that read long-term memories back: recall by meaning (memory_search), fetch by id
(memory_get) and page through them (memory_list).

Like every tool they act for `ctx.caller()` only, and show an agent nothing the memory
firewall holds for review: a quarantined memory is never a hit, and asked for by id it is
listed under `quarantined`, without its content.
"""

from typing import TYPE_CHECKING, Annotated, Any, cast

from pydantic import Field

from graphmem.domain.requests import MAX_LIST_LIMIT, ListRequest, SearchRequest
from graphmem.domain.temporal import validity
from graphmem.domain.visibility import Viewer
from graphmem.mcp.context import ToolContext, ToolRegistry
from graphmem.mcp.results import (
    GetResult,
    ListResult,
    MemoryRecord,
    RevealResult,
    SearchHit,
    SearchResult,
)
from graphmem.mcp.tools.common import (
    MAX_IDS,
    MAX_TOP_K,
    TIME_RANGE_PATTERN,
    KindName,
    KindWord,
    MemoryTypeName,
    RelationName,
    fetch,
    memory_dict,
    tool_annotations,
    tool_errors,
)
from graphmem.mcp.tools.filters import (
    AgentId,
    MetadataFilter,
    MinConfidence,
    RunId,
    SessionId,
    SortName,
    Sources,
    Statuses,
)
from graphmem.mcp.tools.images import image_info
from graphmem.usecases import libraries

if TYPE_CHECKING:
    from graphmem.domain.model import Hit, Memory

MAX_CURSOR = 1024


def register(mcp: ToolRegistry, ctx: ToolContext) -> None:
    """Register memory_search, memory_get and memory_list; `mcp` records their names."""
    svc = ctx.service
    max_chars = ctx.max_chars

    @mcp.tool(
        description="Recall the user's long-term memories most relevant to a query, best first."
        " Call it before answering anything that depends on the past (what the user said,"
        " their preferences, people, projects, events, tasks). Each hit has its content, a"
        " score in [0, 1] and the per-channel breakdown (vector similarity, keyword match,"
        " recency, frequency) and its validity (valid_from, valid_to, current). Only current"
        " facts are returned unless the query asks about the past or as_of/include_history is"
        " given. Filters (session_id, source, min_confidence, metadata, agent_id, run_id)"
        " hold in every channel: a hit they exclude is never returned. Only state what the"
        " hits say; if none is relevant, say you don't remember rather than guessing.",
        annotations=tool_annotations("Search memories", read_only=True, idempotent=True),
    )
    async def memory_search(
        query: Annotated[
            str,
            Field(
                min_length=1,
                max_length=max_chars,
                description="What to recall, in natural language; include the key names/nouns.",
            ),
        ],
        top_k: Annotated[
            int, Field(ge=1, le=MAX_TOP_K, description="How many hits to return.")
        ] = 5,
        memory_type: Annotated[
            MemoryTypeName | None,
            Field(description="Only memories of this type: fact, preference, event or task."),
        ] = None,
        time_range: Annotated[
            str | None,
            Field(
                pattern=TIME_RANGE_PATTERN,
                description="Only memories created within this window back from now: a number"
                " and a unit m/h/d/w/y, e.g. '24h', '7d', '2w'.",
            ),
        ] = None,
        expand_hops: Annotated[
            int | None,
            Field(
                ge=0,
                le=4,
                description="Also follow the memory graph this many hops from"
                " the best hits (default 2; 0 = only direct matches). Hits found this way"
                " carry the 'path' of relations that led to them.",
            ),
        ] = None,
        relation_types: Annotated[
            list[RelationName] | None,
            Field(description="Only follow these relation types when expanding."),
        ] = None,
        as_of: Annotated[
            str | None,
            Field(
                max_length=40,
                description="ISO-8601 date or time: recall what was true then (e.g. where the"
                " user lived in 2023). Default: what is true now.",
            ),
        ] = None,
        include_history: Annotated[
            bool,
            Field(
                description="Also return superseded (outdated) memories. Not needed for"
                " questions with 'before', 'used to', 'previously', '以前', '之前'."
            ),
        ] = False,
        session_id: SessionId = None,
        source: Sources = None,
        min_confidence: MinConfidence = None,
        metadata: MetadataFilter = None,
        agent_id: AgentId = None,
        run_id: RunId = None,
        kinds: Annotated[
            KindWord | Annotated[list[KindWord], Field(min_length=1)] | None,
            Field(
                description="memory: what was said; document: chunks of ingested documents and"
                " of shared libraries the user may read; image: images (caption and the text"
                " read in them); both (default): every kind, ranked together. A list, e.g."
                ' ["memory", "image"], keeps those kinds.'
            ),
        ] = "both",
        kind_weights: Annotated[
            dict[KindName, Annotated[float, Field(gt=0, le=10)]] | None,
            Field(
                description='A score factor per kind, e.g. {"document": 0.8} to rank documents'
                " a little below memories of equal match."
            ),
        ] = None,
        explain: Annotated[
            bool,
            Field(
                description="Also return, per hit, how its score was made: each channel before"
                " and after calibration, the fused contributions, and for a hit reached over"
                " the memory graph the seed and every hop with why it was taken."
            ),
        ] = False,
    ) -> SearchResult:
        user = ctx.caller()
        with tool_errors():
            request = SearchRequest(
                query=query,
                top_k=top_k,
                memory_type=memory_type,
                time_range=time_range,
                expand_hops=expand_hops,
                relation_types=cast("list[str] | None", relation_types),
                as_of=as_of,
                include_history=include_history,
                session_id=session_id,
                source=source,
                min_confidence=min_confidence,
                metadata=metadata,
                agent_id=agent_id,
                run_id=run_id,
                kinds=cast("str | list[str] | None", kinds),
                kind_weights=cast("dict[str, float] | None", kind_weights),
                explain=explain,
            )
            res = await ctx.run(svc.search_request, user, request)
        return SearchResult(
            hits=[_compact_hit(h) for h in res.hits],
            count=len(res.hits),
            took_ms=round(res.took_ms, 3),
            degraded=list(res.degraded),
        )

    @mcp.tool(
        description="Fetch memories by id (from memory_search, memory_write, memory_list or a"
        " previous turn), with their full provenance: content, summary, type, source, session,"
        " agent and run, confidence, metadata, validity, status and access figures. Ids that"
        " don't exist are listed under 'missing', ids held in quarantine pending review under"
        " 'quarantined' (their content is withheld).",
        annotations=tool_annotations("Get memories", read_only=True, idempotent=True),
    )
    async def memory_get(
        memory_ids: Annotated[
            list[Annotated[str, Field(min_length=1, max_length=64)]],
            Field(min_length=1, max_length=MAX_IDS, description="The memories to fetch."),
        ],
    ) -> GetResult:
        user = ctx.caller()
        with tool_errors():
            found, missing, held = await fetch(ctx, user, memory_ids)
        return GetResult(
            memories=[MemoryRecord.model_validate(memory_dict(m)) for m in found],
            missing=missing,
            quarantined=held,
            count=len(found),
        )

    @mcp.tool(
        description="Read back, in clear, the secrets (passwords, keys, ID or account numbers)"
        " the user asked to remember in one memory. The memory itself holds only references"
        " such as [secret:password#1]; call this only when the user needs the value now, e.g."
        " to log in. Only the memory's owner gets an answer; each call is audited (without"
        " the values). refs narrows it to some references.",
        annotations=tool_annotations("Reveal a memory's secrets", read_only=True, idempotent=True),
    )
    async def memory_reveal(
        memory_id: Annotated[
            str, Field(min_length=1, max_length=64, description="The memory holding them.")
        ],
        refs: Annotated[
            list[Annotated[str, Field(min_length=1, max_length=64)]] | None,
            Field(max_length=MAX_IDS, description="Only these, e.g. [secret:password#1]."),
        ] = None,
    ) -> RevealResult:
        user = ctx.caller()
        with tool_errors():
            out = await ctx.run(ctx.service.reveal, user, memory_id, refs, tool="memory_reveal")
        return RevealResult.model_validate(out)

    @mcp.tool(
        description="List the user's memories page by page, without a query: newest first by"
        " default, or oldest, most_accessed, or decay (weakest first: what is fading). Filter"
        " by memory_type, status, source, session_id, agent_id, run_id, min_confidence,"
        " metadata, a creation window (created_after, created_before) or what was valid at a"
        " time (valid_at). Pass a page's next_cursor as cursor to get the next one; it is null"
        " on the last page. Active memories unless status says otherwise; quarantined ones"
        " only with an operator token (memory_quarantine_list shows an agent its queue).",
        annotations=tool_annotations("List memories", read_only=True, idempotent=True),
    )
    async def memory_list(
        limit: Annotated[
            int, Field(ge=1, le=MAX_LIST_LIMIT, description="How many memories per page.")
        ] = 20,
        cursor: Annotated[
            str | None,
            Field(
                min_length=1,
                max_length=MAX_CURSOR,
                description="The next_cursor of the previous page; leave it out for the first.",
            ),
        ] = None,
        sort: Annotated[
            SortName,
            Field(
                description="newest or oldest (by creation), most_accessed (most recalled"
                " first), decay (weakest decay score first)."
            ),
        ] = "newest",
        memory_type: Annotated[
            MemoryTypeName | None, Field(description="Only memories of this type.")
        ] = None,
        status: Statuses = None,
        source: Sources = None,
        session_id: SessionId = None,
        agent_id: AgentId = None,
        run_id: RunId = None,
        min_confidence: MinConfidence = None,
        metadata: MetadataFilter = None,
        created_after: Annotated[
            str | None,
            Field(max_length=40, description="ISO-8601: only memories created at or after it."),
        ] = None,
        created_before: Annotated[
            str | None,
            Field(max_length=40, description="ISO-8601: only memories created before it."),
        ] = None,
        valid_at: Annotated[
            str | None,
            Field(max_length=40, description="ISO-8601: only memories that held at that time."),
        ] = None,
    ) -> ListResult:
        user, actor = ctx.identify()
        viewer = Viewer.OPERATOR if actor.is_operator else Viewer.AGENT
        with tool_errors():
            request = ListRequest(
                limit=limit,
                cursor=cursor,
                sort=sort,
                memory_type=memory_type,
                status=status,
                source=source,
                session_id=session_id,
                agent_id=agent_id,
                run_id=run_id,
                min_confidence=min_confidence,
                metadata=metadata,
                created_after=created_after,
                created_before=created_before,
                valid_at=valid_at,
            )
            page = await ctx.run(svc.list_memories, user, request, viewer=viewer)
        return ListResult(
            memories=[MemoryRecord.model_validate(memory_dict(m)) for m in page.memories],
            next_cursor=page.next_cursor,
            count=len(page.memories),
        )


def document_fields(m: "Memory") -> dict[str, Any]:
    """A chunk's source and, for a shared library's chunk, the library; nothing for a memory."""
    if m.kind.value != "document":
        return {}
    md = m.metadata
    out: dict[str, Any] = {
        "document": {
            "source": str(md.get("doc_uri", "")),
            "title": str(md.get("doc_title", "")),
            "headings": [str(h) for h in md.get("doc_headings") or []],
            "start": int(md.get("doc_start", 0)),
            "end": int(md.get("doc_end", 0)),
        }
    }
    library = libraries.name_of(m.user_id)
    if library:
        out["library"] = library
    return out


def _compact_hit(h: "Hit") -> SearchHit:
    """What a model needs from a hit: the text, its kind and age, why it ranked there and
    where it came from; the scopes, metadata and path only when there are any."""
    m = h.memory
    path = getattr(h, "path", None)
    return SearchHit.model_validate(
        {
            "memory_id": m.id,
            "content": m.content,
            "summary": m.summary,
            "memory_type": m.memory_type.value,
            "kind": m.kind.value,
            **document_fields(m),
            **({"image": info} if (info := image_info(m)) else {}),
            "score": round(h.score, 4),
            "scores": {k: round(v, 4) for k, v in h.scores.items()},
            "created_at": m.created_at.isoformat(),
            "source": m.source.value,
            "confidence": m.confidence,
            **validity(m),
            "session_id": m.session_id or None,
            "agent_id": m.agent_id or None,
            "run_id": m.run_id or None,
            "metadata": m.metadata or None,
            "path": [step.to_dict() for step in path] if path else None,
            "explain": getattr(h, "explain", None),
        }
    )


__all__ = ["register"]
