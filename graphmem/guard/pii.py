"""PII and secret recognisers: find, validate, then mask, hash or reject - before anything is kept.

Recognisers are regular expressions plus the checks that make a digit string *mean* something:
the Chinese resident-ID checksum (GB 11643), the Luhn check for bank cards, ISO 13616 mod-97 for
IBANs, `ipaddress` for IPv6. Without those checks, order numbers, timestamps and ISBNs would be
masked all day. Secrets (API keys, tokens, private keys, passwords) are found by well-known
prefixes or by a keyword followed by a value.

Presidio was evaluated first (bench/firewall.py --presidio-python): it installs and runs offline
with a blank spaCy pipeline, but it has no Chinese resident-ID, API-key or password recogniser,
missed 19-digit UnionPay cards and 2-series Mastercards, read ISBNs and model numbers as phone
numbers, and costs about 0.9 ms per text (p95 2-10 ms) where these recognisers cost about
0.03 ms. So graphmem keeps its own; the numbers are in the benchmark.

All patterns run on the *folded* text (NFKC, homoglyphs folded, lower-cased, see canonical.py),
so full-width digits and zero-width splits do not hide a phone number; spans are mapped back to
the stored text for masking. Patterns use re.ASCII so that \\b and \\w treat CJK characters as
separators: "号码13812345678，" has a word boundary on both sides of the number.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

from graphmem.guard.canonical import Canonical, canonicalize
from graphmem.guard.checksums import (
    IBAN_LENGTHS,
    card_brand_ok,
    cn_id_valid,
    iban_valid,
    luhn_valid,
)
from graphmem.guard.pii_ids import (
    bank_accounts,
    cvvs,
    driver_licenses,
    login_passwords,
    passports,
    routing_numbers,
    ssns,
)
from graphmem.guard.pii_personal import birthdays, health, person_names, postal_addresses

# fmt: off
PiiType = Literal[
    # secrets
    "api_key", "password", "passport", "ssn", "driver_license", "cn_id", "bank_card", "cvv",
    "bank_account", "routing_number", "iban",
    # contact details
    "email", "phone", "postal_address", "ip_address",
    # personal data
    "person_name", "birthday", "health",
]
PiiKind = Literal["secret", "contact", "personal"]
PII_KINDS: tuple[PiiKind, ...] = ("secret", "contact", "personal")
KIND_OF: dict[PiiType, PiiKind] = {
    "api_key": "secret", "password": "secret", "passport": "secret", "ssn": "secret",
    "driver_license": "secret", "cn_id": "secret", "bank_card": "secret", "cvv": "secret",
    "bank_account": "secret", "routing_number": "secret", "iban": "secret",
    "email": "contact", "phone": "contact", "postal_address": "contact", "ip_address": "contact",
    "person_name": "personal", "birthday": "personal", "health": "personal",
}
PII_TYPES: tuple[PiiType, ...] = tuple(KIND_OF)
# fmt: on

_A = re.ASCII
_I = re.ASCII | re.IGNORECASE


@dataclass(frozen=True)
class PiiFinding:
    """One recognised value. `start`/`end` index the sanitised text; the value itself is kept
    only in memory for masking and never put into reasons or audit rows."""

    type: PiiType
    start: int
    end: int
    value: str
    detail: str = ""

    def describe(self) -> dict[str, object]:
        """What may be logged: type, position, length, detail - never the value."""
        return {
            "type": self.type,
            "start": self.start,
            "end": self.end,
            "length": self.end - self.start,
            "detail": self.detail,
        }


# ------------------------------------------------------------------ recognisers
# Each yields (start, end, detail) over the folded text.

Finder = Callable[[str], Iterator[tuple[int, int, str]]]

_EMAIL = re.compile(
    r"(?<![a-z0-9._%+'-])[a-z0-9][a-z0-9._%+'-]*@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?"
    r"(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\.[a-z]{2,24}(?![a-z0-9-])",
    _A,
)


def _emails(t: str) -> Iterator[tuple[int, int, str]]:
    if "@" in t:
        for m in _EMAIL.finditer(t):
            yield m.start(), m.end(), "email"


_CN_MOBILE = re.compile(
    r"(?<![0-9a-z.+])(?:(?:\+|00)86[\s-]?)?1[3-9]\d(?:[\s-]?\d{4}){2}(?![0-9a-z])", _A
)
_CN_LANDLINE = re.compile(
    r"(?<![0-9a-z.+(])(?:\(0\d{2,3}\)|0\d{2,3})[\s-]?\d{3,4}[\s-]?\d{4}(?![0-9a-z])", _A
)
_CN_SERVICE = re.compile(r"(?<![0-9a-z.])[48]00[\s-]?\d{3}[\s-]?\d{4}(?![0-9a-z])", _A)
# +CC then groups; validated by total digit count (E.164 allows 8..15).
_INTL = re.compile(
    r"(?<![0-9a-z+])(?:\+|00)[1-9]\d{0,2}(?:[\s.-]?\(?\d{1,5}\)?){1,5}(?![0-9a-z])", _A
)
# North American numbers without a country code must show their grouping.
_NANP = re.compile(
    r"(?<![0-9a-z.+-])(?:1[\s.-])?(?:\([2-9]\d{2}\)\s?|[2-9]\d{2}[\s.-])[2-9]\d{2}[\s.-]\d{4}"
    r"(?![0-9a-z]|[.-]\d)",
    _A,
)
# National trunk-prefix numbers (UK, EU, ...): 0 then 9..10 digits in 2..4 groups.
_NATIONAL = re.compile(r"(?<![0-9a-z.+-])0\d{1,4}(?:[\s-]\d{2,6}){1,3}(?![0-9a-z]|[.-]\d)", _A)


def _phones(t: str) -> Iterator[tuple[int, int, str]]:
    if sum(c.isdigit() for c in t) < 7:
        return
    for rx, detail in (
        (_CN_MOBILE, "cn_mobile"),
        (_CN_LANDLINE, "cn_landline"),
        (_CN_SERVICE, "cn_service"),
        (_INTL, "international"),
        (_NANP, "nanp"),
        (_NATIONAL, "national"),
    ):
        for m in rx.finditer(t):
            digits = sum(c.isdigit() for c in m.group())
            if detail in ("international", "national") and not 9 <= digits <= 15:
                continue
            yield m.start(), m.end(), detail


_CN_ID = re.compile(
    r"(?<![0-9a-z])[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}"
    r"[\dx](?![0-9a-z])",
    _A,
)


def _cn_ids(t: str) -> Iterator[tuple[int, int, str]]:
    for m in _CN_ID.finditer(t):
        if cn_id_valid(m.group().upper()):
            yield m.start(), m.end(), "checksum"


_CARD = re.compile(r"(?<![0-9a-z.-])\d(?:[ -]?\d){12,18}(?![0-9a-z]|[.-]\d)", _A)


def _cards(t: str) -> Iterator[tuple[int, int, str]]:
    """Luhn-valid, issuer-plausible digit runs. A run that fails is retried without its leading
    or trailing groups, so "0 4111 1111 1111 1111" still yields the card after the 0."""
    for m in _CARD.finditer(t):
        run = m.group()
        if len({c for c in run if not c.isdigit()}) > 1:
            continue
        groups = [(g.start(), g.end()) for g in re.finditer(r"\d+", run)]
        found = None
        for i in range(len(groups)):
            for j in range(len(groups), i, -1):
                s, e = groups[i][0], groups[j - 1][1]
                digits = re.sub(r"\D", "", run[s:e])
                if 13 <= len(digits) <= 19 and card_brand_ok(digits) and luhn_valid(digits):
                    found = (m.start() + s, m.start() + e)
                    break
            if found:
                break
        if found:
            yield found[0], found[1], "luhn"


_IBAN_START = re.compile(r"(?<![0-9a-z])[a-z]{2}\d{2}(?=[ ]?[0-9a-z])", _A)


def _ibans(t: str) -> Iterator[tuple[int, int, str]]:
    for m in _IBAN_START.finditer(t):
        want = IBAN_LENGTHS.get(m.group()[:2].upper())
        if not want:
            continue
        i, n, last = m.start(), 0, m.start()
        while i < len(t) and n < want:
            c = t[i]
            if c.isascii() and c.isalnum():
                n += 1
                last = i
            elif c != " " or (i + 1 < len(t) and t[i + 1] == " "):
                break
            i += 1
        end = last + 1
        glued = end < len(t) and t[end].isascii() and t[end].isalnum()
        if n == want and not glued and iban_valid(t[m.start() : end]):
            yield m.start(), end, "mod97"


_IPV4 = re.compile(
    r"(?<![0-9.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
    r"(?![0-9]|\.\d)",
    _A,
)
_IPV6_RUN = re.compile(r"[0-9a-f]*:[0-9a-f:.]*", _A)


def _ipv6_in_run(t: str, start: int, run: str) -> tuple[int, int] | None:
    """The IPv6 address in a run of hex digits and colons, if any.

    The run may be glued to a label after NFKC ("IPv6：2408::5" folds to "ipv6:2408::5"), so a
    first segment that continues a word is dropped before validating.
    """
    if start > 0 and t[start - 1].isascii() and t[start - 1].isalnum():
        cut = run.find(":")
        start, run = start + cut + 1, run[cut + 1 :]
    run = run.rstrip(".")
    if run.endswith(":") and not run.endswith("::"):
        run = run[:-1]
    if sum(c.isalnum() for c in run) < 2 or ("::" not in run and run.count(":") != 7):
        return None
    try:
        ipaddress.IPv6Address(run)
    except ValueError:
        return None
    return start, start + len(run)


def _ips(t: str) -> Iterator[tuple[int, int, str]]:
    if "." in t:
        for m in _IPV4.finditer(t):
            yield m.start(), m.end(), "ipv4"
    if "::" in t or t.count(":") >= 7:
        for m in _IPV6_RUN.finditer(t):
            end = m.end()
            if end < len(t) and t[end].isascii() and t[end].isalnum():
                continue
            found = _ipv6_in_run(t, m.start(), m.group())
            if found:
                yield found[0], found[1], "ipv6"


_KEY_PREFIXED = re.compile(
    r"(?<![0-9a-z_-])(?:"
    r"sk-(?:proj-|live-|test-|ant-)?[0-9a-z_-]{20,}"
    r"|(?:sk|rk|pk)_(?:live|test)_[0-9a-z]{16,}"
    r"|(?:akia|asia)[0-9a-z]{16}"
    r"|gh[pousr]_[0-9a-z]{30,}|github_pat_[0-9a-z_]{22,}"
    r"|xox[abposr]-[0-9a-z-]{10,}"
    r"|aiza[0-9a-z_-]{35}"
    r"|ya29\.[0-9a-z_-]{20,}"
    r"|glpat-[0-9a-z_-]{20,}"
    r"|hf_[0-9a-z]{30,}"
    r"|npm_[0-9a-z]{36}"
    r"|sg\.[0-9a-z_-]{20,}\.[0-9a-z_-]{20,}"
    r"|eyj[0-9a-z_-]{8,}\.eyj[0-9a-z_-]{8,}\.[0-9a-z_-]{8,}"
    r")(?![0-9a-z_-])",
    _A,
)
_PRIVATE_KEY = re.compile(
    r"-----begin [a-z ]*private key-----[\s\S]*?(?:-----end [a-z ]*private key-----|$)", _A
)
_BEARER = re.compile(r"\bbearer\s+([0-9a-z._~+/-]{16,}=*)", _A)
_KEY_ASSIGNED = re.compile(
    r"(?:\b(?:api[_ -]?key|apikey|secret(?:[_ -]?key)?|access[_ -]?token|auth[_ -]?token|"
    r"refresh[_ -]?token|client[_ -]?secret|private[_ -]?key|token|access[_ -]?key)|密钥|令牌)"
    r"\s*(?:is|=|:|为|是)?\s*[\"']?([0-9a-z._~+/=-]{12,})",
    _A,
)


def _secrets(t: str) -> Iterator[tuple[int, int, str]]:
    for m in _KEY_PREFIXED.finditer(t):
        yield m.start(), m.end(), "prefixed"
    if "-----" in t:
        for m in _PRIVATE_KEY.finditer(t):
            yield m.start(), m.end(), "private_key"
    for rx in (_BEARER, _KEY_ASSIGNED):
        for m in rx.finditer(t):
            v = m.group(1)
            if re.search(r"\d", v) and re.search(r"[a-z]", v):
                yield m.start(1), m.end(1), "assigned"


_PW_VALUE = r"[\"'“‘]?([\x21-\x7e]{3,64}?)[\"'”’]?(?=[\s,，。;；)]|$)"
_PW_STRICT = re.compile(  # "password: X", "pwd=X", "pass: X", "密码：X"
    r"(?:\b(?:password|passwd|pwd|passcode|passphrase|pass|pin)|密码|口令)\s*(?:[:=]|->)\s*"
    + _PW_VALUE,
    _A,
)
_PW_SOFT = re.compile(  # "my password is X", "密码是X", "PIN 1234": the value must look like one
    r"(?:\b(?:password|passwd|passcode|passphrase|pin(?: code| number)?)"
    r"(?:\s+(?:for|of|to|on)\s+[^\s:=.!?,;]+(?:\s+[^\s:=.!?,;]+)?)?\s+(?:is|was|are)?\s*"
    r"|(?:密码|口令)(?:是|为)?\s*)" + _PW_VALUE,
    _A,
)


# Words that follow "my password is" without being the password ("... is expired").
_NOT_PASSWORDS = frozenset(
    "about also always another changed correct different easy expired forgotten hard here "
    "incorrect invalid long missing needed required secure short simple somewhere still "
    "strong there too unknown very weak written wrong".split()
)


def _plain_word_password(t: str, v: str, end: int) -> bool:
    """An all-letter value after "password is" is a password only when it ends the clause and
    reads like a chosen word, not a description: "the wifi password is bluehorse." yes, "my
    password is complicated" or "my password is somewhere in my notes" no."""
    if len(v) < 6 or v in _NOT_PASSWORDS or re.search(r"(?:ed|ing|ly|ble|ful|ous)$", v):
        return False
    return end == len(t) or t[end] in ".,;!，。；！"


def _value_end(t: str, m: re.Match[str]) -> int:
    """End of a password value without the full stop or comma that ends the sentence: "my
    password is hunter2." stores "hunter2"."""
    end = m.end(1)
    if end - m.start(1) > 3 and t[end - 1] in ".,;:" and (end == len(t) or t[end].isspace()):
        end -= 1
    return end


def _passwords(t: str) -> Iterator[tuple[int, int, str]]:
    if not re.search(r"pass|pwd|pin|log|cred|sign|密码|口令|登", t):
        return
    for m in _PW_STRICT.finditer(t):
        yield m.start(1), _value_end(t, m), "assigned"
    for m in _PW_SOFT.finditer(t):
        if t[m.start(1)] in ":=-":  # "密码：x" is the strict form; the soft one would swallow ":"
            continue
        end = _value_end(t, m)
        v = t[m.start(1) : end]
        quoted = m.start(1) > 0 and t[m.start(1) - 1] in "\"'“‘"
        stated = re.search(r"\b(?:is|was|are)\s*$|[是为]\s*$", t[m.start() : m.start(1)])
        # Without "is" the value must carry a digit: "PIN 4821" yes, "no PIN needed" no.
        if (
            quoted
            or (re.search(r"[^a-z]", v) if stated else re.search(r"\d", v))
            or (stated and _plain_word_password(t, v, end))
        ):
            yield m.start(1), end, "stated"
    yield from login_passwords(t)


RECOGNISERS: dict[PiiType, Finder] = {
    "api_key": _secrets,
    "email": _emails,
    "iban": _ibans,
    "cn_id": _cn_ids,
    "bank_card": _cards,
    "ssn": ssns,
    "routing_number": routing_numbers,
    "passport": passports,
    "driver_license": driver_licenses,
    "bank_account": bank_accounts,
    "cvv": cvvs,
    "password": _passwords,
    "ip_address": _ips,
    "phone": _phones,
    "birthday": birthdays,
    "health": health,
}
# Names and street addresses need letter case, which the folded text has lost.
CASED_RECOGNISERS: dict[PiiType, Callable[[Canonical], Iterator[tuple[int, int, str]]]] = {
    "postal_address": postal_addresses,
    "person_name": person_names,
}
# When two findings overlap, the earlier type here wins, then the longer span: a secret beats
# anything inside or around it ("password: 13812345678" is a password, not a phone), an ID
# checksum beats a Luhn coincidence, a contact detail beats a name or a date.
# fmt: off
_ORDER: tuple[PiiType, ...] = (
    "api_key", "email", "iban", "cn_id", "bank_card", "ssn", "routing_number", "passport",
    "driver_license", "bank_account", "cvv", "password", "ip_address", "phone", "postal_address",
    "birthday", "person_name", "health",
)
# fmt: on
_PRIORITY = {t: i for i, t in enumerate(_ORDER)}


def find_pii(canon: Canonical | str, types: tuple[PiiType, ...] | None = None) -> list[PiiFinding]:
    """Every PII finding in the text, non-overlapping, ordered by position."""
    c = canon if isinstance(canon, Canonical) else canonicalize(canon)
    t = c.folded
    raw: list[tuple[int, int, int, int, PiiType, str]] = []
    for typ, finder in RECOGNISERS.items():
        if types is not None and typ not in types:
            continue
        for s, e, detail in finder(t):
            raw.append((_PRIORITY[typ], s - e, s, e, typ, detail))
    for typ, cased in CASED_RECOGNISERS.items():
        if types is not None and typ not in types:
            continue
        for s, e, detail in cased(c):
            raw.append((_PRIORITY[typ], s - e, s, e, typ, detail))
    raw.sort()
    taken: list[tuple[int, int]] = []
    out: list[PiiFinding] = []
    for _, _, s, e, typ, detail in raw:
        if any(s < te and ts < e for ts, te in taken):
            continue
        taken.append((s, e))
        ss, se = c.span_in_sanitized(s, e)
        out.append(PiiFinding(typ, ss, se, c.sanitized[ss:se], detail))
    out.sort(key=lambda f: f.start)
    return out


__all__ = [
    "IBAN_LENGTHS",
    "KIND_OF",
    "PII_KINDS",
    "PII_TYPES",
    "PiiFinding",
    "PiiKind",
    "PiiType",
    "card_brand_ok",
    "cn_id_valid",
    "find_pii",
    "iban_valid",
    "luhn_valid",
]
