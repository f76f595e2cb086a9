"""What the tool modules share: argument vocabularies, limits, annotations, error mapping and the
memory shape tools return.

Every failure a caller can fix comes back as an MCP tool error whose text starts with the field
to fix ("top_k: Input should be greater than or equal to 1"); graphmem's own errors are turned
into that form here, and anything else is left for FastMCP to log and mask, so a tool never
leaks internals.
"""

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Literal

from fastmcp.exceptions import ToolError
from mcp.types import ToolAnnotations

from graphmem.domain.relation_types import RelationName
from graphmem.domain.validation import MAX_TOP_K
from graphmem.domain.visibility import HeldForReviewError
from graphmem.errors import GraphmemError, InvalidInputError, NotFoundError, StoreUnavailableError

if TYPE_CHECKING:
    from graphmem.domain.model import Memory
    from graphmem.mcp.context import ToolContext

MemoryTypeName = Literal["fact", "preference", "event", "task"]
SourceName = Literal["user", "agent", "document", "system"]
# graphmem.domain.validation's KIND_NAMES and KIND_WORDS as a schema (tests/mcp keep them equal).
KindName = Literal["memory", "document", "image"]
KindWord = Literal["memory", "document", "image", "both"]
TIME_RANGE_PATTERN = r"^\s*[1-9]\d*\s*[mhdwyMHDWY]\s*$"
MAX_IDS = 50


def tool_annotations(
    title: str,
    *,
    read_only: bool,
    destructive: bool = False,
    idempotent: bool = False,
    open_world: bool = False,
) -> ToolAnnotations:
    """MCP's hints with every field spelled out, so a client never falls back on the spec's
    defaults (which assume a destructive, open-world tool)."""
    return ToolAnnotations(
        title=title,
        read_only_hint=read_only,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=open_world,
    )


@contextlib.contextmanager
def tool_errors() -> Iterator[None]:
    """graphmem's own errors -> MCP tool errors that name the field; everything else masked."""
    try:
        yield
    except InvalidInputError as e:
        raise ToolError(f"{e.field}: {e.message}") from None
    except NotFoundError as e:
        raise ToolError(str(e)) from None
    except StoreUnavailableError as e:
        raise ToolError(f"a store is unavailable, try again shortly ({e})") from None
    except GraphmemError as e:
        raise ToolError(str(e)) from None


def memory_dict(m: "Memory") -> dict[str, Any]:
    d = m.to_dict()
    d.pop("user_id", None)  # the caller is that user; echoing it adds nothing
    d["memory_id"] = d.pop("id")
    return d


async def fetch(
    ctx: "ToolContext", user: str, memory_ids: list[str]
) -> tuple[list["Memory"], list[str], list[str]]:
    """The caller's memories of `memory_ids` (each once, in the order asked), the ids that do
    not exist, and the ids held for review, whose content an agent may not see."""
    found: list[Memory] = []
    missing: list[str] = []
    held: list[str] = []
    for mid in dict.fromkeys(memory_ids):
        try:
            found.append(await ctx.run(ctx.service.get, user, mid))
        except HeldForReviewError:
            held.append(mid)
        except NotFoundError:
            missing.append(mid)
    return found, missing, held


__all__ = [
    "MAX_IDS",
    "MAX_TOP_K",
    "TIME_RANGE_PATTERN",
    "fetch",
    "KindName",
    "KindWord",
    "MemoryTypeName",
    "RelationName",
    "SourceName",
    "memory_dict",
    "tool_annotations",
    "tool_errors",
]
