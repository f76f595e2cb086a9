"""Working memory's store: the stored value, the port, and both adapters (Redis is imported
only when used); `open_working` (graphmem.stores) picks one."""

from graphmem.stores.working.in_process import InProcessWorkingMemory
from graphmem.stores.working.port import SLOT_KINDS, WorkingMemory, WorkingMemoryStore
from graphmem.stores.working.redis import RedisWorkingMemory

__all__ = [
    "SLOT_KINDS",
    "InProcessWorkingMemory",
    "RedisWorkingMemory",
    "WorkingMemory",
    "WorkingMemoryStore",
]
