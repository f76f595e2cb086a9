"""The health report every Redis-backed adapter gives (cache, working memory, rate limits)."""

from __future__ import annotations

from typing import Any

from graphmem.stores.redis_client import is_cluster


def redis_health(client: Any, backend: str = "redis") -> dict[str, Any]:
    """One server: it answers. A cluster: it says so itself (every slot served, `cluster_state`
    ok) and every master answers, since a key of any user may live on any of them."""
    try:
        info = client.info("server")
        out: dict[str, Any] = {"backend": backend, "ok": True, "version": info.get("redis_version")}
        if is_cluster(client):
            from redis.cluster import RedisCluster

            state = client.cluster_info().get("cluster_state")
            alive = bool(client.ping(target_nodes=RedisCluster.PRIMARIES))
            masters = len(client.get_primaries())
            out.update(ok=state == "ok" and alive, cluster={"state": state, "masters": masters})
        return out
    except Exception as e:  # noqa: BLE001 - health reports, never raises
        return {"backend": backend, "ok": False, "error": str(e)}
