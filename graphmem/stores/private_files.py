"""Files only their owner can read: folders 0700, files 0600, whatever the process umask.

A data directory holds every user's memories, so a world-readable default (the usual umask 022)
would hand them to any local account. Stores create their files inside `private_umask()` and
call `tighten()` after work that makes new files (a vector shard's optimizer writes new
segments), which also fixes a directory written by an older version.
"""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

DIR_MODE = 0o700
FILE_MODE = 0o600
_umask_lock = threading.RLock()


@contextmanager
def private_umask() -> Iterator[None]:
    """Files and folders created meanwhile by this process (including native libraries) get
    no group or other bits. The umask is process-wide, so it is held for the block only."""
    with _umask_lock:
        old = os.umask(0o077)
        try:
            yield
        finally:
            os.umask(old)


def private_dir(path: Path) -> Path:
    """Create `path` (and missing parents) and make it 0700."""
    with private_umask():
        path.mkdir(parents=True, exist_ok=True)
    os.chmod(path, DIR_MODE)
    return path


def tighten(path: Path) -> None:
    """Make `path` and everything under it owner-only. Files that vanish meanwhile (a shard
    replacing a segment) are skipped."""
    if not path.exists():
        return
    if path.is_file():
        _chmod(path, FILE_MODE)
        return
    _chmod(path, DIR_MODE)
    for root, dirs, files in os.walk(path):
        for d in dirs:
            _chmod(Path(root, d), DIR_MODE)
        for f in files:
            _chmod(Path(root, f), FILE_MODE)


def _chmod(path: Path, mode: int) -> None:
    try:
        if os.stat(path, follow_symlinks=False).st_mode & 0o777 != mode:
            os.chmod(path, mode)
    except FileNotFoundError:
        pass


def write_private(path: Path, text: str) -> None:
    """Replace `path` with `text` atomically, readable by its owner only (0600 from creation,
    so there is no moment at which another local user could read it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)  # mode 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
