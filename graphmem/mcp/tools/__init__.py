"""The MCP tools, one module per theme: `memory` (writing, recalling, changing and forgetting
long-term memories), `graph` (relations, versions, neighbourhoods), `working` (a session's working
memory), `health` (the health report) and `admin` (erasing a user, quarantine review). Each
module has `register(mcp, ctx)`; `common` holds what their signatures and bodies share."""
