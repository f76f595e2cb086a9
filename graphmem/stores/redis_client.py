"""Opening Redis from a URL (one server or a Redis Cluster) and the key layout every Redis-backed
adapter shares (search cache, working memory, rate limits).

URLs
----
- ``redis://[user:password@]host:port/db``, ``rediss://...`` (TLS), ``unix:///path?db=0``: one
  Redis server, exactly as redis-py reads them.
- ``redis+cluster://[user:password@]host:port[/0]`` (``rediss+cluster://`` with TLS): a Redis
  Cluster. The address is any one node; the client asks it for the others and follows the
  cluster when slots move. A cluster has only database 0, so any other database is refused.

A distinct scheme rather than a query flag: a client that does not know about clusters refuses
the URL instead of silently talking to one node of a cluster and failing on the first key that
lives elsewhere.

Keys
----
Every key graphmem writes for a user is ``<prefix>{<tag>}:<user>:...``, where ``<tag>`` is a
short hash of the user id (`user_tag`) and ``<user>`` the percent-encoded id. Redis Cluster
places a key by the text between its first ``{`` and the next ``}`` (a hash tag), so all of one
user's keys - cache entries and version, working-memory sessions, rate-limit buckets - live in one
slot, and a script or transaction over several of them is allowed. The tag is a hash rather than
the id itself because an id may contain braces, which would end the tag early and scatter the
user's keys; the full id still follows, so two users whose tags collide only share a slot, never
a key. Prefixes may not contain braces for the same reason.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

from graphmem.infra.extras import require_extra

CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}

_GLOB = re.compile(r"([*?\[\]\\])")


def is_cluster_url(url: str) -> bool:
    return urlsplit(url).scheme.lower() in CLUSTER_SCHEMES


def open_redis(url: str, *, timeout_s: float, decode_responses: bool = False, what: str) -> Any:
    """A client for `url`: ``redis.Redis`` for one server, ``redis.cluster.RedisCluster`` for a
    ``redis+cluster://`` URL. `what` names the feature in the error when redis-py is missing."""
    require_extra("redis", "redis", what)
    options: dict[str, Any] = {
        "socket_timeout": timeout_s,
        "socket_connect_timeout": timeout_s,
        "decode_responses": decode_responses,
    }
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in CLUSTER_SCHEMES:
        import redis

        return redis.Redis.from_url(url, **options)
    from redis.cluster import RedisCluster

    db = parts.path.strip("/")
    if db not in ("", "0"):
        raise ValueError(f"a Redis Cluster has only database 0, not {db!r}: {_safe(url)}")
    plain = urlunsplit((CLUSTER_SCHEMES[scheme], parts.netloc, "", parts.query, ""))
    return RedisCluster.from_url(plain, **options)


def _safe(url: str) -> str:
    """The URL without its password, for error messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)[1]
    user = f"{parts.username}:***@" if parts.username else "***@"
    return urlunsplit((parts.scheme, user + netloc, parts.path, parts.query, ""))


def is_cluster(client: Any) -> bool:
    from redis.cluster import RedisCluster

    return isinstance(client, RedisCluster)


def check_prefix(prefix: str) -> str:
    if "{" in prefix or "}" in prefix:
        raise ValueError(f"a Redis key prefix may not contain '{{' or '}}': {prefix!r}")
    return prefix


def user_tag(user_id: str) -> str:
    """The hash tag of a user's keys: 16 hex digits of SHA-256, so brace-free and evenly spread
    over the cluster's slots."""
    return hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:16]


def user_key(prefix: str, user_id: str, *parts: str) -> str:
    """``<prefix>{<tag>}:<user>[:<part>...]``; the id is percent-encoded so a ':' inside it
    cannot be confused with the separator (parts are the caller's to keep unambiguous)."""
    return ":".join([f"{prefix}{{{user_tag(user_id)}}}", quote(user_id, safe=""), *parts])


def user_pattern(prefix: str, user_id: str) -> str:
    """A SCAN pattern matching every key `user_key` makes for this user (and no other user's:
    the encoded id is followed by ':' or ends the key)."""
    return _GLOB.sub(r"\\\1", user_key(prefix, user_id)) + ":*"


def scan_keys(client: Any, pattern: str) -> list[Any]:
    """Every key matching `pattern`. On a cluster redis-py's scan_iter walks every master, so a
    key is found even while its slot is being moved between masters."""
    return list(client.scan_iter(match=pattern, count=500))
