"""Facets: the kinds of thing a list question asks for ("activities", "books", "pets"), each
with the words that name it in a question and the words its instances are said with.

"What activities does Melanie partake in?" shares no word with "I'm off to go swimming with
the kids" or "we went camping with my fam", and the query's embedding, which is mostly the
question's form, ranks neither near the top. What joins them is the category: swimming and
camping are activities. A facet names that category (its `asks` pattern, matched on the
question) and lists the everyday words its members are said with (`members`, English and
Chinese), which the keyword channel can find in any store, old or new, at search time.
graphmem.usecases.fanout takes the memories of the person the question names that hold a
member word, ranks them by the query, and puts the best few right after the query's own best
matches, each with the step that says why.

The lexicons are general life categories, not a benchmark's answers. A facet matches a
question only where graphmem.domain.aggregate finds a list question: "what book did Melanie read
from Caroline's suggestion?" asks for one book, and its answer is the query's own best match.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from graphmem.domain.aggregate import is_list_question
from graphmem.domain.text import query_terms


@dataclass(frozen=True)
class Facet:
    name: str
    asks: re.Pattern[str]  # the words that name the category in a question
    members: str  # the words its instances are said with, space-separated

    @property
    def terms(self) -> tuple[str, ...]:
        """The member words as keyword tokens (stemmed English, CJK characters and bigrams)."""
        return _terms(self.members)


def _facet(name: str, asks: str, members: str) -> Facet:
    return Facet(name, re.compile(asks, re.IGNORECASE), " ".join(members.split()))


FACETS: tuple[Facet, ...] = (
    _facet(
        "activity",
        r"activit|hobb|pastime|for fun|free time|spare time|de-?stress|relax|unwind"
        r"|爱好|活动|消遣|业余|放松|休闲",
        "camping hiking swimming painting pottery running jogging museum reading dancing yoga"
        " cooking baking gardening fishing cycling skiing surfing climbing concert games sports"
        " beach class knitting photography"
        " 露营 徒步 爬山 游泳 画画 陶艺 跑步 博物馆 看书"
        " 跳舞 瑜伽 做饭 烘焙 钓鱼 骑车 滑雪 健身 摄影",
    ),
    _facet(
        "event",
        r"\bevents?\b|parades?|conferences?|participat|attended|activism"
        r"|参加|活动|会议",
        "parade conference workshop talk speech fair festival meetup group show competition"
        " contest ceremony seminar program volunteer event reading march rally"
        " 游行 会议 讲座 演讲 展会 比赛 聚会 志愿 活动 典礼",
    ),
    _facet(
        "book",
        r"\bbooks?\b|\bnovels?\b|\bread\b|书|小说",
        "book novel reading author library read 书 小说 读 作者",
    ),
    _facet(
        "music",
        r"instruments?|\bbands?\b|\bartists?\b|musicians?|concerts?|songs?|singers?"
        r"|乐器|乐队|歌手|音乐会",
        "play violin clarinet guitar piano drums flute cello saxophone trumpet band concert"
        " singer song music album musician 小提琴 吉他 钢琴 鼓 乐队 演唱会 歌手 音乐",
    ),
    _facet(
        "pet",
        r"\bpets?\b|animals?|宠物|动物",
        "dog cat puppy kitten pet bird hamster rabbit 狗 猫 宠物 鸟 兔子",
    ),
    _facet(
        "art",
        r"paint|\bart\b|artwork|drawing|画",
        "painting painted paint drawing sketch art canvas mural 画 油画 素描 水彩",
    ),
    _facet(
        "purchase",
        r"\bbought\b|\bbuy\b|\bitems\b|purchase|买",
        "bought buy purchased shopping 买 购",
    ),
    _facet(
        "place",
        r"\bcit(?:y|ies)\b|countries|\bplaces\b|travel|visited|去过|地方|城市|国家|旅行",
        "trip travel visited visit city country flew vacation 旅行 旅游 去了 飞 城市 国家",
    ),
)


@lru_cache(maxsize=64)
def _terms(members: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(query_terms(members)))


def facets_asked(query: str) -> tuple[Facet, ...]:
    """The facets a list question asks for; () for a question that is not a list question or
    names no known category."""
    if not is_list_question(query):
        return ()
    return tuple(f for f in FACETS if f.asks.search(query))


__all__ = ["FACETS", "Facet", "facets_asked"]
