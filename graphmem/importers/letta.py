"""`letta`: a Letta agent file (`.af`), the JSON Letta exports an agent to.

The current schema (letta `AgentFileSchema`) has top-level `agents` (each with `name` and the
`block_ids` it uses) and `blocks` (`id`, `label`, `value`); older files hold each agent's
`core_memory` (or `memory_blocks`) inline. Archival memory is exported as `passages` (`id`,
`text`, `created_at`) where present, top-level or per agent. A block is the agent's always-in-
context memory, so it becomes a pinned memory (`metadata.pinned`, `metadata.letta_block` its
label) scoped to the agent; a passage an ordinary memory. Letta's agent name is the agent_id.
Messages, tools and the system prompt are not memories and are left out.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from graphmem.errors import InvalidInputError
from graphmem.importers.base import BadRecord, ImportedMemory, Record, read_json, text_field


def _agents(data: Any) -> list[dict[str, Any]]:
    if isinstance(data, dict) and isinstance(data.get("agents"), list):
        return [a for a in data["agents"] if isinstance(a, dict)]
    if isinstance(data, dict) and ("core_memory" in data or "memory_blocks" in data):
        return [data]  # an old single-agent file
    return []


class LettaImporter:
    name = "letta"
    description = "a Letta agent file (.af): blocks and archival passages"
    remote = False

    def read(self, location: str) -> Iterator[Record]:
        source = Path(location)
        data = read_json(source)
        agents = _agents(data)
        if not agents and not (isinstance(data, dict) and "blocks" in data):
            raise InvalidInputError(str(source), "is not a Letta agent file (no agents or blocks)")
        shared = {
            b.get("id"): b
            for b in (data.get("blocks") or [])
            if isinstance(b, dict) and b.get("id") is not None
        }
        used: set[Any] = set()
        for n, agent in enumerate(agents):
            name = agent.get("name") if isinstance(agent.get("name"), str) else None
            label = name.strip() if name and name.strip() else f"agent-{n}"
            blocks = [shared[b] for b in agent.get("block_ids") or [] if b in shared]
            used.update(b for b in agent.get("block_ids") or [] if b in shared)
            blocks += [b for k in ("core_memory", "memory_blocks") for b in agent.get(k) or []]
            for i, block in enumerate(blocks):
                yield from self._block(f"agents[{n}].blocks[{i}]", block, label)
            for i, p in enumerate(agent.get("passages") or []):
                yield self._passage(f"agents[{n}].passages[{i}]", p, label)
        for bid, block in shared.items():  # blocks no agent names: kept without an agent
            if bid not in used:
                yield from self._block(f"blocks[{bid}]", block, None)
        for i, p in enumerate(data.get("passages") or [] if isinstance(data, dict) else []):
            yield self._passage(f"passages[{i}]", p, None)

    def _block(self, where: str, block: Any, agent: str | None) -> Iterator[Record]:
        label = text_field(block, "label", where)
        if isinstance(label, BadRecord):
            yield label
            return
        value = block.get("value")
        if value is None or (isinstance(value, str) and not value.strip()):
            return  # an empty block holds nothing to keep
        if not isinstance(value, str):
            yield BadRecord(f"{where} ({label})", "value", "must be a string")
            return
        yield ImportedMemory(
            f"block:{agent or ''}:{label}",
            value.strip(),
            metadata={"pinned": True, "letta_block": label},
            agent_id=agent,
        )

    def _passage(self, where: str, passage: Any, agent: str | None) -> Record:
        text = text_field(passage, "text", where)
        if isinstance(text, BadRecord):
            return text
        pid = passage.get("id")
        return ImportedMemory(
            f"passage:{pid}" if isinstance(pid, str) and pid else f"passage:{agent}:{text}",
            text,
            created_at=passage.get("created_at") or None,
            agent_id=agent,
        )
