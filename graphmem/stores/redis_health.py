"""The health report every Redis-backed adapter gives (cache, working memory, rate limits)."""

from __future__ import annotations

from typing import Any


def redis_health(client: Any, backend: str = "redis") -> dict[str, Any]:
    try:
        info = client.info("server")
        return {"backend": backend, "ok": True, "version": info.get("redis_version")}
    except Exception as e:  # noqa: BLE001 - health reports, never raises
        return {"backend": backend, "ok": False, "error": str(e)}
