"""`graphmem compact`: one pass over the store that applies the lifecycle rules.

In storage order, batch by batch: purge expired memories (through forget, so every store is
reached), give rows written before TTLs existed their expiry and summary, recompute decay,
archive the stale, and merge near-duplicates that say the same thing (`lifecycle.mergeable`,
the rule merge-on-write uses: no number, date, time, name or negation differs). Merge
candidates come from the vector index (each active memory's few nearest neighbours,
tenant-filtered), never from comparing all pairs, so the job is linear in the number of
memories.

Idempotent: a second run right after the first changes nothing (decay is only rewritten when it
moved by at least DECAY_EPSILON). `dry_run` computes the same decisions and changes nothing.
The server can run it periodically (`compact_interval_seconds`); otherwise run it from cron.

Incremental: a run over every user records when it started (`store_meta`, with the merge
settings it used). The next such run asks the vector index for merge neighbours only around
memories written or changed since then (a restore, an update or a merge changes `updated_at`):
two memories that were not mergeable then, and neither of which changed, still are not. The
neighbour queries are nearly all of a full run's cost; expiry, decay and archiving still look at
every row, since they depend on the time. The one case this leaves for a full run: a deletion
that moves an unchanged duplicate into an unchanged memory's nearest few. `full=True` (`graphmem
compact --full`) checks every memory, as does any run after the merge settings changed.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graphmem.domain import lifecycle
from graphmem.domain.model import Memory, Status, utcnow
from graphmem.domain.summary import MAX_SUMMARY, summarize
from graphmem.errors import BusyError
from graphmem.infra import workers
from graphmem.usecases.merge import duplicates_of, merge
from graphmem.usecases.ports import MergePorts, UpkeepPorts
from graphmem.usecases.update import forget, set_status

log = logging.getLogger("graphmem.compaction")

DECAY_EPSILON = 0.01
BATCH = 1000
MAX_LISTED = 1000
WATERMARK_META = "compact_watermark"


@dataclass
class CompactionReport:
    scanned: int = 0
    expired: int = 0
    archived: int = 0
    merged: int = 0  # memories folded into a survivor
    merge_groups: int = 0
    decay_updated: int = 0
    filled: int = 0  # rows given a missing expiry or summary
    dry_run: bool = False
    # memories whose merge neighbours were looked up (every active one in a full run)
    merge_checked: int = 0
    incremental: bool = False
    took_s: float = 0.0
    changes: list[dict[str, Any]] = field(default_factory=list)  # dry run: what would change

    def note(self, **change: Any) -> None:
        if self.dry_run and len(self.changes) < MAX_LISTED:
            self.changes.append(change)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


COMPACTOR_LOCK = "compactor"  # one name for every replica


def compact(
    ctx: UpkeepPorts,
    *,
    user_id: str | None = None,
    now: datetime | None = None,
    dry_run: bool = False,
    progress: Callable[[int], None] | None = None,
    batch: int = BATCH,
    full: bool = False,
) -> CompactionReport:
    """Merge, archive, expire and recompute decay over one user's memories or everyone's;
    merge candidates only around what changed since the last run over everyone, unless
    `full` (module docstring).

    One compaction at a time across every replica of the records store: two would merge the
    same duplicates twice and move the watermark under each other. A second one started
    meanwhile fails at once with BusyError (the periodic one skips its turn)."""
    with ctx.records.locks.hold(COMPACTOR_LOCK, 0):
        return _compact(
            ctx,
            user_id=user_id,
            now=now,
            dry_run=dry_run,
            progress=progress,
            batch=batch,
            full=full,
        )


def _compact(
    ctx: UpkeepPorts,
    *,
    user_id: str | None,
    now: datetime | None,
    dry_run: bool,
    progress: Callable[[int], None] | None,
    batch: int,
    full: bool,
) -> CompactionReport:
    start = time.perf_counter()
    started = utcnow()
    now = now or started
    s = ctx.settings
    rep = CompactionReport(dry_run=dry_run)
    since = None if full else _watermark(ctx)
    rep.incremental = since is not None
    ctx.drain_outbox()  # the index must hold every memory before it is asked for neighbours
    ctx.access.flush()  # decay counts every access made so far
    folded: set[str] = set()  # merged away (or about to be, in a dry run)
    after = 0
    while True:
        page = ctx.records.scan(after, batch, user_id)
        if not page:
            break
        after = page[-1][0]
        rows = [m for _, m in page if m.id not in folded]
        rep.scanned += len(page)
        expired: dict[str, list[str]] = {}
        archive: dict[str, list[str]] = {}
        updates: list[tuple[str, str, float, datetime | None, str]] = []
        live: list[Memory] = []
        for m in rows:
            fill = (
                m.expires_at is None and s.lifecycle.ttl_hours.get(m.memory_type.value) is not None
            )
            if fill:  # written before TTLs existed: it lives TTL from its last write
                m.expires_at = lifecycle.expiry(m.memory_type.value, m.updated_at, s)
                rep.filled += 1
            summary = m.summary
            if not summary or len(summary) > MAX_SUMMARY:
                summary = summarize(m.content)
                rep.filled += 1
            if lifecycle.is_expired(m, now):
                expired.setdefault(m.user_id, []).append(m.id)
                rep.note(
                    action="expire",
                    user_id=m.user_id,
                    memory_id=m.id,
                    expires_at=m.expires_at.isoformat() if m.expires_at else None,
                )
                continue
            # Only active memories decay: an archived one keeps the score it was archived with
            # (archiving is not a use), and gets a fresh one when it is restored.
            decay = lifecycle.decay_score(m, now, s) if m.status == Status.ACTIVE else m.decay_score
            if abs(decay - m.decay_score) >= DECAY_EPSILON or summary != m.summary or fill:
                updates.append((m.user_id, m.id, decay, m.expires_at, summary))
                rep.decay_updated += abs(decay - m.decay_score) >= DECAY_EPSILON
            if lifecycle.should_archive(m, decay, now, s):
                archive.setdefault(m.user_id, []).append(m.id)
                rep.note(action="archive", user_id=m.user_id, memory_id=m.id, decay=decay)
            elif m.status == Status.ACTIVE:
                live.append(m)
        rep.expired += sum(len(v) for v in expired.values())
        rep.archived += sum(len(v) for v in archive.values())
        if since is not None:
            live = [m for m in live if m.updated_at >= since or m.created_at >= since]
        rep.merge_checked += len(live)
        groups = _merge_groups(ctx, live, folded, now)
        for members in groups:
            survivor, *losers = lifecycle.merge_order(members)
            rep.merge_groups += 1
            rep.merged += len(losers)
            rep.note(
                action="merge",
                user_id=survivor.user_id,
                survivor=survivor.id,
                merged=[m.id for m in losers],
            )
        if not dry_run:
            ctx.records.set_lifecycle(updates)
            for uid, ids in expired.items():
                forget(ctx, uid, ids, reason="expire")
            for uid, ids in archive.items():
                set_status(ctx, uid, ids, Status.ARCHIVED, Status.ACTIVE)
            for members in groups:
                merge(ctx, members[0].user_id, members)
        if progress:
            progress(len(page))
    rep.took_s = round(time.perf_counter() - start, 3)
    if not dry_run and user_id is None:
        ctx.records.set_meta(
            WATERMARK_META, json.dumps({"at": started.isoformat(), "merge": _merge_rules(ctx)})
        )
    if not dry_run:
        ctx.records.audit(
            user_id or "*",
            "compact",
            [],
            {k: v for k, v in rep.to_dict().items() if k != "changes"},
        )
    return rep


def _merge_rules(ctx: MergePorts) -> list[float]:
    """The settings a merge decision depends on: a watermark is only valid under the same."""
    return [ctx.merge_similarity, float(ctx.settings.lifecycle.merge_neighbours)]


def _watermark(ctx: MergePorts) -> datetime | None:
    """When the last compaction over every user started, if it used today's merge rules."""
    raw = ctx.records.meta(WATERMARK_META)
    if not raw:
        return None
    try:
        mark = json.loads(raw)
        if mark.get("merge") != _merge_rules(ctx):
            return None
        return datetime.fromisoformat(mark["at"])
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def _merge_groups(
    ctx: MergePorts, live: list[Memory], folded: set[str], now: datetime
) -> list[list[Memory]]:
    """Near-duplicate groups around each live memory, from its nearest neighbours in the index.

    A memory joins at most one group (`folded` carries that across batches), and every member
    is within `merge_similarity` of the memory the group was found from.
    """
    live = [m for m in live if m.id not in folded]
    if not live:
        return []
    vecs = ctx.vectors.vectors([m.id for m in live])
    groups: list[list[Memory]] = []
    for m in live:
        if m.id in folded or m.id not in vecs:
            continue
        dups = [d for d, _ in duplicates_of(ctx, m.user_id, m.id, vecs[m.id]) if d not in folded]
        if not dups:
            continue
        rows = ctx.records.get(m.user_id, dups)
        members = [
            m,
            *(rows[d] for d in dups if d in rows and lifecycle.mergeable(m, rows[d], now)),
        ]
        if len(members) < 2:
            continue
        folded.update(x.id for x in members)
        groups.append(members)
    return groups


def progress_bar(total: int, quiet: bool) -> Any:
    from tqdm import tqdm

    return tqdm(
        total=total,
        unit="mem",
        desc="compact",
        file=sys.stderr,
        disable=quiet or not sys.stderr.isatty(),
    )


class PeriodicCompactor(workers.Periodic):
    """Runs `compact` every `interval` seconds in a daemon thread inside the server."""

    def __init__(self, ctx: UpkeepPorts, interval: float) -> None:
        super().__init__("compact", interval, self._compact)
        self.ctx = ctx
        self.last: CompactionReport | None = None

    def _compact(self) -> None:
        try:
            self.last = compact(self.ctx)
        except BusyError:
            log.info("compaction skipped: another replica is compacting")
            return
        log.info("compaction: %s", {k: v for k, v in self.last.to_dict().items() if k != "changes"})


__all__ = ["CompactionReport", "PeriodicCompactor", "compact"]
