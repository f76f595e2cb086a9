"""The Chinese and cross-language recall pairs the multilingual models are held to."""

from __future__ import annotations

from graphmem import MemoryService

TEA_Q, TEA = "我平时喝什么茶？", "我喜欢喝龙井茶。"

# (question, the memory that answers it): paraphrases sharing few characters
ZH_PAIRS = [
    (TEA_Q, TEA),
    ("我的宠物叫什么名字？", "我家那只猫叫咪咪。"),
    ("我在哪里上班？", "我在一家银行做会计。"),
    ("我女儿多大了？", "我闺女今年七岁。"),
    ("我周末一般做什么运动？", "每个星期六我都去打羽毛球。"),
    ("我对什么过敏？", "我吃花生会起疹子。"),
    ("我开什么车？", "我的座驾是一辆白色特斯拉。"),
    ("我老家在哪儿？", "我是在成都出生长大的。"),
    ("我最喜欢哪部电影？", "《肖申克的救赎》我看了十几遍。"),
    ("我晚上几点睡觉？", "我通常十一点上床休息。"),
]


DISTRACTORS = ["明天下午三点开会。", "我哥哥住在上海。", "I bought a new laptop last week."]


# English question, Chinese memory, and the reverse
CROSS_PAIRS = [
    ("What tea do I usually drink?", TEA),
    ("What is my cat called?", "我家那只猫叫咪咪。"),
    ("What am I allergic to?", "我吃花生会起疹子。"),
    ("我开什么车？", "I drive a white Tesla."),
    ("我老家在哪儿？", "I was born and raised in Chengdu."),
]


def top1(svc: MemoryService, pairs: list[tuple[str, str]], weights: str | None) -> int:
    """How many questions find their own memory first."""
    found = 0
    for question, answer in pairs:
        hits = svc.search("u", question, top_k=3, weights=weights, expand_hops=0).hits
        found += bool(hits) and hits[0].memory.content == answer
    return found
