"""The server's background jobs: periodic compaction, the outbox drain, and with replicas the
watch for another replica's erase.

One-shot CLI commands start none of them, so a long import never races a compaction;
`graphmem serve` starts them through `MemoryService.start_background`.
"""

from __future__ import annotations

from graphmem.infra import workers
from graphmem.service.context import Context
from graphmem.stores.erase_notices import WATCH_SECONDS
from graphmem.usecases.compact import PeriodicCompactor


class Jobs:
    def __init__(self, context: Context) -> None:
        self.context = context
        self.compactor: PeriodicCompactor | None = None
        self.drainer: workers.Periodic | None = None
        self.erase_watch: workers.Periodic | None = None

    def start(self) -> None:
        """Compaction every `compact_interval_seconds`, and the outbox drain every
        `outbox_drain_seconds`, so that after a store outage an idle server still catches its
        projections up instead of waiting for the next call or a restart; with replicas, the
        watch for another replica's erase (graphmem.stores.erase_notices). Each job starts
        once, however often this is called."""
        ctx = self.context
        s = ctx.settings
        if s.lifecycle.compact_interval_seconds > 0 and self.compactor is None:
            self.compactor = PeriodicCompactor(ctx, s.lifecycle.compact_interval_seconds).start()
        if s.writes.outbox_drain_seconds > 0 and self.drainer is None:
            self.drainer = workers.Periodic(
                "outbox", s.writes.outbox_drain_seconds, lambda: ctx.drain_outbox(force=False)
            ).start()
        watch = ctx.erase_watcher() if self.erase_watch is None else None
        if watch is not None:  # replicas: another's erase empties this process's caches too
            self.erase_watch = workers.Periodic("erase-notices", WATCH_SECONDS, watch).start()

    def stop(self) -> None:
        for job in (self.compactor, self.drainer, self.erase_watch):
            if job is not None:
                job.stop()
