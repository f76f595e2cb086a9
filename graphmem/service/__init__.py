"""The service: `MemoryService`, the one facade every interface calls (facade.py), and what it
works with: the `Context` the use-cases receive (context.py, opened by build.py), the outbox
projector (projection.py) and its circuit breaker (breaker.py), the background jobs (jobs.py).

Import each from its module (`from graphmem.service.facade import MemoryService`, or just
`graphmem.MemoryService`): the use-cases import `graphmem.service.context`, which runs this file
first, and the facade imports the use-cases, so this file imports nothing.
"""
