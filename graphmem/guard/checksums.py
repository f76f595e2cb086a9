"""Check digits that make a digit string *mean* something before it is treated as PII.

Without them, order numbers, timestamps and ISBNs would be masked all day: the Chinese
resident-ID checksum (GB 11643), the Luhn check and issuer prefixes for bank cards, ISO 13616
mod-97 for IBANs.
"""

from __future__ import annotations

_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)


def cn_id_valid(number: str) -> bool:
    """GB 11643-1999 check digit of an 18-character Chinese resident ID."""
    if len(number) != 18 or not number[:17].isdigit():
        return False
    total = sum(int(d) * w for d, w in zip(number[:17], _ID_WEIGHTS, strict=True))
    check = "10X98765432"[total % 11]
    return number[17].upper() == check


def luhn_valid(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


# fmt: off
# Issuer prefixes and lengths: a Luhn-valid string that no network issues is not a card.
_CARD_PREFIXES: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("34", (15,)), ("37", (15,)), ("4", (13, 16, 19)), ("51", (16,)), ("52", (16,)),
    ("53", (16,)), ("54", (16,)), ("55", (16,)), ("22", (16,)), ("23", (16,)), ("24", (16,)),
    ("25", (16,)), ("26", (16,)), ("27", (16,)), ("62", (16, 17, 18, 19)),
    ("81", (16, 17, 18, 19)), ("35", (16, 17, 18, 19)), ("6011", (16, 19)), ("64", (16, 19)),
    ("65", (16, 19)), ("30", (14, 16)), ("36", (14, 16)), ("38", (14, 16)), ("39", (14, 16)),
    ("60", (16, 19)), ("9", (16, 19)),
)


# fmt: on


def card_brand_ok(digits: str) -> bool:
    return any(digits.startswith(p) and len(digits) in lengths for p, lengths in _CARD_PREFIXES)


# fmt: off
# ISO 13616 registry lengths (the countries that issue IBANs).
IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22,
    "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28,
    "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23,
    "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26,
    "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20,
    "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MR": 27, "MT": 31, "MU": 30, "NL": 18,
    "NO": 15, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "SA": 24,
    "SC": 31, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "ST": 25, "SV": 28, "TL": 23, "TN": 24,
    "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}


# fmt: on


def iban_valid(iban: str) -> bool:
    iban = iban.replace(" ", "").upper()
    if IBAN_LENGTHS.get(iban[:2]) != len(iban) or not iban.isalnum():
        return False
    rearranged = iban[4:] + iban[:4]
    return int("".join(str(int(c, 36)) for c in rearranged)) % 97 == 1
