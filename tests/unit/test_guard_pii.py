"""PII recognisers: validated finds, look-alikes left alone, masking and hashing as configured."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.guard.pii import cn_id_valid, find_pii, iban_valid, luhn_valid
from graphmem.guard.policy import apply as apply_policy


def kinds(text: str) -> list[tuple[str, str]]:
    return [(f.type, f.value) for f in find_pii(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("mail me at Li.Wei+news@example.co.uk today", ("email", "Li.Wei+news@example.co.uk")),
        ("邮箱是zhangsan@163.com，谢谢", ("email", "zhangsan@163.com")),
        ("我的手机号是13912345678。", ("phone", "13912345678")),
        ("call +86 139 1234 5678", ("phone", "+86 139 1234 5678")),
        ("座机 010-62751234", ("phone", "010-62751234")),
        ("US office (415) 555-2671", ("phone", "(415) 555-2671")),
        ("London +44 20 7946 0958", ("phone", "+44 20 7946 0958")),
        ("身份证 11010519491231002X", ("cn_id", "11010519491231002X")),
        ("card 4111 1111 1111 1111 exp 12/28", ("bank_card", "4111 1111 1111 1111")),
        ("IBAN GB82 WEST 1234 5698 7654 32 please", ("iban", "GB82 WEST 1234 5698 7654 32")),
        ("server 192.168.1.20 is down", ("ip_address", "192.168.1.20")),
        ("v6 2001:db8::1 ok", ("ip_address", "2001:db8::1")),
        ("key AKIAIOSFODNN7EXAMPLE", ("api_key", "AKIAIOSFODNN7EXAMPLE")),
        (
            "token ghp_16C7e42F292c6912E7710c838347Ae178B4a",
            ("api_key", "ghp_16C7e42F292c6912E7710c838347Ae178B4a"),
        ),
        ("my password is hunter2", ("password", "hunter2")),
        ("wifi密码：88888888", ("password", "88888888")),
    ],
)
def test_recognises(text: str, expected: tuple[str, str]) -> None:
    assert expected in kinds(text)


@pytest.mark.parametrize(
    "text",
    [
        "Card 4111 1111 1111 1112 was declined",  # fails Luhn
        "身份证号 110105194912310021",  # fails the GB 11643 check digit
        "GB82 WEST 1234 5698 7654 33 is a typo",  # fails mod-97
        "version 2.10.3 shipped on 2023-05-01 at 14:05",
        "order #20230501123456 and ISBN 978-3-16-148410-0",
        "I forgot my password again",
        "my password for the gym locker is easy to forget",
        "the token ring network was retired",
        "pi is 3.14159265358979",
    ],
)
def test_look_alikes_are_not_pii(text: str) -> None:
    assert find_pii(text) == []


def test_validators() -> None:
    assert cn_id_valid("11010519491231002X") and not cn_id_valid("110105194912310021")
    assert luhn_valid("4111111111111111") and not luhn_valid("4111111111111112")
    assert iban_valid("DE89370400440532013000") and not iban_valid("DE89370400440532013001")


def test_disguised_values_are_found_and_masked_in_the_stored_text() -> None:
    text = "mail ｚｈａｎｇ@example.com or 138\u200b1234\u200b5678"
    found = find_pii(text)
    assert {f.type for f in found} == {"email", "phone"}
    from graphmem.guard.canonical import canonicalize

    c = canonicalize(text)
    masked, rejected = apply_policy(c.sanitized, find_pii(c), {"email": "mask", "phone": "mask"})
    assert masked == "mail [EMAIL] or [PHONE]" and rejected == []


def test_policies_mask_hash_reject_allow() -> None:
    text = "a@b.co and c@d.co and 13812345678"
    found = find_pii(text)
    masked, _ = apply_policy(text, found, {"email": "hash", "phone": "keep"}, b"k")
    assert "13812345678" in masked and "a@b.co" not in masked
    tokens = [w for w in masked.split() if w.startswith("[EMAIL:")]
    assert len(tokens) == 2 and tokens[0] != tokens[1]
    again, _ = apply_policy(text, found, {"email": "hash"}, b"k")
    assert tokens[0] in again  # stable for the same key
    other, _ = apply_policy(text, found, {"email": "hash"}, b"other key")
    assert tokens[0] not in other  # keyed: a different deployment gets different tokens
    _, rejected = apply_policy(text, found, {"phone": "reject"})
    assert [f.type for f in rejected] == ["phone"]


def test_findings_never_overlap_and_secrets_win() -> None:
    found = find_pii("api_key=ab12cd34ef56gh78ij90 user@example.com")
    spans = sorted((f.start, f.end) for f in found)
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False))


_alphabet = st.characters(codec="utf-8", exclude_categories=("Cs",))


@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet=_alphabet, max_size=60),
    st.sampled_from(
        ["user@example.com", "13812345678", "4111111111111111", "DE89370400440532013000"]
    ),
)
def test_masking_removes_the_value_whatever_surrounds_it(prefix: str, value: str) -> None:
    text = f"{prefix} {value} end"
    from graphmem.guard.canonical import canonicalize

    c = canonicalize(text)
    masked, _ = apply_policy(c.sanitized, find_pii(c), {})
    assert value not in masked
