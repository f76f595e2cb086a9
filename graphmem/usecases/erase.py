"""Erase a user: every store, a receipt with counts, and a verification scan that proves it.

Order matters for resumability. The records transaction deletes every row about the user and
queues an `erase_user` tombstone in the outbox; that commit is the point of no return. The
tombstone then drives deletion from the vector index and the graph, retried like any other
projection if a store is down or the process dies, so re-running (or just restarting) finishes
the job. Caches and working memory are purged last, and a scan counts what is left everywhere.

Rows gone from query results can still sit in the stores' files (free pages, full-text
segments, write-ahead logs), so the stores scrub their files, and the receipt reads every file
under the data directory (and the image directory, when images.store puts it elsewhere) for
what identifies the user: their id, their session ids and a sample of their content, captured
before the delete and held only in memory. An image bucket is not read: its count of the
user's objects (residue `images`) is the proof there.
"""

from __future__ import annotations

import errno
import logging
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from graphmem.domain.model import check_user, utcnow
from graphmem.errors import StoreUnavailableError
from graphmem.images.store import local_root
from graphmem.stores.records import ERASE_MARK
from graphmem.usecases.backfill import checkpoint_path
from graphmem.usecases.ports import ErasePorts, RecordsPorts

log = logging.getLogger("graphmem.erasure")


@dataclass
class ErasureReceipt:
    user_id: str
    requested_by: str
    deleted: dict[str, Any]
    residue: dict[str, int]
    pending: list[str] = field(default_factory=list)
    finished_at: str = ""
    files_holding: list[str] = field(default_factory=list)
    # Crypto-shredding: the user's data key is gone, so any copy of their secrets (a backup,
    # a replica, a free page) can no longer be decrypted.
    vault: str = "no data key"

    @property
    def files_clean(self) -> bool:
        return not self.files_holding

    @property
    def verified(self) -> bool:
        return not self.pending and not any(self.residue.values()) and self.files_clean

    def to_dict(self) -> dict[str, Any]:
        return {
            "user_id": self.user_id,
            "requested_by": self.requested_by,
            "deleted": self.deleted,
            "residue": self.residue,
            "pending": self.pending,
            "files_clean": self.files_clean,
            "files_holding": self.files_holding,
            "verified": self.verified,
            "vault": self.vault,
            "finished_at": self.finished_at,
        }


def residue(ctx: ErasePorts, user_id: str) -> dict[str, int]:
    """What every store still holds about the user. All zeros is the proof of erasure."""
    user_id = check_user(user_id)
    out = {f"records.{t}": n for t, n in ctx.records.user_residue(user_id).items()}
    out["vectors"] = ctx.vectors.count(user_id)
    out["graph.nodes"] = len(ctx.graph.node_ids(user_id))
    out["graph.edges"] = ctx.graph.edge_count(user_id)
    out["query_cache"] = ctx.embedder.cached_queries(user_id)
    for name, (_, count) in ctx.purgers.items():
        out[name] = count(user_id)
    return out


def _reachable(ctx: ErasePorts, user_id: str) -> None:
    """Every extra store the erase must empty (an image bucket, Redis), asked before anything is
    erased. The records go first and the extra stores after them, so an image bucket that is
    down used to fail the erase half-way: records gone, the user's images still in the bucket,
    and an error where the receipt should be. Asking each store for the user's residue first
    turns an unreachable store into a clear refusal with nothing erased."""
    for name, (_, count) in ctx.purgers.items():
        try:
            count(user_id)
        except Exception as e:  # noqa: BLE001 - any failure to reach it refuses the erase
            raise StoreUnavailableError(
                f"the {name.replace('_', ' ')} store could not be reached ({type(e).__name__}):"
                " nothing was erased; run the erase again when it is back"
            ) from e


def erase_user(ctx: ErasePorts, user_id: str, requested_by: str = "user") -> ErasureReceipt:
    """Erase everything about a user from every store; the receipt proves what is left."""
    user_id = check_user(user_id)
    _reachable(ctx, user_id)
    before_vectors = _safe(lambda: ctx.vectors.count(user_id))
    before_nodes = _safe(lambda: len(ctx.graph.node_ids(user_id)))
    ctx.access.flush()
    markers = _markers(ctx, user_id)
    with ctx.serialised(user_id):
        deleted: dict[str, Any] = {
            f"records.{t}": n for t, n in ctx.records.erase_user(user_id, requested_by).items()
        }
        tombstones = [it for it in ctx.records.outbox_for([ERASE_MARK]) if it.user_id == user_id]
        ctx.projector.apply(tombstones)
    vault = (
        f"data key destroyed ({deleted.get('records.vault_secrets', 0)} secrets shredded)"
        if deleted.get("records.vault_keys")
        else "no data key"
    )
    pending = [
        t
        for it in ctx.records.outbox_for([ERASE_MARK])
        if it.user_id == user_id
        for t in it.target.split(",")
        if t
    ]
    deleted["vectors"] = before_vectors
    deleted["graph.nodes"] = before_nodes
    deleted["query_cache"] = ctx.embedder.forget_user(user_id)
    # keyed by text alone, the summary vectors and ranking caches cannot be purged by user
    deleted["text_caches"] = ctx.forget_text_caches()
    for name, (purge, _) in ctx.purgers.items():
        deleted[name] = purge(user_id)
    _forget_checkpoint(ctx, user_id)
    left = {k: v for k, v in _safe_residue(ctx, user_id).items()}
    try:
        ctx.records.scrub()
    except Exception as e:  # noqa: BLE001 - the files check below reports what is left
        log.warning("could not scrub the records store after erasing a user: %s", e)
    unique = _still_unique(ctx, markers)
    holding = files_holding(Path(ctx.settings.data_dir), unique)
    images = local_root(ctx.images, ctx.settings.data_dir)  # a directory of its own
    if images is not None:
        holding += [str(images / p) for p in files_holding(images, unique)]
    return ErasureReceipt(
        user_id,
        requested_by,
        deleted,
        left,
        sorted(set(pending)),
        utcnow().isoformat(),
        holding,
        vault,
    )


# Shorter strings turn up in binary files by chance, so they prove nothing either way.
MIN_MARKER = 8
# The scan's time grows with the number of strings it looks for, ~0.03 s each per 64 MB of
# file data (a 20k-memory store holds ~100 MB): a small sample keeps erasing fast.
CONTENT_SAMPLE = 3  # memories whose opening words the file check looks for
SESSION_SAMPLE = 3  # session ids it looks for
SAMPLE_CHARS = 40  # short enough to sit whole in a database page


def _markers(ctx: RecordsPorts, user_id: str) -> set[str]:
    """What would identify the user in a file: the id, session ids, openings of memories."""
    found = ctx.records.user_markers(user_id, SESSION_SAMPLE, CONTENT_SAMPLE, SAMPLE_CHARS)
    return {m for m in found if len(m.encode()) >= MIN_MARKER}


def _still_unique(ctx: RecordsPorts, markers: set[str]) -> set[str]:
    """Drop markers another user's memories still hold (the same words, a shared session
    name): finding those on disk says nothing about this user."""
    return markers - ctx.records.shared_markers(markers)


def files_holding(root: Path, markers: set[str], chunk: int = 1 << 18) -> list[str]:
    """Files under `root` holding any marker (UTF-8, case-insensitive), as relative paths."""
    needles = sorted({m.lower().encode() for m in markers})
    if not needles or not root.exists():
        return []
    overlap = max(len(n) for n in needles) - 1
    out = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        try:
            with path.open("rb") as f:
                if _holds(f, needles, overlap, chunk):
                    out.append(str(path.relative_to(root)))
        except OSError:
            continue  # a file replaced meanwhile (a shard segment) is scanned in its new place
    return out


def _holds(f: BinaryIO, needles: list[bytes], overlap: int, chunk: int) -> bool:
    zeros = bytes(chunk)
    for start, end in _data_ranges(f.fileno()):
        f.seek(start)
        tail = b""
        while start < end and (block := f.read(min(chunk, end - start))):
            start += len(block)
            # Stores preallocate files and pages, and a copied file loses its holes: a block of
            # zeros holds no marker and no marker spans it. Comparing with a zero block is a
            # memcmp, ~100x faster than stripping the zeros.
            if block == (zeros if len(block) == chunk else bytes(len(block))):
                tail = b""
                continue
            window = tail + block.lower()
            if any(n in window for n in needles):
                return True
            tail = window[-overlap:] if overlap else b""
    return False


def _data_ranges(fd: int) -> Iterator[tuple[int, int]]:
    """The byte ranges of a file that hold data: a vector shard preallocates sparse files of
    32 MB of which a few hold anything, and the holes need not be read."""
    size = os.fstat(fd).st_size
    if not hasattr(os, "SEEK_DATA"):
        yield 0, size
        return
    offset = 0
    while offset < size:
        try:
            start = os.lseek(fd, offset, os.SEEK_DATA)
            end = os.lseek(fd, start, os.SEEK_HOLE)
        except OSError as e:
            if e.errno == errno.ENXIO:  # no data after offset
                return
            yield offset, size  # the file system cannot tell: read the rest
            return
        yield start, end
        offset = end


def _forget_checkpoint(ctx: RecordsPorts, user_id: str) -> None:
    """A relations backfill of this user keeps a checkpoint file: it goes with them."""
    checkpoint_path(ctx.settings, user_id).unlink(missing_ok=True)


def _safe(fn: Callable[[], int]) -> int | None:
    try:
        return fn()
    except Exception:  # noqa: BLE001 - a store that is down reports no count, not a failure
        return None


def _safe_residue(ctx: ErasePorts, user_id: str) -> dict[str, int]:
    try:
        return residue(ctx, user_id)
    except Exception:  # noqa: BLE001 - unknown residue is reported as pending, never as zero
        return {"unverifiable": 1}
