"""mem0 exports written for the import tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def mem0_export(path: Path, rows: list[dict[str, Any]]) -> Path:
    """mem0 1.x `Memory.get_all()` result: {"results": [...]} (docs.mem0.ai, Memory
    Operations > get all; fields id, memory, hash, metadata, created_at, updated_at,
    user_id, agent_id, run_id; 2.x also `role`). test_import_pypi_peers.py has mem0 2.2.1
    itself write one."""
    path.write_text(json.dumps({"results": rows}), encoding="utf-8")
    return path


def mem0_row(mid: str, text: str, user: str = "alice", **more: Any) -> dict[str, Any]:
    return {
        "id": mid,
        "memory": text,
        "hash": f"h-{mid}",
        "metadata": more.pop("metadata", None),
        "created_at": "2025-03-01T09:00:00-08:00",
        "updated_at": None,
        "user_id": user,
        **more,
    }
