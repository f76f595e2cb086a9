"""The search-result cache: port, key, and both adapters (Redis is imported only when used)."""

from graphmem.stores.cache.in_process import InProcessCache
from graphmem.stores.cache.port import Lookup, ResultCache, cache_key
from graphmem.stores.cache.redis import RedisCache

__all__ = ["InProcessCache", "Lookup", "RedisCache", "ResultCache", "cache_key"]
