"""Short extractive summaries: no LLM needed, deterministic, at most 50 characters."""

from __future__ import annotations

import re

MAX_SUMMARY = 50
_SENTENCE_END = re.compile(r"(?<=[.!?。！？；;])\s*")


def summarize(text: str, limit: int = MAX_SUMMARY) -> str:
    """The first sentence, cut at a word boundary with an ellipsis if it is too long."""
    text = " ".join(text.split())
    first = _SENTENCE_END.split(text, maxsplit=1)[0] or text
    if len(first) <= limit:
        return first
    cut = first[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"


def summarize_many(texts: list[str], limit: int = 400) -> str:
    """A summary of several memories: each one's first sentence, joined, within `limit`."""
    parts: list[str] = []
    used = 0
    for t in texts:
        s = summarize(t, limit=120)
        if used + len(s) + 2 > limit:
            break
        parts.append(s)
        used += len(s) + 2
    return "; ".join(parts)
