"""The server's own settings, apart from graphmem.settings so that the library and the other
commands never read or validate what only `graphmem serve` uses."""

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from graphmem.settings import Settings


class McpSettings(BaseSettings):
    """Settings of the MCP server only; the store settings stay in graphmem.settings.Settings.

    Same GRAPHMEM_ prefix and .env file, so one environment configures both.
    """

    model_config = SettingsConfigDict(env_prefix="GRAPHMEM_", env_file=".env", extra="ignore")

    host: str = Field("127.0.0.1", description="HTTP bind address; loopback unless you mean it")
    port: int = Field(8765, ge=0, le=65535, description="HTTP port (0 picks a free one)")
    mcp_path: str = Field("/mcp", description="the streamable-HTTP endpoint path")
    tokens_file: Path | None = Field(
        None, description="hashed bearer tokens; default <data_dir>/mcp_tokens.json"
    )
    tokens: SecretStr | None = Field(
        None, description="GRAPHMEM_TOKENS: 'token=user' pairs, hashed when read"
    )
    working_backend: Literal["auto", "memory", "redis"] = Field(
        "auto", description="auto: redis when GRAPHMEM_REDIS_URL is set, else in-process"
    )
    redis_url: str | None = Field(None, description="Redis for working memory")
    working_ttl_seconds: float = Field(86_400, gt=0, description="working memory expires after")
    working_max_sessions: int = Field(10_000, gt=0, description="in-process adapter's bound")
    max_request_bytes: int = Field(
        262_144, gt=0, description="larger HTTP bodies / tool arguments are refused unread"
    )
    llm_url: str | None = Field(
        None, description="OpenAI-compatible base URL for memory_summarize, e.g. .../v1"
    )
    llm_model: str | None = None
    llm_api_key: SecretStr | None = None
    llm_timeout_seconds: float = Field(20.0, gt=0)
    metrics: bool = Field(True, description="serve Prometheus metrics over HTTP (GET /metrics)")
    metrics_path: str = Field("/metrics", description="where the Prometheus endpoint is")
    metrics_token: SecretStr | None = Field(
        None, description="if set, GET /metrics needs 'Authorization: Bearer <this>'"
    )
    torch_threads: int = Field(
        1,
        ge=0,
        description="intra-op threads for the embedding model in the server (0: torch's"
        " default). Requests already run in parallel threads; more intra-op threads only"
        " oversubscribe the CPU, which on a busy machine slows every embedding many times over",
    )

    def tokens_path(self, settings: Settings) -> Path:
        return (self.tokens_file or settings.data_dir / "mcp_tokens.json").expanduser()


__all__ = ["McpSettings"]
