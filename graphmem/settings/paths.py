"""Where the data lives when nothing says: one data home per user, not one per directory.

graphmem used to default to `./data`, relative to wherever a command ran, so every directory
an MCP client was launched from silently got a memory of its own. The default is now the
platform's user data directory (platformdirs: ~/.local/share/graphmem on Linux,
~/Library/Application Support/graphmem on macOS, %LOCALAPPDATA%\\graphmem on Windows).

A `./data` that already holds a graphmem store keeps being used, with a notice, so nobody
loses memories by upgrading: the notice says how to pin it (GRAPHMEM_DATA_DIR) or move it.
"""

from __future__ import annotations

from pathlib import Path

APP_NAME = "graphmem"
LEGACY_DIR = Path("data")
# Files only a graphmem store has: the SQLite records or the Qdrant Edge shard.
STORE_MARKERS = ("graphmem.sqlite3", "vectors")


def user_data_dir() -> Path:
    """The platform's per-user data directory for graphmem."""
    from platformdirs import user_data_path

    return user_data_path(APP_NAME, appauthor=False)


def holds_store(path: Path) -> bool:
    """Does `path` hold a graphmem store (not merely some folder called data)?"""
    return any((path / marker).exists() for marker in STORE_MARKERS)


class DefaultDataDir:
    """The default of `Settings.data_dir`, resolved when settings are built (not at import),
    so a `./data` store made by an earlier version is still found in the directory it is in.

    `text` is how docs/settings.md shows the default; it must not be this machine's path."""

    text = "the user data dir (~/.local/share/graphmem on Linux); ./data if it holds a store"

    def __call__(self) -> Path:
        if holds_store(LEGACY_DIR):
            return LEGACY_DIR
        return user_data_dir()


default_data_dir = DefaultDataDir()


def legacy_notice(data_dir: Path, *, defaulted: bool) -> str | None:
    """One line when the default picked a store in the old default `./data`; None when the
    data directory was set (even to ./data: then it is what the user asked for)."""
    if not defaulted or data_dir != LEGACY_DIR:
        return None
    here = LEGACY_DIR.resolve()
    return (
        f"graphmem: using the store in {here} because ./data was the default before; set"
        f" GRAPHMEM_DATA_DIR={here} to keep it wherever graphmem runs, or move it to"
        f" {user_data_dir()} (the default now)"
    )


__all__ = [
    "APP_NAME",
    "LEGACY_DIR",
    "DefaultDataDir",
    "default_data_dir",
    "holds_store",
    "legacy_notice",
    "user_data_dir",
]
