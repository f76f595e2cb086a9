"""Extractive summaries end the first sentence where it ends, in English and Chinese: not at
an abbreviation, an initial, a decimal, an email or a URL, and not inside an open quotation."""

from __future__ import annotations

import pytest

from graphmem.domain.summary import MAX_SUMMARY, summarize

CASES = [
    # (text, summary): the first sentence, exactly
    (
        "My dentist Dr. Okafor's phone number is 020 7946 0321. He is in Leeds.",
        "My dentist Dr. Okafor's phone number is 020 7946 0321.",
    ),
    ("Mr. Li and Mrs. Li arrive Monday. Book the car.", "Mr. Li and Mrs. Li arrive Monday."),
    (
        "Ms. Chen met Prof. Ng on St. Mark's Road. Fine.",
        "Ms. Chen met Prof. Ng on St. Mark's Road.",
    ),
    (
        "Bring fruit, e.g. apples, i.e. not pears. Done.",
        "Bring fruit, e.g. apples, i.e. not pears.",
    ),
    ("She moved to the U.S. in 2010. Then Paris.", "She moved to the U.S. in 2010."),
    ("He studied in the U.K. for a year. Back now.", "He studied in the U.K. for a year."),
    ("Invoice No. 4412 is due. Pay it.", "Invoice No. 4412 is due."),
    ("Arsenal vs. Spurs is on Sunday. Go.", "Arsenal vs. Spurs is on Sunday."),
    ("Standup is at 9 a.m. every day. Be there.", "Standup is at 9 a.m. every day."),
    ("Standup is at 9 a.m. Bring the slides.", "Standup is at 9 a.m."),
    ("I work for Acme Inc. in Leeds. Since May.", "I work for Acme Inc. in Leeds."),
    ("Martin Luther King Jr. spoke here. Twice.", "Martin Luther King Jr. spoke here."),
    ("Buy pens, paper, etc. for the office. Soon.", "Buy pens, paper, etc. for the office."),
    ("J. R. R. Tolkien wrote it. I loved it.", "J. R. R. Tolkien wrote it."),
    ("The flight takes 3.5 hours. It is long.", "The flight takes 3.5 hours."),
    ("Upgrade to v2.1 before Friday. Then test.", "Upgrade to v2.1 before Friday."),
    ("Mail tom.baker@example.com today. Then call.", "Mail tom.baker@example.com today."),
    ("See https://example.org/a.b?c=1 first. Then.", "See https://example.org/a.b?c=1 first."),
    ('He said "stop." Then he left.', 'He said "stop."'),
    ("Is it done? Maybe not.", "Is it done?"),
    ("I'm Zhang San. I do debt-risk analysis.", "I'm Zhang San."),
    ("导师的邮箱是 li.wei@pku.edu.cn。下周见面。", "导师的邮箱是 li.wei@pku.edu.cn。"),
    ("以后跟我说话都用中文。谢谢！", "以后跟我说话都用中文。"),
    ("今天很累！明天再说。", "今天很累！"),
    ("你吃饭了吗？我刚吃完。", "你吃饭了吗？"),
    ("先改测试；再部署。", "先改测试；"),
    ("房租是3.5千元。月初交。", "房租是3.5千元。"),
    ("他说：“你好。我来了。”然后走了。第二句。", "他说：“你好。我来了。”然后走了。"),
    ("会议在「三楼。会议室」开。带电脑。", "会议在「三楼。会议室」开。"),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_the_first_sentence_ends_where_it_ends(text: str, expected: str) -> None:
    assert summarize(text) == expected


def test_a_long_sentence_is_cut_at_a_word_never_inside_a_number() -> None:
    long = summarize("word " * 40)
    assert len(long) <= MAX_SUMMARY and long.endswith("…") and "wor…" not in long
    s = summarize("Please call our plumber Joe Rivera about the boiler at +44 20 7946 0321 soon")
    assert len(s) <= MAX_SUMMARY and s.endswith("…")
    assert "+44 20 7946 0321" in s or "+44" not in s  # the whole number or none of it


def test_whitespace_is_collapsed_and_empty_text_stays_empty() -> None:
    assert summarize("  Dr.   Okafor\n is  here.  ") == "Dr. Okafor is here."
    assert summarize("") == ""
