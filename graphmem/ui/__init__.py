"""The memory inspector: a small web front end, served by graphmem itself on 127.0.0.1, for
the questions people who run agents ask every day (what does it remember about this user, why
did this memory come back, what did the firewall hold, is the store healthy).

Pages are rendered on the server from the service's public methods, with one stylesheet
shipped in the package: nothing is fetched from elsewhere and nothing is built at install time,
so it works offline and adds no dependency beyond Starlette and uvicorn, which the MCP server
already brings. Who may see what follows the MCP server's tokens and tenant rules
(graphmem.ui.sessions, graphmem.ui.app).
"""

from __future__ import annotations

from graphmem.ui.app import create_app

__all__ = ["create_app"]
