"""PII types by kind: every type found in English and Chinese, and its look-alikes left alone.

A secret recogniser that fires on an order number, a ticket id or a git hash alters a memory the
user asked to keep, so each type has look-alike negatives next to its positives.
"""

from __future__ import annotations

from typing import get_args

import pytest

from graphmem.guard.pii import KIND_OF, PII_KINDS, PII_TYPES, PiiType, find_pii
from graphmem.guard.pii_ids import aba_valid, ssn_valid


def found(text: str) -> list[tuple[str, str]]:
    return [(f.type, f.value) for f in find_pii(text)]


def test_every_type_has_a_kind_and_the_names_agree() -> None:
    assert set(PII_TYPES) == set(get_args(PiiType)) == set(KIND_OF)
    assert set(KIND_OF.values()) == set(PII_KINDS) == {"secret", "contact", "personal"}
    secrets = {t for t, k in KIND_OF.items() if k == "secret"}
    assert {"password", "api_key", "passport", "ssn", "driver_license", "cn_id"} <= secrets
    assert {"bank_card", "cvv", "bank_account", "routing_number", "iban"} <= secrets
    assert {t for t, k in KIND_OF.items() if k == "contact"} == {
        "email",
        "phone",
        "postal_address",
        "ip_address",
    }
    assert {t for t, k in KIND_OF.items() if k == "personal"} == {
        "person_name",
        "birthday",
        "health",
    }


# (type, language, text, value): the value must be found, with that type.
POSITIVES = [
    # secrets
    ("password", "en", "The wifi password is bluehorse", "bluehorse"),
    ("password", "en", "Our wifi password is sunflower42.", "sunflower42"),
    ("password", "en", "HR portal login: jdoe / Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("password", "en", "my PIN is 4821", "4821"),
    ("password", "en", "garage door passcode: 7781#", "7781#"),
    ("password", "zh", "WiFi密码：abc12345", "abc12345"),
    ("password", "zh", "银行卡密码是 654321", "654321"),
    ("password", "zh", "公司系统登录：zhangwei / Qw3rty!9", "Qw3rty!9"),
    ("password", "zh", "公司系统登录：zhangwei / 0000!00", "0000!00"),  # no letter
    ("api_key", "en", "key sk-proj-abcdefghij0123456789xyz", "sk-proj-abcdefghij0123456789xyz"),
    ("passport", "en", "My passport number is X12345678", "X12345678"),
    ("passport", "en", "passport no. 912345678, expires 2031", "912345678"),
    ("passport", "zh", "我的护照号是E12345678", "E12345678"),
    ("passport", "zh", "护照号码：G87654321", "G87654321"),
    ("ssn", "en", "My SSN is 123-45-6789", "123-45-6789"),
    ("ssn", "en", "social security number 078 05 1120", "078 05 1120"),
    ("ssn", "en", "tax form: 536-90-4399", "536-90-4399"),
    ("ssn", "zh", "我的社保号是 123456789", "123456789"),
    ("driver_license", "en", "driver's license number D1234567", "D1234567"),
    ("driver_license", "en", "UK driving licence: MORGA753116SM9IJ", "MORGA753116SM9IJ"),
    ("driver_license", "en", "DL# 99812345", "99812345"),
    ("driver_license", "zh", "驾照号码是 440301123456", "440301123456"),
    ("cn_id", "zh", "身份证号码是11010519491231002X", "11010519491231002X"),
    ("cn_id", "zh", "我的身份证：440301198506120036", "440301198506120036"),
    ("bank_card", "en", "card 5500 0055 5555 5559 for groceries", "5500 0055 5555 5559"),
    ("bank_card", "zh", "卡号 6222 0212 3456 7890 128", "6222 0212 3456 7890 128"),
    ("cvv", "en", "Visa 4111 1111 1111 1111, CVV 737", "737"),
    ("cvv", "zh", "信用卡安全码是 123", "123"),
    ("bank_account", "en", "checking account number 000123456789", "000123456789"),
    ("bank_account", "en", "acct # 4455667788", "4455667788"),
    ("bank_account", "zh", "工资卡账号：6013 8200 0123", "6013 8200 0123"),
    ("routing_number", "en", "routing number 021000021, account 12345678", "021000021"),
    ("routing_number", "en", "ABA 011000015 for wires", "011000015"),
    ("iban", "en", "IBAN DE89 3704 0044 0532 0130 00", "DE89 3704 0044 0532 0130 00"),
    # contact details
    (
        "email",
        "en",
        "The project lead's email is tom.baker@acme-corp.com",
        "tom.baker@acme-corp.com",
    ),
    ("email", "zh", "导师的邮箱是 li.ming@pku.edu.cn。", "li.ming@pku.edu.cn"),
    ("phone", "en", "Our plumber Joe Rivera can be reached at 415-555-2671", "415-555-2671"),
    ("phone", "zh", "房东电话 13912345678", "13912345678"),
    (
        "postal_address",
        "en",
        "I live at 123 Main St, Springfield, IL 62704",
        "123 Main St, Springfield, IL 62704",
    ),
    (
        "postal_address",
        "en",
        "Mum's address: 14 Rose Lane, Harrogate HG1 2AB.",
        "14 Rose Lane, Harrogate HG1 2AB",
    ),
    (
        "postal_address",
        "en",
        "The dentist is at 58 High Street, above the bakery",
        "58 High Street",
    ),
    (
        "postal_address",
        "zh",
        "我住在北京市朝阳区建国路88号3号楼502室",
        "北京市朝阳区建国路88号3号楼502室",
    ),
    ("postal_address", "zh", "寄到上海市徐汇区漕溪北路595号", "上海市徐汇区漕溪北路595号"),
    ("ip_address", "en", "the NAS is at 192.168.1.20", "192.168.1.20"),
    # personal data
    ("person_name", "en", "my name is Tom Baker", "Tom Baker"),
    ("person_name", "en", "My dentist Dr. Okafor's phone number is 020 7946 0958", "Okafor"),
    ("person_name", "en", "Ask Mrs. Patel about the keys", "Patel"),
    ("person_name", "zh", "我叫王小明，今年30岁", "王小明"),
    ("person_name", "zh", "他的名字是欧阳修", "欧阳修"),
    ("birthday", "en", "my birthday is March 3rd", "March 3rd"),
    ("birthday", "en", "DOB: 1988-07-14", "1988-07-14"),
    ("birthday", "en", "Dad was born on 12 May 1956.", "12 May 1956"),
    ("birthday", "zh", "生日是1990年3月3日", "1990年3月3日"),
    ("birthday", "zh", "妈妈的生日是六月九号。", "六月九号"),
    (
        "health",
        "en",
        "I was diagnosed with type 2 diabetes last year",
        "diagnosed with type 2 diabetes",
    ),
    ("health", "en", "Remember that I'm allergic to peanuts.", "allergic to peanuts"),
    ("health", "en", "blood pressure 128/82 at the check-up", "blood pressure"),
    ("health", "zh", "我有高血压，每天吃降压药", "高血压"),
    ("health", "zh", "我对花生过敏", "过敏"),
]


@pytest.mark.parametrize(("typ", "lang", "text", "value"), POSITIVES)
def test_recognises(typ: str, lang: str, text: str, value: str) -> None:
    assert (typ, value) in found(text), (lang, found(text))


def test_every_type_has_positives_in_both_languages_where_it_exists() -> None:
    seen = {(typ, lang) for typ, lang, _, _ in POSITIVES}
    assert {typ for typ, _ in seen} == set(PII_TYPES)
    english_only = {"api_key", "iban", "routing_number", "ip_address"}  # same form in Chinese
    chinese_only = {"cn_id"}
    for typ in PII_TYPES:
        if typ not in chinese_only:
            assert (typ, "en") in seen, typ
        if typ not in english_only:
            assert (typ, "zh") in seen, typ


# Everyday texts with ids, hashes, numbers and dates: no secret may be found in any of them.
SECRET_LOOK_ALIKES = [
    "Ignore the flaky test test_upload_retry; it's tracked in JIRA-4412",
    "Run `make deploy ENV=prod` only after the smoke tests pass",
    "以后跟我说话都用中文。",
    "Order #112-3456789-1234567 arrives Tuesday",
    "order number 20230501123456 shipped",
    "commit 3f2a9c1e7b4d5a6f8e9d0c1b2a3f4e5d6c7b8a9f fixed it",
    "ISBN 978-3-16-148410-0",
    "UPS tracking 1Z999AA10123456784",
    "FedEx tracking number 771234567890",
    "upgrade to version 2.10.3-rc1 on 2024-05-01",
    "The invoice total is $1,234.56, due 05/31/2025",
    "call me at 415-555-2671",
    "flight UA 857 departs 13:45, seat 32A",
    "Delta DL 380 to Atlanta",
    "the meeting room PIN code is on the whiteboard",
    "no PIN needed for the front door",
    "Password manager: uses Bitwarden.",
    "I forgot my password again, it is complicated",
    "my password is somewhere in my notes",
    "I noticed a spiderman pin on your purse. Is Spider-Man your favorite?",
    "scp ~/.aws/credentials backup@10.0.0.5:/tmp",
    "login: Monday / Tuesday shifts",
    "The passport office opens at 9",
    "Renew my passport before 2026-03-01",
    "My account number ends in 42",
    "the security code for the building is on the card",
    "routing table has 1234567890 entries",
    "product code 123-45-678 is out of stock",
    "date 2024-11-05, build 000-00-0000",
    "SSN-like test string 666-12-3456 from the docs",
    "我的QQ账号是 123456789",
    "快递单号 SF1234567890123",
    "订单号 202305011234567890",
    "工单 JIRA-4412 已关闭",
    "护照在抽屉里",
    "银行卡密码忘了",
    "身份证号 110105194912310021",
]


@pytest.mark.parametrize("text", SECRET_LOOK_ALIKES)
def test_look_alikes_are_not_secrets(text: str) -> None:
    secrets = [(f.type, f.value) for f in find_pii(text) if KIND_OF[f.type] == "secret"]
    assert secrets == []


# Texts where a personal or contact recogniser must stay quiet.
PERSONAL_LOOK_ALIKES = [
    "my son's birthday party is on Friday",
    "birthday party on March 3rd at the bowling alley",
    "I'm going to a birthday dinner tonight",
    "her birthday is next week",
    "生日派对在3月3日",
    "my name is on the list",
    "I'm called to the office at 3",
    "我叫了外卖",
    "我叫车去机场",
    "Top 10 main points from the talk",
    "take the 2 other way round",
    "line 42 Main function returns early",
    "中山路88号",
    "He painted it with a single brush stroke",
    "Born in the USA is my favourite album",
]


@pytest.mark.parametrize("text", PERSONAL_LOOK_ALIKES)
def test_look_alikes_are_not_personal_data(text: str) -> None:
    assert found(text) == []


def test_a_secret_wins_over_the_contact_detail_it_looks_like() -> None:
    assert found("wifi password: 13812345678") == [("password", "13812345678")]


def test_validators() -> None:
    assert ssn_valid("123", "45", "6789")
    assert not ssn_valid("000", "45", "6789") and not ssn_valid("666", "45", "6789")
    assert not ssn_valid("912", "45", "6789") and not ssn_valid("123", "00", "6789")
    assert not ssn_valid("123", "45", "0000")
    assert aba_valid("021000021") and aba_valid("011000015")
    assert not aba_valid("021000022") and not aba_valid("123456789")
