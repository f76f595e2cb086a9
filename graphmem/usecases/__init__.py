"""What the service does, one module per kind of call; each function takes the Context.

MemoryService (graphmem.service) is the facade over these: it checks nothing and decides
nothing itself. A use-case may call another use-case, never the service.
"""
