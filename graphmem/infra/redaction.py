"""Redaction of personal values in text that leaves the memory: log lines, error messages,
audit rows and the firewall's reasons.

A memory may keep its owner's contact details (that is what it is for), but a log line, an
exception text or an audit row is read by operators, shipped to log pipelines and kept for
years, so none of them may carry an email, a phone number, a name or a secret. The firewall's
reasons quote the text a rule matched, and a quote cut at 80 characters can end half-way
through an email, where matching the whole value no longer finds it; so this module does not
look values up, it recognises them in the text itself, plus the fragments a cut leaves.

IP addresses are left alone: in a log line or an error they are nearly always the address of a
server the operator configured, and hiding it would make a connection error unreadable.
"""

from __future__ import annotations

import re

# The fragments a cut excerpt leaves, which the recognisers need whole to see: "tom.baker@exa"
# (an address cut after the @) and "020 7946 03" (seven digits or more in separated groups;
# a plain count such as "1234567 rows" is left alone).
_EMAIL_PIECE = re.compile(r"[\w.+-]*\w@[\w.-]*|@[\w-]+\.[\w.-]+")
_DIGIT_RUN = re.compile(r"(?<![\w.:/-])\+?\d+(?:[\s().-]{1,2}\d+)+(?![\w:/-])")
_NOT_A_PHONE = re.compile(r"\d{4}-\d\d-\d\d|\d+\.\d+")  # a date, a decimal
# "[EMAIL]", "[secret:password#1]": placeholders are already safe and must stay readable.
_PLACEHOLDER = re.compile(r"\[[A-Za-z_]+(?::[A-Za-z0-9_#]+)?\]")


def _types() -> tuple[str, ...]:
    from graphmem.guard.pii import PII_TYPES

    return tuple(t for t in PII_TYPES if t != "ip_address")


def redact(text: str) -> str:
    """`text` with every recognised personal value and secret replaced by its type, e.g.
    "[EMAIL]", "[PHONE]", "[PERSON_NAME]", and stray email or phone fragments by "[REDACTED]".
    Cheap enough for every log record and error: text without digits or an @ and without a
    recogniser hit comes back unchanged."""
    if not text:
        return text
    from graphmem.guard.pii import find_pii

    out: list[str] = []
    pos = 0
    for f in find_pii(text, _types()):  # type: ignore[arg-type]
        out.append(text[pos : f.start])
        out.append(f"[{f.type.upper()}]")
        pos = f.end
    out.append(text[pos:])
    masked = "".join(out)
    if "@" in masked:
        masked = _EMAIL_PIECE.sub(_keep_placeholders("[REDACTED]"), masked)
    if any(c.isdigit() for c in masked):
        masked = _DIGIT_RUN.sub(_fragment, masked)
    return masked


def _fragment(m: re.Match[str]) -> str:
    """A phone number's fragment: 7 digits or more in separated groups, not a date or a
    decimal."""
    run = m.group(0)
    if _NOT_A_PHONE.fullmatch(run) or sum(c.isdigit() for c in run) < 7:
        return run
    return "[REDACTED]"


def _keep_placeholders(replacement: str):  # noqa: ANN202 - a re.sub callback
    def sub(m: re.Match[str]) -> str:
        return m.group(0) if _PLACEHOLDER.fullmatch(m.group(0)) else replacement

    return sub


__all__ = ["redact"]
