"""The tools that change long-term memories, and summarise them: write, update, forget,
observe (the write policy for raw conversation) and summarise. Reading back is in `recall`.

The user is never a tool argument: every tool acts for `ctx.caller()`, the token's user over
HTTP and the configured user over stdio, so no argument can reach another user's memories.
"""

import logging
from typing import Annotated, Any

from fastmcp.exceptions import ToolError
from pydantic import Field

from graphmem.domain.model import Status
from graphmem.domain.requests import WriteItem
from graphmem.domain.summary import summarize_many
from graphmem.mcp.context import ToolContext, ToolRegistry
from graphmem.mcp.results import (
    ForgetResult,
    ForgottenMemory,
    ObserveResult,
    SummaryResult,
    UpdateResult,
    WriteResult,
)
from graphmem.mcp.tools.common import (
    MAX_IDS,
    MemoryTypeName,
    SourceName,
    fetch,
    tool_annotations,
    tool_errors,
)
from graphmem.mcp.tools.filters import SCOPE_MAX
from graphmem.settings.sections import LlmSettings
from graphmem.usecases.turns import MAX_TURNS as MAX_OBSERVE_TURNS

log = logging.getLogger("graphmem.mcp")


def register(mcp: ToolRegistry, ctx: ToolContext) -> None:
    """Register the long-term memory tools; `mcp` records their names for the server."""
    svc = ctx.service
    max_chars = ctx.max_chars
    llm_on = ctx.llm_on

    @mcp.tool(
        description="Store one new long-term memory about the user and return its memory_id."
        " Call it when the user states a lasting personal fact, a preference, an event (past or"
        " planned, with its date) or a task/commitment. Write one self-contained statement per"
        " call, with who, what and when, e.g. 'The user's manager is Priya (since March 2024).'"
        " Don't store small talk, secrets, or what only matters for this turn; if the memory"
        " already exists but changed, use memory_update instead.",
        annotations=tool_annotations("Write a memory", read_only=False),
    )
    async def memory_write(
        content: Annotated[
            str,
            Field(
                min_length=1,
                max_length=max_chars,
                description="The memory, one self-contained statement (who, what, when).",
            ),
        ],
        memory_type: Annotated[
            MemoryTypeName,
            Field(
                description="fact: a stable truth about the user or their world;"
                " preference: a like, dislike or way they want things done;"
                " event: something that happened or will happen at a time;"
                " task: something to do, a commitment or reminder."
            ),
        ],
        metadata: Annotated[
            dict[str, Any] | None,
            Field(description='Optional small JSON object (≤16 KiB), e.g. {"project": "Atlas"}.'),
        ] = None,
        source: Annotated[
            SourceName,
            Field(
                description="Who it came from: agent (you, the caller: the default), user (the"
                " user said it in so many words), document, or system."
            ),
        ] = "agent",
        session_id: Annotated[
            str | None,
            Field(max_length=128, description="The conversation it came from, if you track one."),
        ] = None,
        agent_id: Annotated[
            str | None,
            Field(
                min_length=1,
                max_length=SCOPE_MAX,
                description="The agent it belongs to (e.g. your name), so a search can be"
                " limited to one agent's memories; default: the user's, no agent.",
            ),
        ] = None,
        run_id: Annotated[
            str | None,
            Field(
                min_length=1,
                max_length=SCOPE_MAX,
                description="The run it belongs to (one task or workflow execution).",
            ),
        ] = None,
    ) -> WriteResult:
        user = ctx.caller()
        fields = {
            "metadata": metadata,
            "source": source,
            "session_id": session_id,
            "agent_id": agent_id,
            "run_id": run_id,
        }
        item = WriteItem(
            content=content,
            memory_type=memory_type,
            **{k: v for k, v in fields.items() if v is not None},
        )
        with tool_errors():
            written = await ctx.run(svc.write_many, user, [item], tool="memory_write")
            m = written[0]
            held = m.status == Status.QUARANTINED
            why = (await ctx.run(svc.hold_reasons, user, [m.id]))[m.id] if held else None
        return WriteResult(
            memory_id=m.id,
            memory_type=m.memory_type.value,
            summary=m.summary,
            created_at=m.created_at.isoformat(),
            # quarantined: held for an operator's review, not recalled until approved
            status=m.status.value,
            # a true duplicate of a stored memory was merged into it: this is that memory's id
            merged_into=m.merged_into or None,
            reason=f"held for review: {why}" if why else None,
        )

    @mcp.tool(
        description="Replace the content of one existing memory (it is re-embedded and"
        " re-indexed; the previous content is kept as a superseded version, see"
        " memory_history). Use it when a stored memory is outdated or wrong, e.g. the user"
        " changed jobs. The memory_id comes from memory_search or memory_write.",
        annotations=tool_annotations(
            "Update a memory", read_only=False, destructive=True, idempotent=True
        ),
    )
    async def memory_update(
        memory_id: Annotated[
            str, Field(min_length=1, max_length=64, description="The memory to change.")
        ],
        content: Annotated[
            str,
            Field(
                min_length=1,
                max_length=max_chars,
                description="The complete new content; it replaces the old content entirely.",
            ),
        ],
    ) -> UpdateResult:
        user = ctx.caller()
        with tool_errors():
            m = await ctx.run(svc.update, user, memory_id, content, tool="memory_update")
        if m.status == Status.QUARANTINED:
            # The firewall held the new content: the old version stays current until an
            # operator approves this pending one, so the caller must not think it changed.
            with tool_errors():
                why = (await ctx.run(svc.hold_reasons, user, [m.id]))[m.id]
            return UpdateResult(
                memory_id=memory_id,
                updated=False,
                status=m.status.value,
                pending_id=m.id,
                reason="the new content is held for review; the current version is unchanged:"
                f" {why}",
            )
        return UpdateResult(
            memory_id=m.id,
            updated=True,
            content=m.content,
            summary=m.summary,
            updated_at=m.updated_at.isoformat(),
        )

    @mcp.tool(
        description="Permanently delete memories, either one by memory_id or all memories"
        " similar to a query. Call it when the user asks you to forget something. Give exactly"
        " one of memory_id or query; with query, try dry_run=true first to see what would go."
        " Returns what was deleted so you can tell the user.",
        annotations=tool_annotations(
            "Forget memories", read_only=False, destructive=True, idempotent=True
        ),
    )
    async def memory_forget(
        memory_id: Annotated[
            str | None, Field(max_length=64, description="Delete exactly this memory.")
        ] = None,
        query: Annotated[
            str | None,
            Field(
                max_length=max_chars,
                description="Delete the memories about this (cosine similarity ≥ threshold).",
            ),
        ] = None,
        threshold: Annotated[
            float | None,
            Field(
                gt=0,
                le=1,
                description="Similarity a memory needs to match query (default 0.75);"
                " higher deletes less.",
            ),
        ] = None,
        limit: Annotated[
            int, Field(ge=1, le=MAX_IDS, description="At most this many memories (with query).")
        ] = 10,
        dry_run: Annotated[
            bool, Field(description="With query: only list what would be deleted.")
        ] = False,
    ) -> ForgetResult:
        user = ctx.caller()
        if (memory_id is None) == (query is None):
            raise ToolError("memory_id: give exactly one of memory_id or query")
        with tool_errors():
            if memory_id is not None:
                m = await ctx.run(svc.get, user, memory_id)
                if not dry_run:
                    await ctx.run(svc.forget, user, [m.id])
                matched = [m]
            else:
                matched = await ctx.run(
                    svc.forget_by_query,
                    user,
                    query,
                    threshold=threshold,
                    limit=limit,
                    dry_run=dry_run,
                )
        items = [
            ForgottenMemory(memory_id=m.id, content=m.content, memory_type=m.memory_type.value)
            for m in matched
        ]
        return ForgetResult.model_validate(
            {
                ("would_delete" if dry_run else "deleted"): items,
                "count": len(items),
                "dry_run": dry_run,
            }
        )

    @mcp.tool(
        description="Hand over raw conversation turns and let graphmem decide what is worth"
        " keeping: an explicit 'remember ...', a preference, key task data (deadlines,"
        " appointments), a dated event, or a new person/place/thing become typed, summarised"
        " memories; an explicit 'forget ...' deletes the matching memories; small talk,"
        " questions and assistant turns are skipped. Rules, no LLM. Returns one decision per"
        " turn with its reason and the memory ids written or deleted.",
        annotations=tool_annotations("Observe conversation", read_only=False, destructive=True),
    )
    async def memory_observe(
        turns: Annotated[
            list[str | dict[str, str]],
            Field(
                min_length=1,
                max_length=MAX_OBSERVE_TURNS,
                description='Turns oldest first: strings (user turns) or {"role": "user" |'
                ' "assistant", "content": "..."} objects.',
            ),
        ],
        session_id: Annotated[
            str | None,
            Field(max_length=128, description="The conversation they came from, if tracked."),
        ] = None,
        dry_run: Annotated[
            bool, Field(description="Only decide: write and delete nothing.")
        ] = False,
        agent_id: Annotated[
            str | None,
            Field(
                min_length=1,
                max_length=SCOPE_MAX,
                description="The agent the memories written belong to.",
            ),
        ] = None,
        run_id: Annotated[
            str | None,
            Field(
                min_length=1,
                max_length=SCOPE_MAX,
                description="The run the memories written belong to.",
            ),
        ] = None,
        metadata: Annotated[
            dict[str, Any] | None,
            Field(
                description="A small JSON object (≤16 KiB) stored with every memory written,"
                ' e.g. {"project": "Atlas"}.'
            ),
        ] = None,
    ) -> ObserveResult:
        user = ctx.caller()
        with tool_errors():
            decisions = await ctx.run(
                svc.observe,
                user,
                turns,
                session_id=session_id,
                dry_run=dry_run,
                agent_id=agent_id,
                run_id=run_id,
                metadata=metadata,
                tool="memory_observe",
            )
        return ObserveResult.model_validate(
            {"decisions": [d.to_dict() for d in decisions], "dry_run": dry_run}
        )

    @mcp.tool(
        description="Summarise the given memories into a short text, e.g. to brief yourself"
        " on several hits at once. Extractive (each memory's first sentence) unless the"
        " operator configured an LLM. Ids that don't exist are listed under 'missing', ids"
        " held in quarantine pending review under 'quarantined' (their content is withheld).",
        annotations=tool_annotations(
            "Summarise memories", read_only=True, idempotent=True, open_world=llm_on
        ),
    )
    async def memory_summarize(
        memory_ids: Annotated[
            list[Annotated[str, Field(min_length=1, max_length=64)]],
            Field(min_length=1, max_length=MAX_IDS, description="The memories to summarise."),
        ],
    ) -> SummaryResult:
        user = ctx.caller()
        with tool_errors():
            found, missing, held = await fetch(ctx, user, memory_ids)
        if not found:
            if held:
                raise ToolError(
                    f"memory_ids: {held} quarantined, pending review (content withheld);"
                    f" missing: {missing}"
                )
            raise ToolError(f"memory_ids: none of these exist for this user: {missing}")
        texts = [m.content for m in found]
        out: dict[str, Any] = {"memory_ids": [m.id for m in found], "missing": missing}
        if held:
            out["quarantined"] = held
        if llm_on:
            try:
                out["summary"] = await ctx.run(_llm_summary, texts, ctx.service.settings.llm)
                out["method"] = "llm"
                return SummaryResult.model_validate(out)
            except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
                log.warning("LLM summary failed, using the extractive one: %s", e)
                out["llm_error"] = f"{type(e).__name__}: {e}"[:300]
        out["summary"] = summarize_many(texts)
        out["method"] = "extractive"
        return SummaryResult.model_validate(out)


def _llm_summary(texts: list[str], llm: LlmSettings) -> str:
    """One call to an OpenAI-compatible chat-completions endpoint; raises on any failure."""
    from graphmem.infra.llm import complete

    if not llm.url:
        raise ValueError("no LLM endpoint configured")
    return complete(
        llm.url,
        llm.model,
        llm.api_key.get_secret_value() if llm.api_key else None,
        "Summarise the user's memories below in at most three sentences."
        " Use only what they say; do not add facts.",
        "\n".join(f"{i}. {t}" for i, t in enumerate(texts, 1)),
        timeout=llm.timeout_seconds,
    )


__all__ = ["register"]
