"""Token buckets: the port and both adapters (Redis is imported only when used)."""

from graphmem.stores.ratelimit.in_process import InProcessRateLimiter
from graphmem.stores.ratelimit.port import RateDecision, RateLimiter
from graphmem.stores.ratelimit.redis import RedisRateLimiter

__all__ = ["InProcessRateLimiter", "RateDecision", "RateLimiter", "RedisRateLimiter"]
