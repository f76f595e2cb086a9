"""Who performs an operation, as the audit log and the permission checks see it.

Interfaces set `current_actor` (the MCP server per tool call from the caller's token, the CLI
once as the local operator), so that audit rows written deep in a use-case can say who acted
without every signature in between carrying it. Tokens themselves live with the MCP server
(graphmem.mcp.identity); the core only needs the label and the role.
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass
from typing import Literal

Role = Literal["agent", "operator"]
ROLES: tuple[Role, ...] = ("agent", "operator")


@dataclass(frozen=True)
class Actor:
    """A label (a token's label, "stdio" or "cli"; never a secret) and a role. `operator` may
    also approve or reject quarantined memories: a writer that could approve its own
    quarantined writes would make the memory firewall advisory."""

    label: str
    role: Role = "agent"

    @property
    def is_operator(self) -> bool:
        return self.role == "operator"


# The local command line is run by whoever owns the data directory: an operator.
CLI = Actor("cli", "operator")

# The caller of the operation under way. Context variables follow a call into worker threads.
current_actor: contextvars.ContextVar[Actor | None] = contextvars.ContextVar(
    "graphmem_actor", default=None
)


def audit_by() -> dict[str, str]:
    """The audit field naming who acted (a token label, "stdio" or "cli"), when an interface
    said; in-process callers add nothing."""
    actor = current_actor.get()
    return {"by": actor.label} if actor is not None else {}


__all__ = ["CLI", "ROLES", "Actor", "Role", "audit_by", "current_actor"]
