"""The write policy for raw conversation: which turns are worth a long-term memory.

An agent that stores every turn buries the few lasting facts under small talk. `observe` reads
conversation turns and keeps only what the seed's policy names: an explicit "remember ...", a
preference, key task data (deadlines, amounts, appointments), a dated event, or a new entity
(someone or something this user's memory has never mentioned). An explicit "forget ..." deletes
the matching memories. Everything else is skipped. Rules, not an LLM: the same turns always get
the same decisions, and every decision says why.

Only the user's turns are considered: what the assistant said is its own output, not something
the user told it. Written memories are typed, summarised (graphmem.domain.summary) and carry their
entities; they go through the write use-case (graphmem.usecases.write), so the firewall, TTLs
and merge-on-write apply to them like to any other write.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from graphmem.domain.model import check_chars, check_user, is_visible
from graphmem.domain.requests import WriteItem
from graphmem.domain.summary import summarize
from graphmem.errors import InvalidInputError
from graphmem.usecases.ports import WritePorts
from graphmem.usecases.update import forget_by_query
from graphmem.usecases.write import write_many

MAX_TURNS = 200

_FORGET = re.compile(
    r"^\s*(?:please\s+)?(?:forget|delete|erase|remove)\s+(?:(?:that|about|the fact that|"
    r"what i said about)\s+)?(?P<rest>.+)$",
    re.IGNORECASE,
)
_REMEMBER = re.compile(
    r"\b(?:remember|don'?t forget|do not forget|keep in mind|make a note|note)\b"
    r"(?:\s+(?:that|this))?\s*[:,]?\s*(?P<rest>.+)$",
    re.IGNORECASE,
)
_PREFERENCE = re.compile(
    r"\b(?:i|we)\s+(?:really\s+|usually\s+|always\s+|never\s+)?(?P<cue>like|love|prefer|"
    r"enjoy|hate|dislike|can'?t stand|don'?t like|do not like|avoid|am allergic|'m allergic|"
    r"am vegetarian|'m vegetarian|am vegan|'m vegan)\b"
    r"|\b(?P<cue2>my fav(?:ou)?rite|i'?d rather)\b",
    re.IGNORECASE,
)
_TASK = re.compile(
    r"\b(?P<cue>remind me|i need to|i have to|i must|i've got to|to-?do|deadline|due (?:on|by)"
    r"|appointment|meeting (?:at|on)|scheduled?|by (?:monday|tuesday|wednesday|thursday|friday"
    r"|saturday|sunday|tomorrow|tonight|next week|the end of))\b",
    re.IGNORECASE,
)
_EVENT = re.compile(
    r"\b(?P<cue>yesterday|last (?:week|month|year|night|weekend)|(?:i|we) (?:went|visited|moved|"
    r"started|graduated|got married|met|travel(?:l)?ed|bought|adopted|finished)|"
    r"(?:in|on|since) (?:january|february|march|april|may|june|july|august|september|october|"
    r"november|december|\d{4}))\b",
    re.IGNORECASE,
)
_SMALL_TALK = re.compile(
    r"^\s*(?:hi|hello|hey|thanks?|thank you|ok(?:ay)?|cool|great|nice|bye|good (?:morning|"
    r"night|evening)|lol|yes|no|sure)(?:\s+(?:there|all|everyone|again|so much|a lot))?"
    r"[\s!.,]*$",
    re.IGNORECASE,
)


@dataclass
class Decision:
    """What happened to one turn, and why."""

    turn: int
    action: str  # write | forget | skip
    reason: str
    memory_type: str | None = None
    summary: str | None = None
    entities: list[str] = field(default_factory=list)
    memory_ids: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def rule_id(reason: str) -> str:
    """The rule behind a decision as one word ('remember', 'preference', 'task', 'event',
    'entity'): stored in metadata, where prose would be screened like content."""
    low = reason.lower()
    return next(
        (k for k in ("remember", "preference", "task", "event", "entity") if k in low), "kept"
    )


def parse_turns(turns: Any) -> list[tuple[str, str]]:
    """(role, text) pairs from strings (user turns) or {role, content} objects."""
    if not isinstance(turns, list) or not turns:
        raise InvalidInputError("turns", "must be a non-empty list of turns")
    if len(turns) > MAX_TURNS:
        raise InvalidInputError("turns", f"at most {MAX_TURNS} turns per call")
    out: list[tuple[str, str]] = []
    for i, t in enumerate(turns):
        if isinstance(t, str):
            role, text = "user", t
        elif isinstance(t, Mapping):
            role = str(t.get("role") or "user").strip().lower()
            content = t.get("content")
            if not isinstance(content, str):
                raise InvalidInputError(f"turns[{i}].content", "must be a string")
            text = content
        else:
            raise InvalidInputError(f"turns[{i}]", "must be a string or {role, content}")
        if role not in ("user", "assistant", "system"):
            raise InvalidInputError(f"turns[{i}].role", "must be user, assistant or system")
        text = check_chars(text, f"turns[{i}]").strip()
        out.append((role, text if is_visible(text) else ""))  # invisible-only: nothing said
    return out


def is_forget_request(text: str) -> bool:
    """True for a turn `observe` reads as "forget ...": an import replays old conversations,
    and a request made then must not delete what was stored since."""
    return bool(_FORGET.match(text))


def _turn_error(e: InvalidInputError, turns: list[int]) -> InvalidInputError:
    """A write's error, renamed to the turn it came from: the caller sent turns, not items."""
    m = re.match(r"items\[(\d+)\]\.(.+)", e.field)
    j, name = (int(m.group(1)), m.group(2)) if m else (0, e.field)
    if name == "session_id":  # an argument of its own
        return InvalidInputError(name, e.message)
    return InvalidInputError(f"turns[{turns[j]}].{name}", e.message)


def _cue(m: re.Match[str]) -> str:
    return next(v for k, v in m.groupdict().items() if k.startswith("cue") and v)


def classify(text: str) -> tuple[str | None, str]:
    """(memory type or None, reason) from the cue words of one statement."""
    if m := _PREFERENCE.search(text):
        return "preference", f"states a preference ({_cue(m).lower()!r})"
    if m := _TASK.search(text):
        return "task", f"key task data ({_cue(m).lower()!r})"
    if m := _EVENT.search(text):
        return "event", f"a dated event ({_cue(m).lower()!r})"
    return None, ""


def observe(
    ctx: WritePorts,
    user_id: str,
    turns: Sequence[Any] | Any,
    *,
    session_id: str | None = None,
    dry_run: bool = False,
    tool: str | None = None,
    agent_id: str | None = None,
    run_id: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    turn_metadata: Sequence[Mapping[str, Any]] | None = None,
) -> list[Decision]:
    """Decide turn by turn; write what is kept in one batch, forget what is asked. What is
    written carries the scopes and `metadata` given, plus the rule that kept it, plus the
    turn's own entry of `turn_metadata` (one per turn: an import's id of each message)."""
    user_id = check_user(user_id)
    parsed = parse_turns(turns)
    decisions: list[Decision] = []
    keep: list[tuple[Decision, str]] = []
    texts = [t for _, t in parsed]
    extractions = ctx.extractor.extract_many(texts)
    known: set[str] = set()
    keys = sorted({k for x in extractions for k in x.keys})
    if keys:
        known = set(ctx.records.mentions_of(user_id, keys, 1))
    for i, ((role, text), ext) in enumerate(zip(parsed, extractions, strict=True)):
        names = [e.name for e in ext.entities]
        if role != "user":
            decisions.append(Decision(i, "skip", f"said by the {role}; only user turns are kept"))
            continue
        if not text or _SMALL_TALK.match(text):
            decisions.append(Decision(i, "skip", "small talk"))
            continue
        if m := _FORGET.match(text):
            rest = m.group("rest").strip().rstrip(".!")
            try:
                found = forget_by_query(ctx, user_id, rest, limit=10, dry_run=dry_run)
            except InvalidInputError as e:
                raise InvalidInputError(f"turns[{i}]", e.message) from None
            gone = [x.id for x in found]
            decisions.append(
                Decision(
                    i,
                    "forget",
                    "explicit forget request" + ("" if gone else ": nothing similar enough stored"),
                    memory_ids=gone,
                )
            )
            continue
        content, reason, mtype = text, "", None
        if m := _REMEMBER.search(text):
            content = m.group("rest").strip()
            if not is_visible(content):
                decisions.append(Decision(i, "skip", "a remember request with nothing to keep"))
                continue
            content = content[:1].upper() + content[1:]
            mtype, why = classify(content)
            reason = "explicit remember request" + (f"; {why}" if why else "")
        elif text.rstrip().endswith("?"):
            decisions.append(Decision(i, "skip", "a question: nothing stated to keep"))
            continue
        else:
            mtype, reason = classify(text)
            new = [e.name for e in ext.entities if e.key not in known]
            if mtype is None and new:
                mtype, reason = "fact", f"new entity: {', '.join(new[:3])}"
        if not reason:
            decisions.append(
                Decision(
                    i, "skip", "no new entity, preference, task data, event or explicit request"
                )
            )
            continue
        known.update(ext.keys)  # a second mention in this batch is no longer new
        d = Decision(i, "write", reason, mtype or "fact", summarize(content), names)
        decisions.append(d)
        keep.append((d, content))
    if keep and not dry_run:
        items: list[WriteItem | Mapping[str, Any]] = [
            {
                "content": c,
                "memory_type": d.memory_type,
                "summary": d.summary,
                "session_id": session_id,
                "agent_id": agent_id,
                "run_id": run_id,
                # a rule id, not the sentence: metadata prose is screened like content
                "metadata": {
                    **(metadata or {}),
                    **(turn_metadata[d.turn] if turn_metadata else {}),
                    "observed": rule_id(d.reason),
                },
            }
            for d, c in keep
        ]
        try:
            written = write_many(ctx, user_id, items, tool=tool)
        except InvalidInputError as e:
            raise _turn_error(e, [d.turn for d, _ in keep]) from None
        for (d, _), mem in zip(keep, written, strict=True):
            d.memory_ids = [mem.id]
    return decisions


__all__ = ["Decision", "classify", "is_forget_request", "observe", "parse_turns"]
