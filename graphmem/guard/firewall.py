"""The Guard: one object the service calls before every write and every search.

It composes the pieces in the order that keeps them honest:

1. rate limit (cheapest, and a refused call should cost nothing else);
2. canonicalise once (canonical.py) - every later step reads the same undisguised text;
3. PII: find on the canonical text, then keep, vault, mask or hash it in the stored text, or
   refuse, per the policy by kind (policy.py);
4. injection screening with the source's extra risk -> allow | quarantine | reject (rules plus
   the learned classifier; the classifier alone can quarantine but never reject).

The decision carries the masked content to store, the risk, human-readable reasons (PII values
scrubbed out of them) and what PII was found (types and positions, never values), so the caller
can store, quarantine or refuse and write an audit row without ever logging sensitive text.

The consensus check is separate (`Guard.consensus`) because it needs the user's nearest memories,
which only the service can fetch; the guard stays free of stores.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from graphmem.guard import injection
from graphmem.guard.canonical import canonicalize
from graphmem.guard.consensus import Candidate, ConsensusDecision, check_consensus
from graphmem.guard.injection import CLASSIFIER_RULE, InjectionResult, screen
from graphmem.guard.metadata import MetadataScreen
from graphmem.guard.pii import PiiFinding, find_pii
from graphmem.guard.policy import Action as PiiAction
from graphmem.guard.policy import SealedItem, Sealer, apply, for_search
from graphmem.guard.ratelimit import RateLimitExceeded, bucket_key
from graphmem.guard.settings import GuardSettings
from graphmem.stores import resolve_backend
from graphmem.stores.ratelimit import (
    InProcessRateLimiter,
    RateDecision,
    RateLimiter,
    RedisRateLimiter,
)

Action = Literal["allow", "quarantine", "reject"]


@dataclass(frozen=True)
class WriteDecision:
    """What to do with one write. `content_after_masking` is what may be stored and embedded."""

    action: Action
    content_after_masking: str
    risk: float
    reasons: list[str] = field(default_factory=list)
    pii_found: list[PiiFinding] = field(default_factory=list)
    metadata_after_masking: dict[str, Any] | None = None
    categories: list[str] = field(default_factory=list)
    signals: dict[str, int] = field(default_factory=dict)
    # The input that decided the action, so a refusal names what the caller must change.
    source_field: Literal["content", "metadata"] = "content"
    # Values the policy vaults, with the references that replace them; in memory only, for the
    # write to encrypt in its own transaction, and never in the audit details or reasons.
    sealed: list[SealedItem] = field(default_factory=list, repr=False)

    @property
    def status(self) -> str | None:
        """The memory status to store: active, quarantined, or None (do not store)."""
        return {"allow": "active", "quarantine": "quarantined"}.get(self.action)

    def audit_details(self) -> dict[str, Any]:
        """A summary safe for the audit log: no content, no PII values."""
        return {
            "action": self.action,
            "risk": self.risk,
            "categories": self.categories,
            "signals": self.signals,
            "pii": sorted({f.type for f in self.pii_found}),
            "pii_count": len(self.pii_found),
            "reasons": self.reasons[:10],
        }


@dataclass(frozen=True)
class SearchDecision:
    """A search may always proceed (a query is never stored); its PII is masked all the same so
    it does not reach query caches and logs, and its risk is kept for the audit."""

    action: Action
    query_after_masking: str
    risk: float
    reasons: list[str] = field(default_factory=list)
    pii_found: list[PiiFinding] = field(default_factory=list)


# Where rate limits looked for Redis before redis_url was one root setting; kept so that
# `rate_limit_backend=redis` alone still means a local Redis.
DEFAULT_RATE_LIMIT_REDIS_URL = "redis://127.0.0.1:6379/0"


def make_limiter(settings: GuardSettings, redis_url: str | None = None) -> RateLimiter | None:
    backend = resolve_backend(settings.rate_limit_backend, redis_url)
    if backend == "off":
        return None
    if backend == "redis":
        return RedisRateLimiter.from_url(
            redis_url or DEFAULT_RATE_LIMIT_REDIS_URL,
            settings.rate_limit_prefix,
            fail_open=settings.rate_limit_fail_open,
        )
    return InProcessRateLimiter()


def _alone_min_p(source: str) -> float:
    """How sure the classifier must be, with no rule fired, to count for text from `source`.

    Only document text (an ingested page) asks more: encyclopaedic prose is outside the
    classifier's training domain, and an instruction hidden in a page usually trips a rule too
    (see injection.DOCUMENT_ALONE_MIN_P). Read at call time so a benchmark can vary it.
    """
    return injection.DOCUMENT_ALONE_MIN_P if str(source) == "document" else 0.0


def _learned_only(result: InjectionResult) -> bool:
    """True when the classifier is the only evidence. A model's opinion alone sends a memory to
    review (quarantine) but never refuses it: refusal needs a rule a person can read."""
    return bool(result.hits) and all(h.rule == CLASSIFIER_RULE for h in result.hits)


def _scrub(reasons: list[str], findings: list[PiiFinding]) -> list[str]:
    """Replace PII values that a rule excerpt quoted (rules read the unmasked text), then
    whatever personal value or fragment the excerpt still shows (an excerpt cut half-way
    through an email no longer contains the whole value): reasons reach audit rows, logs,
    error messages and the review queue, which keep no personal data."""
    from graphmem.infra.redaction import redact

    if not findings:
        return [redact(r) for r in reasons]
    out = []
    for r in reasons:
        low = r.lower()
        for f in findings:
            v = f.value.lower()
            if v and v in low:
                i = low.index(v)
                r = r[:i] + f"[{f.type.upper()}]" + r[i + len(v) :]
                low = r.lower()
        out.append(redact(r))
    return out


class Guard:
    """Screens writes and searches; see the module docstring for the order of the checks."""

    def __init__(
        self,
        settings: GuardSettings | None = None,
        *,
        limiter: RateLimiter | None = None,
        redis_url: str | None = None,
    ) -> None:
        """`redis_url` is the root setting, for a redis (or auto) rate-limit backend."""
        self.settings = settings or GuardSettings()
        self.limiter = limiter if limiter is not None else make_limiter(self.settings, redis_url)
        key = self.settings.hash_key
        self._hash_key = key.get_secret_value().encode() if key else None

    # ------------------------------------------------------------------ rate limits
    def check_rate(
        self, user_id: str, tool: str, cost: float = 1, *, kind: str = "write"
    ) -> RateDecision | None:
        """Charge `cost` to the user's `kind` budget ("write" or "search"), whichever tool
        asks, or raise RateLimitExceeded. `tool` only names the caller in the error."""
        if self.limiter is None:
            return None
        limit = self.settings.rate_limits.get(kind, 0.0)
        decision = self.limiter.acquire(bucket_key(user_id, kind), limit, cost)
        if not decision.allowed:
            raise RateLimitExceeded(user_id, tool, decision, cost, kind)
        return decision

    # ------------------------------------------------------------------ writes
    def screen_write(
        self,
        content: str,
        source: str = "user",
        metadata: Mapping[str, Any] | None = None,
        *,
        sealer: Sealer | None = None,
    ) -> WriteDecision:
        """Screen one write without touching rate limits (batches, imports, benchmarks).

        `sealer` numbers the vault references; pass the one of an earlier screen of the same
        memory (its summary after its content, an update) so references do not collide.
        Vaulting is the policy's, and holds even with the screen disabled: turning injection
        screening off must not store a password in clear.
        """
        s = self.settings
        sealer = sealer if sealer is not None else Sealer()
        actions = s.actions(source)
        if not s.enabled:
            return self._unscreened(content, metadata, actions, sealer)
        canon = canonicalize(content, max_depth=s.max_decode_depth)
        findings = find_pii(canon)
        masked, rejected = apply(canon.sanitized, findings, actions, self._hash_key, sealer)
        result = screen(
            canon,
            source_weight=s.source_risk.get(str(source), 0.0),
            use_classifier=s.classifier,
            alone_min_p=_alone_min_p(source),
        )
        meta_out: dict[str, Any] | None = dict(metadata) if metadata else None
        culprit: Literal["content", "metadata"] = "content"
        if metadata and s.screen_metadata:
            meta_out, meta_findings, meta_result = self._screen_metadata(metadata, source, sealer)
            findings = findings + meta_findings
            meta_rejected = [f for f in meta_findings if actions.get(f.type) == "reject"]
            if meta_result.risk > result.risk:
                result = InjectionResult(meta_result.risk, meta_result.hits, meta_result.signals)
                culprit = "metadata"
            if rejected or meta_rejected:  # refused PII outranks risk; content's comes first
                culprit = "content" if rejected else "metadata"
            rejected += meta_rejected
        reasons = _scrub(result.reasons(), findings)
        if rejected:
            kinds = sorted({f.type for f in rejected})
            reasons.insert(0, f"pii: {', '.join(kinds)} not allowed by policy")
            action: Action = "reject"
        elif result.risk >= s.reject_threshold and not _learned_only(result):
            action = "reject"
        elif result.risk >= s.injection_threshold:
            action = "quarantine"
        else:
            action = "allow"
        return WriteDecision(
            action,
            masked,
            result.risk,
            reasons,
            findings,
            meta_out,
            result.categories,
            result.signals,
            culprit,
            [] if action == "reject" else sealer.items,
        )

    def _unscreened(
        self,
        content: str,
        metadata: Mapping[str, Any] | None,
        actions: dict[str, PiiAction],
        sealer: Sealer,
    ) -> WriteDecision:
        """With the screen off, only what the policy vaults is taken out (nothing is masked,
        refused or scored)."""
        vault_only: dict[str, PiiAction] = {
            t: ("vault" if a == "vault" else "keep") for t, a in actions.items()
        }
        if "vault" not in vault_only.values():
            return WriteDecision(
                "allow", content, 0.0, metadata_after_masking=dict(metadata) if metadata else None
            )
        canon = canonicalize(content, max_depth=0)
        text, _ = apply(canon.sanitized, find_pii(canon), vault_only, None, sealer)
        meta = None
        if metadata:
            meta = MetadataScreen(
                vault_only,
                None,
                sealer=sealer,
                max_decode_depth=0,
                source_weight=0.0,
                use_classifier=False,
            ).run(metadata)[0]
        return WriteDecision("allow", text, 0.0, metadata_after_masking=meta, sealed=sealer.items)

    def _screen_metadata(
        self, metadata: Mapping[str, Any], source: str, sealer: Sealer
    ) -> tuple[dict[str, Any], list[PiiFinding], InjectionResult]:
        """Mask PII in every metadata key and value and score them (see metadata.py)."""
        s = self.settings
        return MetadataScreen(
            s.actions(source),
            self._hash_key,
            sealer=sealer,
            max_decode_depth=s.max_decode_depth,
            source_weight=s.source_risk.get(str(source), 0.0),
            use_classifier=s.classifier,
        ).run(metadata)

    def before_write(
        self,
        user_id: str,
        content: str,
        source: str = "user",
        metadata: Mapping[str, Any] | None = None,
        *,
        tool: str = "write",
        cost: float = 1,
    ) -> WriteDecision:
        """Rate-limit then screen one write. Raises RateLimitExceeded when over the limit."""
        self.check_rate(user_id, tool, cost, kind="write")
        return self.screen_write(content, source, metadata)

    def before_write_many(
        self, user_id: str, items: Iterable[Mapping[str, Any]], *, tool: str = "write"
    ) -> list[WriteDecision]:
        """Charge the whole batch to the bucket once, then screen each item."""
        batch = list(items)
        self.check_rate(user_id, tool, len(batch), kind="write")
        return [
            self.screen_write(
                str(i.get("content", "")), str(i.get("source") or "user"), i.get("metadata")
            )
            for i in batch
        ]

    # ------------------------------------------------------------------ searches
    def before_search(self, user_id: str, query: str, *, tool: str = "search") -> SearchDecision:
        """Rate-limit a search and mask PII in its query. Raises RateLimitExceeded."""
        self.check_rate(user_id, tool, 1, kind="search")
        if not self.settings.enabled:
            return SearchDecision("allow", query, 0.0)
        canon = canonicalize(query, max_depth=self.settings.max_decode_depth)
        findings = find_pii(canon)
        policy = for_search(self.settings.actions())
        masked, _ = apply(canon.sanitized, findings, policy, self._hash_key)
        result = screen(canon, use_classifier=self.settings.classifier)
        return SearchDecision(
            "allow", masked, result.risk, _scrub(result.reasons(), findings), findings
        )

    def before_search_text(self, query: str) -> str:
        """The query with PII masked (never rejected: a query is not stored). No rate limit."""
        if not self.settings.enabled:
            return query
        canon = canonicalize(query, max_depth=0)
        findings = find_pii(canon)
        if not findings:
            return query
        policy = for_search(self.settings.actions())
        return apply(canon.sanitized, findings, policy, self._hash_key)[0]

    # ------------------------------------------------------------------ consensus
    def consensus(
        self,
        user_id: str,
        content: str,
        candidates: Iterable[Candidate],
        source: str = "user",
        *,
        updates: Iterable[Candidate] = (),
        correction: bool = False,
    ) -> ConsensusDecision:
        """Check `content` against memories of `user_id` that the caller fetched; `updates`
        are those it replaces by the temporal rules (see consensus.py for the one rule)."""
        s = self.settings
        if not s.enabled or not s.consensus_enabled:
            return ConsensusDecision("allow")
        return check_consensus(
            content,
            candidates,
            user_id=user_id,
            source=source,
            min_corroboration=s.consensus_min_corroboration,
            on_conflict=s.consensus_on_conflict,
            low_confidence=s.consensus_low_confidence,
            similarity=s.consensus_similarity,
            updates=updates,
            correction=correction,
        )


__all__ = ["Guard", "SearchDecision", "WriteDecision", "make_limiter"]
