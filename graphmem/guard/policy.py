"""The PII policy by kind: what happens to a secret, a contact detail or a personal datum.

Each recognised value (graphmem.guard.pii) is one of three kinds - a secret, a contact detail,
personal data - and each kind, or a single type inside it, gets one action:

- `keep`: stored as written. Contact details and personal data are the owner's own memories
  ("our plumber Joe can be reached at ..."): masking them loses what the user asked to keep.
- `vault`: the value is encrypted into the vault (graphmem.guard.vault) and replaced in the
  memory by a typed reference, `[secret:password#1]`, which is all that reaches the keyword
  index, vectors, graph, caches, logs and exports. Only the owner reads it back, explicitly.
- `mask`: replaced by its type, `[EMAIL]`; the value is gone.
- `reject`: the write is refused.
- `hash` (kept for existing configurations): a keyed digest, `[EMAIL:1a2b...]`, so equal
  values stay linkable; needs `hash_key`. `allow` is read as `keep`.

A type's own entry overrides its kind's (`{"secret": "vault", "email": "mask"}`). Types and
kinds are read from graphmem.guard.pii, never listed here, so a new recogniser is covered by
its kind's setting the day it is added.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from graphmem.guard.pii import KIND_OF, PII_KINDS, PII_TYPES, PiiFinding

Action = Literal["keep", "vault", "mask", "reject", "hash"]
ACTIONS: tuple[str, ...] = ("keep", "vault", "mask", "reject", "hash", "allow")

# Defaults for what users write and for what an operator ingests as documents: a handbook's
# escalation line and a supplier's hotline are what the document is for, so contact details
# stay in both; secrets never stay in clear in either.
DEFAULT_POLICY: dict[str, str] = {"secret": "vault", "contact": "keep", "personal": "keep"}
DEFAULT_DOCUMENT_POLICY: dict[str, str] = dict(DEFAULT_POLICY)

# `[secret:password#1]`: what a vaulted value becomes in the memory's text.
REF_RE = re.compile(r"\[secret:([a-z_]+)#(\d+)\]")


def check_policy(raw: Mapping[str, object]) -> dict[str, str]:
    """Normalise a policy mapping (kinds and types to actions), or raise ValueError naming
    the unknown key or action; `allow` becomes `keep`."""
    out: dict[str, str] = {}
    for key, value in raw.items():
        k = str(key).strip().lower()
        if k not in PII_KINDS and k not in PII_TYPES:
            raise ValueError(
                f"unknown PII kind or type {key!r}; kinds: {list(PII_KINDS)},"
                f" types: {list(PII_TYPES)}"
            )
        v = str(value).strip().lower()
        if v not in ACTIONS:
            raise ValueError(
                f"unknown PII action {value!r} for {key!r}; one of keep, vault, mask, reject, hash"
            )
        out[k] = "keep" if v == "allow" else v
    return out


def resolve(policy: Mapping[str, str]) -> dict[str, Action]:
    """The action for every known type: its own entry, else its kind's, else `mask` (a type
    with no kind and no entry is the safe side of unknown)."""
    out: dict[str, Action] = {}
    for t in PII_TYPES:
        kind = KIND_OF.get(t)
        v = policy.get(t) or (policy.get(kind) if kind else None) or "mask"
        out[t] = "keep" if v == "allow" else v  # type: ignore[assignment]
    return out


def for_search(actions: Mapping[str, Action]) -> dict[str, Action]:
    """A query is never stored, so nothing in it is vaulted or refused: what would be is
    masked before it reaches a cache or a log; contact details stay (they are search terms)."""
    return {t: ("mask" if a in ("vault", "reject") else a) for t, a in actions.items()}


@dataclass(frozen=True)
class SealedItem:
    """One vaulted value of one memory, held in memory only until it is encrypted. The value
    is left out of repr so that no log line or traceback can print it."""

    type: str
    ref: str
    value: str = field(repr=False)


class Sealer:
    """Numbers one memory's vaulted values: `[secret:<type>#<n>]`, n counting per memory in
    the order first seen; the same value again gets the same reference. `start` continues the
    numbering of a memory that already holds references (an update)."""

    def __init__(self, start: int = 0) -> None:
        self._n = start
        self._by_value: dict[tuple[str, str], SealedItem] = {}

    def seal(self, type_: str, value: str) -> str:
        got = self._by_value.get((type_, value))
        if got is None:
            self._n += 1
            got = SealedItem(type_, f"[secret:{type_}#{self._n}]", value)
            self._by_value[(type_, value)] = got
        return got.ref

    @property
    def items(self) -> list[SealedItem]:
        return list(self._by_value.values())


def placeholder(finding: PiiFinding, action: Action, hash_key: bytes | None) -> str:
    """The text that replaces a masked or hashed finding: [EMAIL] or [EMAIL:1a2b3c4d5e6f].

    Hashing is a keyed HMAC so equal values stay linkable across memories without a dictionary
    attack on the stored token recovering them.
    """
    label = finding.type.upper()
    if action == "hash":
        norm = re.sub(r"[\s().-]", "", finding.value).lower()
        digest = hmac.new(hash_key or b"", norm.encode(), hashlib.sha256).hexdigest()[:12]
        return f"[{label}:{digest}]"
    return f"[{label}]"


def apply(
    text: str,
    findings: list[PiiFinding],
    actions: Mapping[str, Action],
    hash_key: bytes | None = None,
    sealer: Sealer | None = None,
) -> tuple[str, list[PiiFinding]]:
    """Apply the per-type actions to `text` (the sanitised text the findings index); return
    the text to store and the findings whose action is `reject`.

    Rejected findings are masked too, in case a caller stores anyway; a `vault` finding with
    no sealer to take it is masked (its value must not stay in clear either way).
    """
    rejected = [f for f in findings if actions.get(f.type, "mask") == "reject"]
    out: list[str] = []
    pos = 0
    for f in findings:
        a = actions.get(f.type, "mask")
        if a == "keep":
            continue
        out.append(text[pos : f.start])
        if a == "vault" and sealer is not None:
            out.append(sealer.seal(f.type, f.value))
        else:
            out.append(placeholder(f, "hash" if a == "hash" else "mask", hash_key))
        pos = f.end
    out.append(text[pos:])
    return "".join(out), rejected


def redact(text: str, kinds: tuple[str, ...] = ("contact", "personal")) -> str:
    """`text` with every detail of these kinds masked ([EMAIL], [PHONE], [PERSON_NAME]): what an
    export with --redact writes, for a copy that leaves the owner's hands. Secrets are already
    references in stored text; anything else is left as it is."""
    from graphmem.guard.canonical import canonicalize
    from graphmem.guard.pii import find_pii

    c = canonicalize(text)
    actions: dict[str, Action] = {t: "mask" for t in PII_TYPES if KIND_OF.get(t) in kinds}
    found = [f for f in find_pii(c) if f.type in actions]
    return apply(c.sanitized, found, actions)[0] if found else text


def refs_in(text: str) -> int:
    """The highest reference number in `text` (0 if none), to continue a memory's numbering."""
    return max((int(m.group(2)) for m in REF_RE.finditer(text)), default=0)


__all__ = [
    "ACTIONS",
    "DEFAULT_DOCUMENT_POLICY",
    "DEFAULT_POLICY",
    "REF_RE",
    "Action",
    "SealedItem",
    "Sealer",
    "apply",
    "check_policy",
    "for_search",
    "placeholder",
    "redact",
    "refs_in",
    "resolve",
]
