

def test_mcp_memory_import_refuses_an_agent(svc: MemoryService) -> None:
    """An agent may not point the server at its files or databases: memory_import needs an
    operator token (the operator's call is exercised in tests/test_mcp_schemas.py)."""
    import asyncio

    from fastmcp import Client

    from graphmem.mcp.server import create_server
    from graphmem.settings.server import McpSettings

    server = create_server(svc, settings=McpSettings(working_backend="memory"), default_user="a")

    async def go() -> Any:
        async with Client(server) as c:
            args = {"format": "mcp-memory", "source": str(MCP_MEMORY)}
            return await c.call_tool("memory_import", args, raise_on_error=False)

    res = asyncio.run(go())
    assert res.is_error and res.content[0].text.startswith("role:")
    assert svc.list("a", viewer=Viewer.OPERATOR) == []
