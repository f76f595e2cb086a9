"""graphmem's MCP server: MemoryService's operations as tools an LLM agent calls.

`server` assembles the FastMCP app and runs `graphmem serve`; `tools/` holds the tools by
theme, each module registering its own; `middleware` charges every call to a rate-limit budget
and turns errors into messages a caller can act on; `http` is the HTTP front (bearer tokens,
body-size limit, /metrics); `identity` is the hashed token table; `prompts` and `resources`
are what a client reads besides tools.
"""
