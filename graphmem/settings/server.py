"""The MCP server's section of the settings (`settings.server`): what only `graphmem serve` uses.

Same GRAPHMEM_ prefix and .env file as the root, so one environment configures both. What the
server shares with the library lives in the root: `redis_url`, working memory
(`settings.working`, which an erase reaches from every entry point), the embedding model's
threads (`settings.embedding.torch_threads`) and the LLM endpoint (`settings.llm`, for
memory_summarize).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

if TYPE_CHECKING:
    from graphmem.settings import Settings


# Server settings that became the root's: passing one here would otherwise be ignored silently.
MOVED = {
    "redis_url": "Settings.redis_url",
    "torch_threads": "Settings.embedding.torch_threads",
    "llm_url": "Settings.llm.url",
    "llm_model": "Settings.llm.model",
    "llm_api_key": "Settings.llm.api_key",
    "llm_timeout_seconds": "Settings.llm.timeout_seconds",
    "working_backend": "Settings.working.backend",
    "working_ttl_seconds": "Settings.working.ttl_seconds",
    "working_max_sessions": "Settings.working.max_sessions",
}


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
    max_request_bytes: int = Field(
        262_144, gt=0, description="larger HTTP bodies / tool arguments are refused unread"
    )
    read_workers: int = Field(
        16,
        ge=1,
        le=1024,
        description="tool calls that read (searches, gets, lists) running at once, each in a"
        " worker thread; more wait their turn",
    )
    write_workers: int = Field(
        4,
        ge=1,
        le=1024,
        description="tool calls that write running at once; writes take the service's write"
        " lock in turn, so a few keep it busy, and reads never wait behind them",
    )
    switch_interval_ms: float = Field(
        1.0,
        gt=0,
        le=100,
        description="how long one thread of `graphmem serve` may run Python before another"
        " waiting one gets its turn (Python's default: 5 ms); shorter lets the HTTP event loop"
        " answer sooner while searches and writes compute",
    )
    metrics: bool = Field(True, description="serve Prometheus metrics over HTTP (GET /metrics)")
    metrics_path: str = Field("/metrics", description="where the Prometheus endpoint is")
    metrics_token: SecretStr | None = Field(
        None, description="if set, GET /metrics needs 'Authorization: Bearer <this>'"
    )

    def __init__(self, **values: Any) -> None:
        # Only arguments are checked: the environment's variables of these names are the root's.
        moved = sorted(k for k in values if k in MOVED)
        if moved:
            where = ", ".join(f"{k} -> {MOVED[k]}" for k in moved)
            raise TypeError(f"McpSettings no longer takes {', '.join(moved)}: set {where}")
        super().__init__(**values)

    def tokens_path(self, settings: Settings) -> Path:
        return (self.tokens_file or settings.data_dir / "mcp_tokens.json").expanduser()


__all__ = ["McpSettings"]
