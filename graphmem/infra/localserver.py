"""The running server's card in its data directory: `server.json`.

A server holds the embedded store (Qdrant Edge locks it for one process), so a second
`graphmem` command on the same data directory cannot open it. While it runs, `graphmem serve`
keeps this 0600 file under the data directory: its pid, its transport, its local URL (HTTP
only) and a fresh random token that exists only in this file and in the server's memory. A CLI
command that finds the file sends its command to that URL with that token (graphmem.cli.remote);
anyone who can read the file could read the store's files anyway, so it grants nothing more.

The server removes the file on exit. A file left by a server that died (its pid is gone, or
now belongs to a process that is not graphmem) is stale and ignored.

Standard library only: the CLI reads this before deciding whether to load anything heavy.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

SERVER_FILE = "server.json"
CLI_ROUTE = "/graphmem/cli"
"""The server's local-only endpoint that runs a CLI command on its open store."""
MAX_REQUEST_BYTES = 4 << 20
"""What that endpoint reads at most: a command line and `add -`'s stdin."""


@dataclass(frozen=True)
class ServerCard:
    """What a running server publishes about itself."""

    pid: int
    transport: str  # "http" or "stdio"
    url: str | None = None  # http://127.0.0.1:<port>: where CLI_ROUTE answers (HTTP only)
    token: str | None = None  # the local CLI credential (HTTP only)


def card_path(data_dir: Path) -> Path:
    return Path(data_dir).expanduser() / SERVER_FILE


def publish(data_dir: Path, transport: str, url: str | None = None) -> ServerCard:
    """Write this process's card (0600, atomically) with a new token, and return it."""
    from graphmem.stores.private_files import private_dir, write_private

    token = "gml_" + secrets.token_urlsafe(32) if transport == "http" else None
    card = ServerCard(os.getpid(), transport, url, token)
    private_dir(Path(data_dir).expanduser())
    write_private(card_path(data_dir), json.dumps(asdict(card)) + "\n")
    return card


def withdraw(data_dir: Path, card: ServerCard) -> None:
    """Remove the card if it is still this server's (a later server may have replaced it)."""
    path = card_path(data_dir)
    if read(path) == card:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def read(path: Path) -> ServerCard | None:
    """The card in `path`, None when there is none or it is not one (half-written, foreign)."""
    try:
        data = json.loads(path.read_text("utf-8"))
        return ServerCard(
            pid=int(data["pid"]),
            transport=str(data["transport"]),
            url=data.get("url"),
            token=data.get("token"),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def running(data_dir: Path) -> ServerCard | None:
    """The card of the server running on `data_dir`, None when none is. A card whose process
    is gone is stale: it is removed, so the next command does not look at it again."""
    path = card_path(data_dir)
    card = read(path)
    if card is None or card.pid == os.getpid():
        return None
    if not alive(card.pid):
        with contextlib.suppress(OSError):
            if read(path) == card:
                path.unlink()
        return None
    return card


def alive(pid: int) -> bool:
    """Is `pid` a live graphmem process? A pid of a server that died may since belong to
    another program; where /proc tells, that one does not count."""
    if pid <= 0:
        return False
    if sys.platform == "win32":
        return _alive_windows(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, another account's: not ours to judge, treat as running
    cmdline = Path(f"/proc/{pid}/cmdline")
    try:
        return b"graphmem" in cmdline.read_bytes()
    except FileNotFoundError:
        return not Path("/proc/self").exists()  # no /proc on this platform: trust the pid
    except OSError:
        return True


def _alive_windows(pid: int) -> bool:
    """os.kill(pid, 0) would terminate the process on Windows: ask for its exit code."""
    if sys.platform != "win32":
        raise OSError("Windows only")
    import ctypes

    kernel32 = ctypes.windll.kernel32
    handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
    if not handle:
        return False
    try:
        code = ctypes.c_ulong()
        kernel32.GetExitCodeProcess(handle, ctypes.byref(code))
        return code.value == 259  # STILL_ACTIVE
    finally:
        kernel32.CloseHandle(handle)


__all__ = [
    "CLI_ROUTE",
    "MAX_REQUEST_BYTES",
    "SERVER_FILE",
    "ServerCard",
    "alive",
    "card_path",
    "publish",
    "read",
    "running",
    "withdraw",
]
