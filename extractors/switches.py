"""Knowledge updates that name no slot: "we no longer use Jira, we switched to Lark", "最近我改用
飞猪订酒店了", "我从我姐家搬出来了".

Slot rules (graphmem.extractors.slots) know a handful of attributes - where I live, who my
manager is - and corrections ("actually, ...") point back at the memory just said. Most changes
people report are neither: a tool, a supplier, a habit, a plan, a carer. What they share is
a *switch cue* (改用, 改成, 换成, 不再, 搬出, switched to, no longer, ...) in the clause that
names the thing that changed. So the clause holding the cue is the query: the earlier memory that it
matches clearly best, on the user's own keyword statistics, is the one it replaces
(graphmem.usecases.versions decides, with the margins below).

Time words ("现在", "最近", "now", "this year") and the cues themselves are left out of that
query: they say *that* something changed, never *what*, and they would tie a switch to every
memory that also says "now".
"""

from __future__ import annotations

import re
from functools import cache

from graphmem.domain.text import query_terms

SWITCH = re.compile(
    r"改用|改成|改为|改投|改从|改到|改去|改在|改喝|改吃|换成|换了|换到|换用|跳槽|不再|再也不|"
    r"放弃了|搬出|搬走|辞职了|被拒了|取消了|戒了|停用了"
    r"|\b(?:switched|switching|changed|moved)\s+(?:over\s+)?(?:to|from)\b"
    r"|\bswitch(?:ed)?\s+over\b|\bnow\s+(?:use|uses|using|prefer|prefers|drive|drives)\b"
    r"|\bno\s+longer\b|\b(?:any\s?more)\b|\binstead\s+of\b|\bgave\s+up\b|\breplaced\b",
    re.IGNORECASE,
)
_CLAUSE = re.compile(r"[，。；;！？!?,]|(?<![0-9])\.(?![0-9])")

# What a switch clause says about time and change, never about what changed.
_NOT_THE_SUBJECT = (
    "现在 目前 以前 之前 最近 今年 去年 明年 开始 上个月 这个月 下个月 本月 上周 这周 这个季度 "
    "今天 以后 原来 原本 后来 一直 暂时 起 改用 改成 改为 改投 改从 换成 换了 换到 跳槽 不再 放弃 "
    "搬出 辞职 now currently recently today this year month week since anymore any more longer "
    "switched switch changed moved over instead replaced gave up use using"
)

# Among the user's memories, the best match must lead the next one by this factor, and cover
# at least this share of its own terms: a switch that matches two memories about as well, or
# shares one word with the best, names none of them for sure - and ending the wrong memory is
# worse than ending none.
MARGIN = 1.5
MIN_COVERAGE = 0.15


# Function characters: the keyword index holds them (each user's idf weighs them), but in a
# switch clause they tie the switch to any memory in the same voice ("我...了").
_FUNCTION_CHARS = (
    "我你他她它们的了是在有和与也都就吗呢吧啊呀嘛么把被给对从到跟为过着得地这那个一不没很还又要会能"
)


@cache
def _ignored() -> frozenset[str]:
    return frozenset(query_terms(_NOT_THE_SUBJECT)) | frozenset(
        t for c in _FUNCTION_CHARS for t in query_terms(c)
    )


def switch_terms(text: str) -> list[str]:
    """The keyword terms of the clauses of `text` that hold a switch cue, time words and cues
    left out; [] when there is no cue."""
    clauses = [c for c in _CLAUSE.split(text) if SWITCH.search(c)]
    if not clauses:
        return []
    ignored = _ignored()
    return [t for t in query_terms(" ".join(clauses)) if t not in ignored]


def coverage(new: str, old: str) -> float:
    """The share of `old`'s terms (time words and cues left out) that `new` also holds."""
    ignored = _ignored()
    theirs = set(query_terms(old)) - ignored
    if not theirs:
        return 0.0
    return len(theirs & set(query_terms(new))) / len(theirs)


__all__ = ["MARGIN", "MIN_COVERAGE", "SWITCH", "coverage", "switch_terms"]
