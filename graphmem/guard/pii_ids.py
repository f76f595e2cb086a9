"""Recognisers for identity and account numbers that only mean something next to their name.

A nine-digit run is an order number, a ticket, a tracking code or a timestamp far more often than
a social-security or routing number, so every recogniser here needs a cue ("SSN", "passport",
"驾驶证", "account number", "CVV") right before the value, and validates what can be validated:
the SSA's area/group/serial rules, the ABA routing checksum, the shape of a passport number. The
one exception is the dashed 3-2-4 SSN form, which no phone, date, version or ticket format shares.
Login lines ("HR portal login: jdoe / Tr0ub4dor&3") yield their password here too, because the
password is only recognisable by its place after the user name.

Each finder reads the folded text (lower-cased, NFKC, see canonical.py) and yields
(start, end, detail) of the value alone, so masking keeps the cue: "passport [secret]".
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_A = re.ASCII

# Between a cue and its value: "is", "=", ":", "#", "no.", "是", "为", "：" (folded to ":").
_SEP = r"\s*(?:(?:number|no\.?|num|#)\s*)?(?:(?:is|was|=|:|-|为|是|:)\s*)?(?:#\s*)?"


def ssn_valid(area: str, group: str, serial: str) -> bool:
    """SSA rules: area not 000, 666 or 9xx; group not 00; serial not 0000."""
    return area not in ("000", "666") and area[0] != "9" and group != "00" and serial != "0000"


def aba_valid(digits: str) -> bool:
    """ABA routing-number checksum: 3-7-1 weights, sum divisible by 10."""
    if len(digits) != 9 or not digits.isdigit():
        return False
    d = [int(c) for c in digits]
    total = 3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + d[2] + d[5] + d[8]
    return total % 10 == 0 and digits[:2] in _ABA_PREFIXES


# Federal Reserve routing symbols (00-12), thrift (21-32), electronic (61-72), traveller's (80).
_ABA_PREFIXES = frozenset(
    [f"{i:02d}" for i in range(0, 13)]
    + [f"{i:02d}" for i in range(21, 33)]
    + [f"{i:02d}" for i in range(61, 73)]
    + ["80"]
)

_SSN_DASHED = re.compile(r"(?<![0-9a-z.-])(\d{3})-(\d{2})-(\d{4})(?![0-9a-z]|[.-]\d)", _A)
_SSN_CUED = re.compile(
    r"(?:\b(?:ssn|social security(?: number| no\.?| #)?|social insurance number|sin)"
    r"|社保号码?|社会保障号码?|社会安全号码?)"
    + _SEP
    + r"(\d{3})[\s-]?(\d{2})[\s-]?(\d{4})(?![0-9a-z])",
    _A,
)


def ssns(t: str) -> Iterator[tuple[int, int, str]]:
    if "-" in t:
        for m in _SSN_DASHED.finditer(t):
            if ssn_valid(*m.groups()):
                yield m.start(), m.end(), "dashed"
    if re.search(r"ssn|social|\bsin\b|社", t):
        for m in _SSN_CUED.finditer(t):
            if ssn_valid(*m.groups()):
                yield m.start(1), m.end(3), "cued"


_ROUTING = re.compile(
    r"\b(?:routing|aba|rtn|transit)(?: number| no\.?| #| code)?" + _SEP + r"(\d{9})(?![0-9a-z])",
    _A,
)


def routing_numbers(t: str) -> Iterator[tuple[int, int, str]]:
    if re.search(r"routing|aba|rtn|transit", t):
        for m in _ROUTING.finditer(t):
            if aba_valid(m.group(1)):
                yield m.start(1), m.end(1), "aba_checksum"


_PASSPORT = re.compile(
    r"(?:\bpassport(?:\s+(?:number|no\.?|num|#|id))?|护照(?:号码|号)?)"
    r"\s*(?:(?:is|was|=|:|-|为|是)\s*)?(?:#\s*)?([a-z]{0,2}\d{6,9})(?![0-9a-z])",
    _A,
)


def passports(t: str) -> Iterator[tuple[int, int, str]]:
    if "passport" in t or "护照" in t:
        for m in _PASSPORT.finditer(t):
            yield m.start(1), m.end(1), "cued"


_LICENCE = re.compile(
    r"(?:\bdriv(?:er'?s?|ing)\s+licen[cs]e(?:\s+(?:number|no\.?|num|#|id))?"
    r"|\bdl\s*(?:#|no\.?|number|num|id|:)|驾照(?:号码|号)?|驾驶证(?:号码|号)?)"
    r"\s*(?:(?:is|was|=|:|-|为|是)\s*)?(?:#\s*)?([0-9a-z][0-9a-z-]{4,19})(?![0-9a-z-])",
    _A,
)


def driver_licenses(t: str) -> Iterator[tuple[int, int, str]]:
    if re.search(r"licen[cs]e|\bdl\b|驾", t):
        for m in _LICENCE.finditer(t):
            v = m.group(1)
            if sum(c.isdigit() for c in v) >= 4:
                yield m.start(1), m.end(1), "cued"


# "卡号" is a bank-card number; a QQ or WeChat "账号" is a chat handle, not a bank account.
_ACCOUNT = re.compile(
    r"(?:\b(?:bank\s+)?account\s+(?:number|no\.?|num|#)|\bacct\.?(?:\s*(?:number|no\.?|#))?"
    r"|\ba/c(?:\s*(?:number|no\.?|#))?|(?<!qq)(?<!微信)(?<!游戏)(?:银行)?(?:账号|账户|帐号|帐户|卡号))"
    r"\s*(?:(?:is|was|=|:|-|为|是)\s*)?(?:#\s*)?(\d(?:[\s-]?\d){5,19})(?![0-9a-z]|[.-]\d)",
    _A,
)


def bank_accounts(t: str) -> Iterator[tuple[int, int, str]]:
    if re.search(r"account|acct|a/c|账|帐|卡号", t):
        for m in _ACCOUNT.finditer(t):
            yield m.start(1), m.end(1), "cued"


_CVV = re.compile(
    r"(?:\b(?:cvv2?|cvc2?|cvn|csc|card security code|security code)|安全码|校验码)"
    r"\s*(?:(?:is|was|=|:|-|为|是)\s*)?(\d{3,4})(?![0-9a-z])",
    _A,
)


def cvvs(t: str) -> Iterator[tuple[int, int, str]]:
    if re.search(r"cvv|cvc|cvn|csc|security code|安全码|校验码", t):
        for m in _CVV.finditer(t):
            yield m.start(1), m.end(1), "cued"


# "HR portal login: jdoe / Tr0ub4dor&3", "credentials: admin|s3cret!", "登录：zhang / Abc12345".
_LOGIN = re.compile(
    r"(?:\b(?:login|log-in|sign-in|credentials|creds|user(?:name)?\s*/\s*pass(?:word)?)|登录|登陆)"
    r"\s*(?:[:=]|->|是|为|\s(?:is|are)\s)\s*"
    r"([^\s/|,，;；]{2,64})\s*(?:/|\||,|，|;|；)\s*"
    r"[\"'“‘]?([\x21-\x7e]{3,64}?)[\"'”’]?(?=[\s,，。;；)]|$)",
    _A,
)


def login_passwords(t: str) -> Iterator[tuple[int, int, str]]:
    """The password half of a "user / password" pair after a login cue. The password must hold
    a digit or a symbol, so "login: Monday / Tuesday" is not a credential; without a letter
    ("4821", "0000!00") it must be at least four characters."""
    for m in _LOGIN.finditer(t):
        v = m.group(2)
        if re.search(r"[^a-z]", v) and (re.search(r"[a-z]", v) or len(v) >= 4):
            yield m.start(2), m.end(2), "login"


__all__ = [
    "aba_valid",
    "bank_accounts",
    "cvvs",
    "driver_licenses",
    "login_passwords",
    "passports",
    "routing_numbers",
    "ssn_valid",
    "ssns",
]
