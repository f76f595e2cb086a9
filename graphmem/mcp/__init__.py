"""graphmem's MCP server: MemoryService's operations as tools an LLM agent calls.

`server` assembles the FastMCP app and runs `graphmem serve`; `tools/` holds the tools by
theme, each module registering its own over the `context` they share; `middleware` charges
every call to a rate-limit budget and turns errors into messages a caller can act on, and
`stats` keeps the per-user figures it records; `http` is the HTTP front (bearer tokens,
body-size limit, /metrics); `identity` is the hashed token table; `prompts` and `resources` are
what a client reads besides tools. The server's settings are the `server` section of the
settings tree (graphmem.settings.server).
"""
