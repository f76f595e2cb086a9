"""Metadata screening: every key and every value of a memory's metadata, nested or not.

Metadata is stored beside the content and replayed with it, so an instruction or a phone number
hidden in it reaches the agent as surely as one in the content. Keys are caller-chosen text
too ({"ignore previous instructions and ...": 1} is a valid object), so they are screened and
masked exactly like values. Nothing is skipped for being late in the object or deeply nested:
the bound on the work is the metadata size limit (`MAX_METADATA_BYTES` of UTF-8 JSON), which
writes already enforce; metadata over it is refused here too rather than screened in part.

Each distinct string is canonicalised once: PII is masked in what is stored, the strings that
are not bare identifiers are joined for the phrase rules, and each prose-like string is scored
by the classifier on its own (joined, the model would read only the first part of a long
object and average a lone instruction away among ordinary values).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

# One limit and one message for writes (graphmem.domain.model.check_metadata) and the screen, which
# bounds its own work for callers that screen metadata no write has checked.
from graphmem.domain.model import MAX_METADATA_BYTES, metadata_too_large
from graphmem.domain.text import derived_cache
from graphmem.errors import InvalidInputError
from graphmem.guard.canonical import Canonical, canonicalize
from graphmem.guard.classifier import is_prose
from graphmem.guard.injection import REASON_FLOOR, InjectionResult, classify, screen
from graphmem.guard.pii import PiiFinding, find_pii
from graphmem.guard.policy import Action, Sealer, apply

# Integers this long may be phone or card numbers written as JSON numbers; shorter ones are
# counts, sizes and years.
_PII_INT_DIGITS = 7
_IDENT = re.compile(r"[\x21-\x7e]{1,32}")
_WORD = re.compile(r"[A-Za-z]{4,}")


def _identifier_like(raw: str, sanitized: str) -> bool:
    """An id, date, tag or counter ('D1:3', 'session_1', '2023-05-08'): one printable ASCII
    token with at most one word in it, unchanged by canonicalisation (nothing decoded, folded
    or hidden). No instruction fits in one word, so the injection rules skip it (PII is still
    masked); on LoCoMo writes this halves the rules' regular-expression searches."""
    return raw == sanitized and bool(_IDENT.fullmatch(raw)) and len(_WORD.findall(raw)) <= 1


# Keys and ids recur in every write ("dia_id", "session"); their canonical form and PII are
# remembered, so screening keys costs a lookup, not a canonicalisation, after the first write.
_CACHED_LEN = 64


@derived_cache
@lru_cache(maxsize=4096)
def _canonical_pii(s: str, max_depth: int) -> tuple[Canonical, tuple[PiiFinding, ...]]:
    canon = canonicalize(s, max_depth=max_depth)
    return canon, tuple(find_pii(canon))


_CACHED_JOINED = 512


@derived_cache
@lru_cache(maxsize=1024)
def _rules_risk(joined: str, source_weight: float) -> InjectionResult:
    """The phrase rules' score of a metadata object's joined non-identifier strings. Short
    joins recur from write to write: they are mostly keys of two words ("import_format",
    "chunk_index") with ids and dates left out, the same in every record of an import or a
    conversation, and scoring them again cost as much as screening the content (an import of
    mem0 records spent half its screening time here)."""
    return screen(joined, source_weight=source_weight, use_classifier=False)


@dataclass
class _Screened:
    """One distinct string of the metadata, canonicalised once."""

    canon: Canonical
    masked: str
    findings: list[PiiFinding]
    identifier: bool


class MetadataScreen:
    """Walks one metadata object; `run` returns the masked copy, PII found, and the risk."""

    def __init__(
        self,
        policy: dict[str, Action],
        hash_key: bytes | None,
        *,
        sealer: Sealer | None = None,
        max_decode_depth: int,
        source_weight: float,
        use_classifier: bool,
    ) -> None:
        self.policy = policy
        self.hash_key = hash_key
        self.sealer = sealer
        self.max_decode_depth = max_decode_depth
        self.source_weight = source_weight
        self.use_classifier = use_classifier
        self._seen: dict[str, _Screened] = {}
        self.findings: list[PiiFinding] = []

    def run(
        self, metadata: Mapping[str, Any]
    ) -> tuple[dict[str, Any], list[PiiFinding], InjectionResult]:
        check_size(metadata)
        try:
            masked = self._mapping(metadata)
        except RecursionError:
            raise InvalidInputError("metadata", "is nested too deeply to screen") from None
        return masked, self.findings, self._risk()

    # ------------------------------------------------------------------ walking
    def _string(self, s: str) -> str:
        got = self._seen.get(s)
        if got is None:
            if len(s) <= _CACHED_LEN:
                canon, found_t = _canonical_pii(s, self.max_decode_depth)
                found = list(found_t)
            else:
                canon = canonicalize(s, max_depth=self.max_decode_depth)
                found = find_pii(canon)
            masked = apply(canon.sanitized, found, self.policy, self.hash_key, self.sealer)[0]
            got = _Screened(canon, masked, found, _identifier_like(s, canon.sanitized))
            self._seen[s] = got
        # every occurrence counts, so a value repeated under two keys is reported twice
        self.findings.extend(got.findings)
        return got.masked

    def _value(self, v: Any) -> Any:
        if isinstance(v, str):
            return self._string(v) if v else v
        if isinstance(v, Mapping):
            return self._mapping(v)
        if isinstance(v, list | tuple):
            return [self._value(x) for x in v]
        if isinstance(v, int) and not isinstance(v, bool) and len(str(abs(v))) >= _PII_INT_DIGITS:
            text = str(v)
            masked = self._string(text)
            return v if masked == text else masked
        return v

    def _mapping(self, m: Mapping[Any, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in m.items():
            key = self._string(str(k)) if k != "" else ""
            if key in out:  # two keys masked to the same placeholder: keep both values
                n = 2
                while f"{key} ({n})" in out:
                    n += 1
                key = f"{key} ({n})"
            out[key] = self._value(v)
        return out

    # ------------------------------------------------------------------ risk
    def _risk(self) -> InjectionResult:
        texts = [
            x.canon.sanitized
            for x in self._seen.values()
            if not x.identifier and len(x.canon.sanitized) > 3
        ]
        if not texts:
            return InjectionResult(0.0)
        joined = "\n".join(texts)
        if len(joined) <= _CACHED_JOINED:
            got = _rules_risk(joined, self.source_weight)
            result = InjectionResult(got.risk, got.hits, dict(got.signals))  # callers own it
        else:
            result = screen(joined, source_weight=self.source_weight, use_classifier=False)
        if not self.use_classifier:
            return result
        # The classifier reads only prose: ids, dates and tags are not language, and the
        # model has no opinion worth having on them.
        best_p, best = 0.0, None
        for x in self._seen.values():
            if x.identifier or not is_prose(x.canon.folded):
                continue
            p = classify({"text": x.canon.folded, **x.canon.views})[0]
            if p > best_p:
                best_p, best = p, x
        if best is not None and best_p >= REASON_FLOOR:
            learned = screen(best.canon, source_weight=self.source_weight, use_classifier=True)
            if learned.risk > result.risk:
                result = learned
        return result


def check_size(metadata: Mapping[str, Any]) -> int:
    """The UTF-8 JSON size of `metadata`; refuses what is over the limit or not JSON."""
    try:
        size = len(json.dumps(metadata, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    except RecursionError:
        raise InvalidInputError("metadata", "is nested too deeply to screen") from None
    except (TypeError, ValueError) as e:
        raise InvalidInputError("metadata", f"is not JSON-serialisable: {e}") from None
    if size > MAX_METADATA_BYTES:
        raise InvalidInputError("metadata", metadata_too_large(size))
    return size


__all__ = ["MAX_METADATA_BYTES", "MetadataScreen", "check_size"]
