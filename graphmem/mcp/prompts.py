"""What graphmem tells the model: the server's instructions (sent when a client connects) and
the `memory_guidance` prompt with the full rules. The tools' own descriptions say the rest."""

from fastmcp import FastMCP

GUIDANCE = """\
You have a long-term memory about the user, reached through the graphmem tools. Use it like
this:

1. Search before you answer anything about the past. When a question depends on what the user
   told you before - who they are, their preferences, people and projects they mentioned,
   earlier decisions, events, open tasks - call memory_search first, with the key names and
   nouns of the question. Add memory_type or time_range (e.g. "7d") when the question names a
   kind of thing or a period. Search again with other words if the first search misses.
2. Write personal facts, preferences and events when they appear. When the user states
   something lasting about themselves or their world (a fact), how they like things done
   (a preference), something that happened or is planned at a time (an event), or a commitment
   (a task), call memory_write with one self-contained sentence that says who, what and when,
   and the matching memory_type. Do not store small talk, passwords or other secrets, or what
   only matters for this turn.
3. Keep memory correct. If a stored memory turns out to be outdated or wrong, memory_update it.
   If the user asks you to forget something, memory_forget it and tell them what was deleted.
   When the user asks what you know about them, page through memory_list rather than guessing
   search terms; memory_get re-reads memories by id.
4. Never pretend to remember. Only state what a memory_search hit actually says. If nothing
   relevant comes back, say you do not have that in memory and ask - do not guess, and do not
   fill gaps with plausible details.
5. Keep this conversation's working memory current: working_memory_get at the start of a
   session, working_memory_set with the task context, a one-line summary of each turn and the
   names, numbers and preferences that come up.
"""

INSTRUCTIONS = (
    "graphmem: long-term and working memory for this user. Search memory (memory_search)"
    " before answering anything about the past; write personal facts, preferences, events and"
    " tasks (memory_write) when they appear; never pretend to remember - if a search finds"
    " nothing, say so. The prompt 'memory_guidance' has the full rules."
)


def register(mcp: FastMCP) -> None:
    @mcp.prompt(
        name="memory_guidance",
        description="How to use graphmem: search before answering about the past, write"
        " personal facts/preferences/events as they appear, never pretend to remember.",
    )
    def memory_guidance() -> str:
        return GUIDANCE


__all__ = ["GUIDANCE", "INSTRUCTIONS", "register"]
