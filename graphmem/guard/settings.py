"""Firewall settings, from GRAPHMEM_GUARD_* environment variables or a .env file.

This is the `guard` section of the settings tree (`Settings().guard`), defined beside the guard
so the firewall can be configured, tested and benchmarked on its own (`Guard(GuardSettings())`).
Redis, for `rate_limit_backend` redis or auto, is the root's `redis_url`. Dict-valued settings
are JSON, and a partial dict is merged into the defaults, so
`GRAPHMEM_GUARD_PII_POLICY='{"email": "mask"}'` changes e-mail only. The PII policy takes kinds
(secret, contact, personal) and types, a type overriding its kind (graphmem.guard.policy).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from graphmem.guard.policy import (
    DEFAULT_DOCUMENT_POLICY,
    DEFAULT_POLICY,
    Action,
    check_policy,
    resolve,
)

DEFAULT_PII_POLICY: dict[str, str] = dict(DEFAULT_POLICY)
DEFAULT_RATE_LIMITS: dict[str, float] = {"write": 60.0, "search": 120.0}
# Extra injection risk by provenance, counted only when some rule already fired: text that came
# from a document or another agent is where indirect prompt injection lives.
DEFAULT_SOURCE_RISK: dict[str, float] = {
    "user": 0.0,
    "system": 0.0,
    "agent": 0.15,
    "document": 0.15,
}


class GuardSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="GRAPHMEM_GUARD_", env_file=".env", extra="ignore")

    enabled: bool = Field(True, description="screen writes at all (off: allow everything)")
    injection_threshold: float = Field(
        0.7, gt=0.0, le=1.0, description="risk at or above which a write is quarantined"
    )
    reject_threshold: float = Field(
        0.95, gt=0.0, le=1.0, description="risk at or above which a write is refused outright"
    )
    classifier: bool = Field(
        True,
        description="add the learned n-gram classifier to the rules (off: rules only)",
    )
    source_risk: dict[str, float] = Field(
        default_factory=lambda: dict(DEFAULT_SOURCE_RISK),
        description="extra injection risk by source, counted only when some rule already fired",
    )
    screen_metadata: bool = Field(True, description="screen and mask string values in metadata")
    max_decode_depth: int = Field(2, ge=0, le=4, description="nested base64/hex decoding depth")

    pii_policy: dict[str, str] = Field(
        default_factory=lambda: dict(DEFAULT_PII_POLICY),
        description="PII kind (secret, contact, personal) or type -> keep, vault, mask, reject"
        " or hash; a type overrides its kind; a partial dict changes those keys only",
    )
    pii_policy_documents: dict[str, str] = Field(
        default_factory=lambda: dict(DEFAULT_DOCUMENT_POLICY),
        description="the same, for what is ingested as documents (source=document)",
    )
    hash_key: SecretStr | None = Field(
        None, description="HMAC key for the 'hash' PII policy; required when any type uses it"
    )

    rate_limit_backend: Literal["auto", "memory", "redis", "off"] = Field(
        "memory",
        description="rate limits: memory (in-process, one server process), redis (shared by"
        " every process; redis_url, else redis://127.0.0.1:6379/0), auto (redis when redis_url"
        " is set, else memory) or off",
    )
    rate_limit_prefix: str = Field(
        "graphmem:rl:", description="Redis key prefix of the buckets (no `{` or `}`)"
    )
    rate_limits: dict[str, float] = Field(
        default_factory=lambda: dict(DEFAULT_RATE_LIMITS),
        description="calls per minute per user, by budget (each shared by the tools that spend it)",
    )
    rate_limit_fail_open: bool = Field(
        True, description="when Redis is unreachable: allow calls (True) or refuse them"
    )

    consensus_enabled: bool = Field(True, description="check writes against the user's memories")
    consensus_candidates: int = Field(8, ge=1, le=50, description="nearest memories compared")
    consensus_min_corroboration: int = Field(
        2, ge=1, description="agreeing memories that make a slot's value corroborated"
    )
    consensus_on_conflict: Literal["quarantine", "low_confidence"] = Field(
        "quarantine", description="what a write contradicting corroborated memories gets"
    )
    consensus_low_confidence: float = Field(
        0.3, ge=0.0, le=1.0, description="the confidence such a write is stored with"
    )
    consensus_similarity: float = Field(
        0.6, gt=0.0, le=1.0, description="frame overlap at which two claims share a subject"
    )

    def __init__(self, **values: Any) -> None:
        # Only an argument is checked: GRAPHMEM_GUARD_REDIS_URL is read by the root.
        if "redis_url" in values:
            raise TypeError(
                "GuardSettings no longer takes redis_url: pass Guard(settings, redis_url=...)"
                " (the root Settings.redis_url)"
            )
        super().__init__(**values)

    @field_validator("pii_policy", "pii_policy_documents", mode="before")
    @classmethod
    def _merge_policy(cls, v: Any) -> Any:
        if isinstance(v, dict):
            return {**DEFAULT_POLICY, **check_policy(v)}
        return v

    def actions(self, source: str = "user") -> dict[str, Action]:
        """The action for every PII type, for a write from `source`."""
        if str(source) == "document":
            return resolve(self.pii_policy_documents)
        return resolve(self.pii_policy)

    @field_validator("rate_limits", mode="before")
    @classmethod
    def _merge_limits(cls, v: Any) -> Any:
        # Limits are per user and budget, whichever tool spends them: a per-tool key (as older
        # versions took) would otherwise be silently ignored and the operator left unprotected.
        if isinstance(v, dict):
            unknown = set(v) - set(DEFAULT_RATE_LIMITS)
            if unknown:
                raise ValueError(
                    f"unknown rate-limit budgets {sorted(unknown)}; the budgets are"
                    f" {sorted(DEFAULT_RATE_LIMITS)}, each shared by every tool that spends it"
                )
            return {**DEFAULT_RATE_LIMITS, **v}
        return v

    @field_validator("source_risk", mode="before")
    @classmethod
    def _merge_sources(cls, v: Any) -> Any:
        return {**DEFAULT_SOURCE_RISK, **v} if isinstance(v, dict) else v

    @model_validator(mode="after")
    def _check(self) -> GuardSettings:
        if self.reject_threshold < self.injection_threshold:
            raise ValueError("reject_threshold must be >= injection_threshold")
        used = {*self.pii_policy.values(), *self.pii_policy_documents.values()}
        if "hash" in used and not self.hash_key:
            raise ValueError(
                "the 'hash' PII policy needs GRAPHMEM_GUARD_HASH_KEY (an HMAC key),"
                " otherwise hashed values could be recovered by guessing"
            )
        return self


__all__ = ["DEFAULT_PII_POLICY", "DEFAULT_RATE_LIMITS", "DEFAULT_SOURCE_RISK", "GuardSettings"]
