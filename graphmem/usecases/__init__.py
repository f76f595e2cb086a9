"""What the service does, one module per kind of call; each function takes the port it uses.

MemoryService (graphmem.service) is the facade over these: it checks nothing and decides
nothing itself, and hands its one Context to each. A use-case is typed by the narrower door of
graphmem.usecases.ports it needs (the records, the search channels, the write pipeline, ...),
which the Context satisfies; it may call another use-case through a door its own includes, and
never imports the service.
"""
