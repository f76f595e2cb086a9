"""Shared document libraries: documents many users read, owned by none of them.

A library is a tenant of its own, `library:<name>`: its documents are records under that id,
isolated from every user exactly as users are from each other (the same per-tenant filters
in every store). A user reads a library only through a grant (`library_readers`), and only
its documents: a search of a user with grants runs once for the user and once per library,
each inside its own tenant, and the hits are ranked together. Writing to a library, granting
and revoking are an operator's acts (the CLI, or an operator token over MCP).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from graphmem.domain.associative import Step, seed_relevance
from graphmem.domain.model import Hit, Kind, check_user
from graphmem.domain.requests import SearchRequest, SearchResult
from graphmem.errors import InvalidInputError
from graphmem.usecases.erase import ErasureReceipt, erase_user
from graphmem.usecases.ports import ChangePorts, ErasePorts, RecordsPorts

PREFIX = "library:"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def tenant(name: str) -> str:
    """The tenant id of library `name`, checked: 1-64 letters, digits, '.', '_' or '-'."""
    if not isinstance(name, str) or not _NAME.match(name.strip()):
        raise InvalidInputError(
            "library",
            f"{str(name)[:70]!r} is not a library name: 1-64 letters, digits, '.', '_' or '-',"
            " starting with a letter or digit",
        )
    return PREFIX + name.strip()


def name_of(tenant_id: str) -> str | None:
    """The library name of a tenant id, or None for a user."""
    return tenant_id[len(PREFIX) :] if tenant_id.startswith(PREFIX) else None


def check_reader(user_id: str) -> str:
    """A user who may be granted a library: not itself a library."""
    if user_id.startswith(PREFIX):
        raise InvalidInputError("user_id", "a library cannot be given read access to a library")
    return user_id


def owner(user_id: str, library: str | None) -> str:
    """Whose documents a call reads or writes: `user_id`'s own, or the shared `library`'s."""
    return tenant(library) if library else check_user(user_id)


def granted(ctx: RecordsPorts, user_id: str) -> list[str]:
    """The libraries `user_id` may read."""
    ids = ctx.records.libraries_of(check_user(user_id))
    return [n for n in (name_of(i) for i in ids) if n]


def readers(ctx: RecordsPorts, name: str) -> list[str]:
    """The users granted library `name`."""
    return ctx.records.library_readers(tenant(name))


def delete(ctx: ErasePorts, name: str, requested_by: str) -> ErasureReceipt:
    """Erase a library: its documents from every store and every grant to it."""
    return erase_user(ctx, tenant(name), requested_by)


def grant(ctx: ChangePorts, name: str, user_id: str) -> bool:
    lib = tenant(name)
    added = ctx.records.grant_library(lib, check_reader(user_id))
    ctx.invalidate(user_id)  # the reader's cached searches did not include the library
    ctx.records.audit(user_id, "library_grant", [], {"library": name_of(lib)})
    return added


def revoke(ctx: ChangePorts, name: str, user_id: str) -> bool:
    lib = tenant(name)
    removed = ctx.records.revoke_library(lib, user_id)
    ctx.invalidate(user_id)
    ctx.records.audit(user_id, "library_revoke", [], {"library": name_of(lib)})
    return removed


def readable(ctx: RecordsPorts, user_id: str, request: SearchRequest) -> list[str]:
    """The library tenants a search of `user_id` also reads: those granted, unless the
    search asked for memories only."""
    kinds = request.memory_filter().kinds
    if kinds is not None and Kind.DOCUMENT.value not in kinds:
        return []
    if user_id.startswith(PREFIX):
        return []
    return ctx.records.libraries_of(user_id)


def library_request(request: SearchRequest) -> SearchRequest:
    """The part of a user's search a library answers: its documents, no access counting
    (a reader's searches must not change what other readers see ranked by frequency)."""
    return replace(request, kinds=Kind.DOCUMENT.value, track_access=False)


def merged(results: list[SearchResult], top_k: int) -> SearchResult:
    """Hits of the user's and the libraries' searches ranked together by final score."""
    hits: list[Hit] = [h for r in results for h in r.hits]
    hits.sort(key=lambda h: (-h.score, h.memory.id))
    degraded = sorted({d for r in results for d in r.degraded})
    return SearchResult(hits=hits[:top_k], took_ms=0.0, degraded=degraded)


@dataclass(frozen=True)
class Bridged:
    """A library chunk reached from one of the reader's own hits through an entity both
    mention: the one-step path and its graph score."""

    step: Step
    score: float


def bridges(
    ctx: RecordsPorts, user_id: str, seeds: list[Hit], shared: list[str]
) -> dict[str, dict[str, Bridged]]:
    """Per library, the chunks that mention an entity the reader's best hits mention.

    A library's graph is its own tenant's, so no edge joins it to a reader's memories; the
    join is made here, per search, on entity names: "I am analysing Huadong Hospital Group"
    reaches the library page that names the group, with the path saying so. Named entities
    only (people, organisations, places, things), not topics. Scored as one
    `mentions` hop from the seed (its relevance times the relation's weight)."""
    s = ctx.settings
    if not seeds or not shared:
        return {}
    relevance = seed_relevance({h.memory.id: h.score for h in seeds}, s.graph.seed_sharpness)
    weight = s.graph.relation_weights.get("mentions", 1.0)
    by_key: dict[str, tuple[str, float]] = {}  # entity key -> (best seed, its relevance)
    for mid, refs in ctx.records.entities_for(user_id, list(relevance)).items():
        for ref in refs:
            if ref.entity_type == "topic":
                continue  # a common noun ("bonds") would join half a library to any reader
            if ref.key not in by_key or relevance[mid] > by_key[ref.key][1]:
                by_key[ref.key] = (mid, relevance[mid])
    if not by_key:
        return {}
    out: dict[str, dict[str, Bridged]] = {}
    for lib in shared:
        found: dict[str, Bridged] = {}
        for key, chunk_ids in ctx.records.mentions_of(lib, list(by_key), s.graph.fanout).items():
            seed, rel = by_key[key]
            for cid in chunk_ids:
                score = rel * weight
                if cid not in found or score > found[cid].score:
                    found[cid] = Bridged(Step(seed, "mentions", cid, weight), score)
        best = sorted(found.items(), key=lambda kv: (-kv[1].score, kv[0]))
        if best:
            out[lib] = dict(best[: s.graph.candidates])
    return out
