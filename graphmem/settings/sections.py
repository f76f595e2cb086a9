"""Sections of the settings tree that have no code of their own to live beside yet: the LLM
endpoint (`settings.llm`) and temporal reasoning (`settings.temporal`); and tracing
(`settings.tracing`), whose code (graphmem.infra.tracing) sits on every write and search path and so
keeps its imports to the standard library.

The guard's section stays in graphmem.guard.settings (its PII policies are typed by the guard)
and the server's in graphmem.settings.server; the root builds every section once, with itself.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)


def section_config(prefix: str) -> SettingsConfigDict:
    """How a section reads its variables: `prefix` + the field's name (or the field's own
    validation alias, the variable it kept from before the sections), from the environment and
    the same .env file as the root; a field may also be passed by its name."""
    return SettingsConfigDict(
        env_prefix=prefix, env_file=".env", extra="ignore", populate_by_name=True
    )


# The write-time summaries had an endpoint of their own under this name. Whoever still sets it
# wants those summaries, so its presence turns them on (see LlmSettings.write_summaries).
LEGACY_SUMMARY_URL = "GRAPHMEM_SUMMARY_LLM_URL"


class LlmSettings(BaseSettings):
    """One OpenAI-compatible endpoint, used by the memory_summarize tool and, when
    write_summaries is on, for each memory's summary at write time.

    The GRAPHMEM_SUMMARY_LLM_* names are deprecated aliases: they configured a second endpoint
    for the write-time summaries. Each use keeps its own timeout, as before.
    """

    model_config = SettingsConfigDict(
        env_prefix="GRAPHMEM_LLM_", env_file=".env", extra="ignore", populate_by_name=True
    )

    url: str | None = Field(
        None,
        validation_alias=AliasChoices("GRAPHMEM_LLM_URL", LEGACY_SUMMARY_URL),
        description="OpenAI-compatible base URL (e.g. http://127.0.0.1:8000/v1); unset"
        " (default): memory_summarize and the summaries are extractive",
    )
    model: str | None = Field(
        None,
        validation_alias=AliasChoices("GRAPHMEM_LLM_MODEL", "GRAPHMEM_SUMMARY_LLM_MODEL"),
        description="the model name sent with each request",
    )
    api_key: SecretStr | None = Field(
        None,
        validation_alias=AliasChoices("GRAPHMEM_LLM_API_KEY", "GRAPHMEM_SUMMARY_LLM_API_KEY"),
        description="sent as 'Authorization: Bearer <this>'",
    )
    timeout_seconds: float = Field(20.0, gt=0, description="per memory_summarize call")
    summary_timeout_seconds: float = Field(
        10.0,
        gt=0,
        validation_alias=AliasChoices(
            "GRAPHMEM_LLM_SUMMARY_TIMEOUT_SECONDS", "GRAPHMEM_SUMMARY_LLM_TIMEOUT_SECONDS"
        ),
        description="per write-time summary; on a timeout the summary is extractive",
    )
    write_summaries: bool = Field(
        False,
        description="ask the endpoint for each memory's summary at write time (falls back to"
        f" the extractive summary on any failure); on by default when {LEGACY_SUMMARY_URL}"
        " is set",
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        legacy = _LegacySummaries(settings_cls, env_settings, dotenv_settings)
        return init_settings, env_settings, dotenv_settings, file_secret_settings, legacy

    @property
    def summary_url(self) -> str | None:
        """The endpoint for write-time summaries, None when they are extractive."""
        return self.url if self.write_summaries else None


class _LegacySummaries(PydanticBaseSettingsSource):
    """Lowest-priority source: write_summaries defaults to on when the old name is set."""

    def __init__(self, settings_cls: type[BaseSettings], *sources: PydanticBaseSettingsSource):
        super().__init__(settings_cls)
        self.sources = sources

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        for source in self.sources:
            if isinstance(source, EnvSettingsSource) and any(
                k.upper() == LEGACY_SUMMARY_URL and v for k, v in source.env_vars.items()
            ):
                return {"write_summaries": True}
        return {}


class TemporalSettings(BaseSettings):
    """Temporal reasoning: which writes update earlier memories, and how the past is ranked."""

    model_config = SettingsConfigDict(
        env_prefix="GRAPHMEM_TEMPORAL_", env_file=".env", extra="ignore"
    )

    enabled: bool = Field(True, description="detect updates on write (slots, corrections)")
    switch_updates: bool = Field(
        True,
        description="a write with a switch cue (改用, 换成, 不再, switched to, no longer, ...)"
        " supersedes the earlier memory its clause clearly matches best, slot or not",
    )
    slot_rules: list[dict[str, str]] = Field(
        default_factory=list,
        description="extra slot rules, JSON:"
        ' [{"attribute": "gym", "pattern": "my gym is (?P<value>.+)"}]',
    )
    history_boost: float = Field(
        0.25,
        ge=0.0,
        le=1.0,
        description="in a query about the past, a superseded hit's score s becomes"
        " 1 - (1 - s)(1 - boost)",
    )


__all__ = ["LEGACY_SUMMARY_URL", "LlmSettings", "TemporalSettings", "section_config"]


class TracingSettings(BaseSettings):
    """OpenTelemetry traces (graphmem.infra.tracing, docs/observability.md): off unless `mode` says
    where the spans go. A section of its own because the whole process follows it, whichever
    way graphmem runs (library, CLI, MCP server, inspector)."""

    model_config = SettingsConfigDict(
        env_prefix="GRAPHMEM_TRACING_", env_file=".env", extra="ignore", populate_by_name=True
    )

    mode: Literal["off", "console", "otlp"] = Field(
        "off",
        description="OpenTelemetry spans for every write and search (graphmem[otel]): console"
        " (one JSON line per span on stderr) or otlp (to otlp_endpoint); docs/observability.md",
    )
    otlp_endpoint: str | None = Field(
        None,
        description="for mode otlp: the collector's traces URL; unset: the"
        " OTEL_EXPORTER_OTLP_TRACES_ENDPOINT variable, else http://localhost:4318/v1/traces",
    )
