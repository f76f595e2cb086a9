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
