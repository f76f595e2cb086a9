"""graphmem's memory firewall: screening at the service boundary, before anything is stored.

    guard = Guard()                      # GuardSettings() from GRAPHMEM_GUARD_* variables
    d = guard.before_write(user_id, content, source="document", metadata=meta)
    d.action                             # "allow" | "quarantine" | "reject"
    d.content_after_masking              # what to store and embed (PII masked or hashed)
    d.risk, d.reasons, d.pii_found       # why; PII as types and positions, never values
    guard.before_search(user_id, query)  # rate limit + PII-masked query
    guard.consensus(user_id, content, candidates)   # contradiction check, no LLM

Modules, one concept each: `canonical` (undo disguises), `injection` (the scorer), `rules`
(its phrase rules, as data), `concepts` (its concept co-occurrence layer), `classifier` (its
learned n-gram model; weights in `injection_model.npz`), `pii` (recognisers and
policies), `ratelimit` (token buckets, in-process and Redis), `consensus` (contradictions against
corroborated memories), `audit_report` (anomalies from audit rows), `settings` (GuardSettings, the
`guard` section of graphmem.settings), `firewall` (the Guard that composes them).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphmem.guard.canonical import Canonical, canonicalize
    from graphmem.guard.consensus import Candidate, ConsensusDecision, check_consensus
    from graphmem.guard.firewall import Guard, SearchDecision, WriteDecision
    from graphmem.guard.injection import InjectionResult, screen
    from graphmem.guard.pii import PiiFinding, find_pii
    from graphmem.guard.ratelimit import RateLimitExceeded
    from graphmem.guard.settings import GuardSettings
    from graphmem.stores.ratelimit import (
        InProcessRateLimiter,
        RateDecision,
        RateLimiter,
        RedisRateLimiter,
    )

# Resolved on first use (PEP 562): the settings import graphmem.guard.settings, which runs this
# package first; loading the scorer's rules, lexicons and classifier here made every
# Settings() cost ~0.3 s more for commands that never screen anything (graphmem config).
_EXPORTS = {
    "Canonical": "graphmem.guard.canonical",
    "canonicalize": "graphmem.guard.canonical",
    "Candidate": "graphmem.guard.consensus",
    "ConsensusDecision": "graphmem.guard.consensus",
    "check_consensus": "graphmem.guard.consensus",
    "Guard": "graphmem.guard.firewall",
    "SearchDecision": "graphmem.guard.firewall",
    "WriteDecision": "graphmem.guard.firewall",
    "InjectionResult": "graphmem.guard.injection",
    "screen": "graphmem.guard.injection",
    "PiiFinding": "graphmem.guard.pii",
    "find_pii": "graphmem.guard.pii",
    "RateLimitExceeded": "graphmem.guard.ratelimit",
    "GuardSettings": "graphmem.guard.settings",
    "InProcessRateLimiter": "graphmem.stores.ratelimit",
    "RateDecision": "graphmem.stores.ratelimit",
    "RateLimiter": "graphmem.stores.ratelimit",
    "RedisRateLimiter": "graphmem.stores.ratelimit",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'graphmem.guard' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "Candidate",
    "Canonical",
    "ConsensusDecision",
    "Guard",
    "GuardSettings",
    "InProcessRateLimiter",
    "InjectionResult",
    "PiiFinding",
    "RateDecision",
    "RateLimitExceeded",
    "RateLimiter",
    "RedisRateLimiter",
    "SearchDecision",
    "WriteDecision",
    "canonicalize",
    "check_consensus",
    "find_pii",
    "screen",
]
