"""`chat`: conversation exports of ChatGPT and Claude, read through memory_observe's policy.

ChatGPT's `conversations.json` is a list of conversations, each with `id`, `title` and a
`mapping` of message nodes (`message.author.role`, `message.content.parts`, `parent`) whose
`current_node` ends the branch the user last saw; that branch, followed back to its root, is
the conversation. Claude's export is a list of conversations with `uuid`, `name` and
`chat_messages` (`uuid`, `sender` human / assistant, `text` or `content[].text`). Either file
(or a folder holding a conversations.json) is read; nothing is written here: the use case
passes each conversation's turns to graphmem.usecases.turns.observe, which keeps only what its
rules name (preferences, task data, dated events, new entities, explicit requests).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from graphmem.errors import InvalidInputError
from graphmem.importers.base import (
    BadRecord,
    ImportedConversation,
    ImportedTurn,
    Record,
    read_json,
)

_ROLES = {"user": "user", "human": "user", "assistant": "assistant", "system": "system"}


def _parts_text(content: Any) -> str:
    """The text of a ChatGPT message's content (text parts only; images and code runs not)."""
    if not isinstance(content, dict):
        return ""
    parts = content.get("parts") or []
    return "\n".join(p for p in parts if isinstance(p, str)).strip()


def chatgpt_turns(conv: dict[str, Any]) -> list[ImportedTurn]:
    """The branch ending at current_node, oldest first (or every message by time without it)."""
    mapping = conv.get("mapping")
    if not isinstance(mapping, dict):
        return []
    chain: list[dict[str, Any]] = []
    node_id = conv.get("current_node")
    seen: set[str] = set()
    while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        node = mapping[node_id]
        chain.append(node)
        node_id = node.get("parent") if isinstance(node, dict) else None
    if not chain:
        nodes = [n for n in mapping.values() if isinstance(n, dict)]
        chain = sorted(nodes, key=lambda n: (n.get("message") or {}).get("create_time") or 0)
    else:
        chain.reverse()
    out: list[ImportedTurn] = []
    for node in chain:
        msg = node.get("message")
        if not isinstance(msg, dict):
            continue
        role = _ROLES.get(str((msg.get("author") or {}).get("role", "")).lower())
        text = _parts_text(msg.get("content"))
        if role and text:
            out.append(ImportedTurn(str(msg.get("id") or node.get("id")), role, text))
    return out


def claude_turns(conv: dict[str, Any]) -> list[ImportedTurn]:
    out: list[ImportedTurn] = []
    for i, msg in enumerate(conv.get("chat_messages") or []):
        if not isinstance(msg, dict):
            continue
        role = _ROLES.get(str(msg.get("sender", "")).lower())
        raw = msg.get("text")
        text: str = raw if isinstance(raw, str) else ""
        if not text.strip():
            blocks = msg.get("content") or []
            text = "\n".join(
                b["text"] for b in blocks if isinstance(b, dict) and isinstance(b.get("text"), str)
            )
        if role and text.strip():
            out.append(ImportedTurn(str(msg.get("uuid") or i), role, text.strip()))
    return out


class ChatImporter:
    name = "chat"
    description = "ChatGPT or Claude conversations.json, through memory_observe's policy"
    remote = False

    def read(self, location: str) -> Iterator[Record]:
        source = Path(location)
        if source.is_dir():
            source = source / "conversations.json"
        data = read_json(source)
        if not isinstance(data, list):
            raise InvalidInputError(str(source), "must be a list of conversations")
        for i, conv in enumerate(data):
            where = f"conversations[{i}]"
            if not isinstance(conv, dict):
                yield BadRecord(where, "record", "must be a JSON object")
                continue
            if "mapping" in conv:
                cid, title, turns = (
                    conv.get("id") or conv.get("conversation_id"),
                    conv.get("title"),
                    chatgpt_turns(conv),
                )
            elif "chat_messages" in conv:
                cid, title, turns = conv.get("uuid"), conv.get("name"), claude_turns(conv)
            else:
                yield BadRecord(where, "mapping", "is neither a ChatGPT nor a Claude conversation")
                continue
            if not isinstance(cid, str) or not cid:
                yield BadRecord(where, "id", "must be a non-empty string")
                continue
            yield ImportedConversation(cid, turns, title if isinstance(title, str) else "")
