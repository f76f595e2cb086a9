"""Reading a memory's vaulted secrets back: the owner only, on an explicit call, audited.

A memory holds `[secret:password#1]` where its owner wrote a password (graphmem.guard.policy);
search, list, get, the graph, exports and resources return that reference and nothing more.
`reveal` is the one path to the value. It checks identity exactly as reading the memory does,
so another user's token gets "not found" - the same answer as for a memory that does not exist
- and never learns whether there is a secret there. The audit row names the memory and the
references revealed, never a value.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from graphmem.domain.actor import audit_by
from graphmem.domain.model import check_user
from graphmem.domain.visibility import Viewer
from graphmem.errors import InvalidInputError
from graphmem.guard.policy import REF_RE
from graphmem.usecases.ports import VaultPorts
from graphmem.usecases.read import get


def reveal(
    ctx: VaultPorts,
    user_id: str,
    memory_id: str,
    refs: Iterable[str] | None = None,
    *,
    viewer: Viewer = Viewer.AGENT,
    tool: str | None = None,
) -> dict[str, Any]:
    """The memory's secrets as `{"memory_id", "secrets": [{"ref", "type", "value"}]}`, all of
    them or only `refs` (`[secret:password#1]` or `password#1`)."""
    user_id = check_user(user_id)
    memory_id = str(memory_id)
    mem = get(ctx, user_id, memory_id, viewer=viewer)  # NotFound for anyone but the owner
    wanted = _refs(refs)
    found = [s for s in ctx.vault.open(user_id, mem.id) if wanted is None or s.ref in wanted]
    ctx.records.audit(
        user_id,
        "reveal",
        [mem.id],
        {"refs": [s.ref for s in found], "tool": tool, **audit_by()},
    )
    return {
        "memory_id": mem.id,
        "secrets": [{"ref": s.ref, "type": s.type, "value": s.value} for s in found],
    }


def rotate_key(ctx: VaultPorts) -> dict[str, object]:
    """Re-wrap every user's data key under a new store key (graphmem.guard.vault), an
    operator's call. Under the write lock: a write meanwhile could wrap a new user's data key
    under the old store key, and that user's secrets would not open after the swap."""
    with ctx.write_lock:  # store-wide, no one user: the process's lock alone, as before
        return ctx.vault.rotate()


def _refs(refs: Iterable[str] | None) -> set[str] | None:
    if refs is None:
        return None
    if isinstance(refs, str):
        refs = [refs]
    out = set()
    for r in refs:
        text = str(r).strip()
        ref = text if text.startswith("[") else f"[secret:{text}]"
        if not REF_RE.fullmatch(ref):
            raise InvalidInputError("refs", "each must be a reference like password#1")
        out.add(ref)
    return out or None


__all__ = ["reveal", "rotate_key"]
