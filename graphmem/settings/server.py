"""The MCP server's section of the settings (`settings.server`): what only `graphmem serve` uses.

Same GRAPHMEM_ prefix and .env file as the root, so one environment configures both. What the
server shares with the library lives in the root: `redis_url` (working memory's Redis),
`torch_threads` and the LLM endpoint (`settings.llm`, for memory_summarize).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

if TYPE_CHECKING:
    from graphmem.settings import Settings


class McpSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="GRAPHMEM_", env_file=".env", extra="ignore")

    host: str = Field("127.0.0.1", description="HTTP bind address; loopback unless you mean it")
    port: int = Field(8765, ge=0, le=65535, description="HTTP port (0 picks a free one)")
    mcp_path: str = Field("/mcp", description="the streamable-HTTP endpoint path")
    tokens_file: Path | None = Field(
        None, description="hashed bearer tokens; default <data_dir>/mcp_tokens.json"
    )
    tokens: SecretStr | None = Field(
        None, description="'token=user' pairs, hashed when read (never stored in clear)"
    )
    working_backend: Literal["auto", "memory", "redis"] = Field(
        "auto",
        description="working memory: auto is redis when redis_url is set, else memory"
        " (in-process, one server process)",
    )
    working_ttl_seconds: float = Field(86_400, gt=0, description="working memory expires after")
    working_max_sessions: int = Field(10_000, gt=0, description="in-process adapter's bound")
    max_request_bytes: int = Field(
        262_144, gt=0, description="larger HTTP bodies / tool arguments are refused unread"
    )
    metrics: bool = Field(True, description="serve Prometheus metrics over HTTP (GET /metrics)")
    metrics_path: str = Field("/metrics", description="where the Prometheus endpoint is")
    metrics_token: SecretStr | None = Field(
        None, description="if set, GET /metrics needs 'Authorization: Bearer <this>'"
    )

    def tokens_path(self, settings: Settings) -> Path:
        return (self.tokens_file or settings.data_dir / "mcp_tokens.json").expanduser()


__all__ = ["McpSettings"]
