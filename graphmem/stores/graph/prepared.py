"""The records graph with each searching user's relations prepared in memory for the walk.

`RecordsGraph` reads every hop from the records: two index range reads per frontier memory
and an object per row, about 6 ms of a 18.5 ms hybrid search at 100,000 memories
(docs/benchmarks.md, "Issue 33"). This wrapper keeps, per user, the user's relations as a
ranked adjacency in flat arrays (graphmem.stores.graph.adjacency) and answers `neighbours`
from it: the same edges, so the same rankings.

Current by the search cache's version, not by bookkeeping of its own. Every use-case that
changes a user's memories or relations moves the user's cache version on afterwards
(`Context.invalidate`, the erase's purge); with replicas the version lives in Redis, so a
write on any replica moves it for all (docs/deploy.md). An adjacency is used only while the
version it was built under is still the user's current one, so a missed invalidation lasts
exactly as long for it as for cached results: the in-process cache's cannot be missed, and a
Redis version key lives while the user's results are cached and ends a TTL after the last
(an age limit of its own rebuilt 100,000 memories' adjacency every minute, 5 s of CPU, and
slowed the searches beside the build). Otherwise the hop reads the records exactly as
before, and the user's adjacency is rebuilt on a background thread: a search never waits for
a build, and a search that finds no current adjacency costs what it cost without this
wrapper.

A build reads all of a user's relations (about 5 s of CPU at 1.7 million); a user who keeps
writing would rebuild on every search, so a rebuild starts no sooner than REBUILD_GAP times
the last build's duration after it (builds then take at most a tenth of a core). Held
adjacencies are bounded by relations over all users (`graph_adjacency_edges`), least
recently searched dropped first; a user above the bound alone is walked from the records.

Nothing stays of a user: a stale adjacency is dropped when seen, `Context.invalidate` drops
the user's at once (a delete leaves none of the deleted memory's ids in memory), and erasure
reaches it as a purger (`forget_user`; on other replicas `forget_all`, by the erase watch).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from graphmem.stores.cache.port import ResultCache
from graphmem.stores.graph.adjacency import Adjacency
from graphmem.stores.graph.port import GraphEdge, GraphStore
from graphmem.stores.graph.records import RecordsGraph, _epoch
from graphmem.stores.records.port import RecordsStore

log = logging.getLogger("graphmem.graph")

REBUILD_GAP = 9.0
"""A user's next build starts at least this many times its last build's duration after that
build ended: at most a tenth of one core goes to rebuilding a user who writes all the time."""


class _Closed(Exception):
    """A build stopped because the store is closing."""


@dataclass(frozen=True, slots=True)
class _Held:
    version: str
    adjacency: Adjacency
    built_at: float  # monotonic, when its build started


class PreparedGraph(RecordsGraph):
    """`RecordsGraph` whose `neighbours` read a prepared adjacency when a current one is
    held; everything else is the records graph's."""

    def __init__(
        self,
        records: RecordsStore,
        version: Callable[[str], str],
        max_edges: int,
    ) -> None:
        super().__init__(records)
        self._version = version
        self.max_edges = max_edges
        self._held: OrderedDict[str, _Held] = OrderedDict()
        # user -> the ticket of their build in flight; forgetting the user takes it away, and a
        # build whose ticket is gone when it ends keeps nothing
        self._building: dict[str, threading.Event] = {}  # set when the build ends
        self._futures: set[Future[None]] = set()
        self._not_before: dict[str, float] = {}  # user -> monotonic time of the next build
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None  # one build at a time, made on first use
        self._closing = threading.Event()  # a build stops reading when set (see close)
        self.builds = 0
        self.prepared_hops = 0
        self.record_hops = 0

    # ------------------------------------------------------------------ the walk
    def neighbours(
        self,
        user_id: str,
        memory_ids: list[str],
        relation_types: tuple[str, ...] | None,
        per_node: int,
        at: float | None = None,
    ) -> list[GraphEdge]:
        adjacency = self.current(user_id)
        if adjacency is None:
            self.record_hops += 1
            return super().neighbours(user_id, memory_ids, relation_types, per_node, at)
        self._check()  # a closed store answers nothing, prepared or not
        self.prepared_hops += 1
        return adjacency.neighbours(memory_ids, relation_types, per_node, at)

    def current(self, user_id: str) -> Adjacency | None:
        """The user's adjacency if it is current; else None, and a build is started (unless
        one runs or the user's last build was too recent)."""
        try:
            version = self._version(user_id)
        except Exception as e:  # noqa: BLE001 - no version, no trust: read the records
            log.warning("search cache version unavailable, walking the records: %s", e)
            self.forget_user(user_id)
            return None
        now = time.monotonic()
        with self._lock:
            held = self._held.get(user_id)
            if held is not None:
                if held.version == version:
                    self._held.move_to_end(user_id)
                    return held.adjacency
                del self._held[user_id]  # stale: nothing of it stays
            if user_id not in self._building and now >= self._not_before.get(user_id, 0.0):
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(1, thread_name_prefix="graphmem-adjacency")
                ticket = self._building[user_id] = threading.Event()
                future = self._pool.submit(self._build, user_id, version, ticket)
                self._futures.add(future)
                future.add_done_callback(self._futures.discard)
        return None

    def prepare(self, user_id: str) -> Adjacency | None:
        """Build the user's adjacency now (or wait for the running build) and return it if
        it is current: for benchmarks and tests that measure the prepared walk."""
        with self._lock:
            self._not_before.pop(user_id, None)
        self.current(user_id)
        self.wait()
        return self.current(user_id)

    def wait(self) -> None:
        """Until no build is running."""
        while True:
            with self._lock:
                running = list(self._futures)
            if not running:
                return
            for f in running:
                try:
                    f.result()
                except BaseException:  # noqa: BLE001 - cancelled by close; the build logs its own
                    return

    def _build(self, user_id: str, version: str, ticket: threading.Event) -> None:
        try:
            self._prepare(user_id, version, ticket)
        finally:
            ticket.set()

    def _prepare(self, user_id: str, version: str, ticket: threading.Event) -> None:
        start = time.monotonic()
        try:
            adjacency = Adjacency(user_id, self._rows(user_id), _epoch)
        except _Closed:
            return  # the store is closing: keep nothing, log nothing
        except Exception as e:  # noqa: BLE001 - the walk keeps reading the records
            log.warning("could not prepare a user's graph, walking the records: %s", e)
            with self._lock:
                if self._building.get(user_id) is ticket:
                    del self._building[user_id]
                    self._not_before[user_id] = time.monotonic() + 5.0
            return
        took = time.monotonic() - start
        with self._lock:
            self.builds += 1
            if self._building.get(user_id) is not ticket:
                return  # the user was forgotten meanwhile: keep nothing read before it
            del self._building[user_id]
            self._not_before[user_id] = time.monotonic() + REBUILD_GAP * took
            if adjacency.edge_count > self.max_edges:
                return  # above the bound alone: this user is walked from the records
            self._held[user_id] = _Held(version, adjacency, start)
            total = sum(h.adjacency.edge_count for h in self._held.values())
            while total > self.max_edges:
                _, dropped = self._held.popitem(last=False)
                total -= dropped.adjacency.edge_count

    def _rows(self, user_id: str) -> Iterator[tuple[Any, ...]]:
        """The user's relation rows, stopping as soon as the store starts closing: a build
        still reading when the records close would read through a closed connection (a
        one-shot CLI search closes right after the search that started the build)."""
        closing = self._closing.is_set
        for row in self.records.relation_table(user_id):
            if closing():
                raise _Closed
            yield row

    # ------------------------------------------------------------------ what erasure reaches
    def forget_user(self, user_id: str) -> int:
        """Drop the user's adjacency and every trace of them here; returns the relations it
        held. A build of theirs still running keeps nothing."""
        with self._lock:
            held = self._held.pop(user_id, None)
            self._building.pop(user_id, None)
            self._not_before.pop(user_id, None)
        return held.adjacency.edge_count if held is not None else 0

    def held(self, user_id: str) -> int:
        """Relations held for the user, and 1 for a build time noted under their id
        (erasure's residue count: 0 after `forget_user`)."""
        with self._lock:
            running = self._building.get(user_id)
        if running is not None:  # count what the build in flight leaves, not a moment in it
            running.wait(60)
        with self._lock:
            held = self._held.get(user_id)
            noted = user_id in self._not_before
        return (held.adjacency.edge_count if held is not None else 0) + int(noted)

    def forget_all(self) -> int:
        """Every user's adjacency: another replica erased a user this process cannot name."""
        with self._lock:
            n = sum(h.adjacency.edge_count for h in self._held.values())
            self._held.clear()
            self._building.clear()
            self._not_before.clear()
        return n

    # ------------------------------------------------------------------ the records graph's
    def delete(self, memory_ids: list[str]) -> None:
        """The records already deleted the rows; drop any adjacency that names these ids."""
        super().delete(memory_ids)
        with self._lock:
            users = [
                u for u, h in self._held.items() if any(m in h.adjacency.index for m in memory_ids)
            ]
        for u in users:
            self.forget_user(u)

    def delete_user(self, user_id: str) -> None:
        super().delete_user(user_id)
        self.forget_user(user_id)

    def close(self) -> None:
        """Stop a build in flight and wait for it (it ends at its next row), so nothing reads
        the records after they close; the context closes the graph before the records."""
        self._closing.set()
        with self._lock:
            pool, self._pool = self._pool, None
            self._building.clear()
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        self.forget_all()
        super().close()

    def open(self) -> None:
        self._closing.clear()
        super().open()

    def health(self) -> dict[str, object]:
        out = super().health()
        with self._lock:
            out["prepared_users"] = len(self._held)
            out["prepared_relations"] = sum(h.adjacency.edge_count for h in self._held.values())
        return out


def prepared(graph: GraphStore, cache: ResultCache, max_edges: int) -> GraphStore:
    """`graph` wrapped when it reads the records, the bound allows any relations and every
    write that can reach the store moves `cache`'s versions: one process owns the store (the
    records' locks are the process's own: SQLite), or the versions are shared (Redis). Replicas
    on one MySQL with caches of their own would not see each other's writes in an adjacency,
    so they walk the records as before. The other adapters hold their own copy (networkx) or
    are a server (Neo4j)."""
    alone = getattr(getattr(graph, "records", None), "locks", None)
    versions_seen = cache.backend != "in-process" or getattr(alone, "backend", "") == "process"
    if type(graph) is RecordsGraph and max_edges > 0 and versions_seen:
        return PreparedGraph(graph.records, cache.version, max_edges)
    return graph
