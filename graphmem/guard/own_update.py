"""The user replacing an instruction of their own (split from concepts.py, which reads it for
META, and rule_scan.py and own_preference.py, which read it for the rules and the classifier)."""

from __future__ import annotations

import re

# The user replacing an instruction of their own ("Ignore my earlier instruction about 25-minute
# pomodoros, I've switched to 50"): "my" instructions, about a topic, are the user's, not the
# agent's rules being overridden.
OWN_UPDATE = re.compile(
    r"\b(?:ignore|disregard|forget|scrap|scratch|drop|cancel|void|undo|retract|withdraw) "
    r"(?:my|our) (?:earlier|previous|prior|old|last|original) (?:instruction|request|note|rule|"
    r"preference|setting|reminder)s? (?:about|on|regarding|for|re)\b|"
    r"\b(?:my|our) (?:earlier|previous|prior|old|last|original) (?:instruction|request|rule|"
    r"setting|reminder)s? (?:to|about|on|for)\b[^.!?]{0,60}?\b(?:is|are|was|were) (?:now )?"
    r"(?:cancell?ed|void|scrapped|dropped|obsolete|withdrawn|off)\b|"
    r"(?:把)?我(?:之前|以前|上次)(?:定|设|说|立)的[^。!?！？]{1,30}?(?:这条|那条)?(?:规则|要求|指令|"
    r"安排)?(?:撤销|取消|作废|删掉|去掉)|"
    # "之前让你用百度网盘存资料那条作废，现在全部放飞书": the user's own earlier request, revoked
    r"^\W*(?:之前|以前|上次|早先|前几天)(?:让你|叫你|跟你说(?:的|过)?|交代(?:你)?的?|说的|定的)"
    r"[^。!?！？,，]{1,30}?(?:那条|这条|那个|的)(?:指令|要求|规定|规则|安排|做法)?"
    r"(?:作废|不算了?|取消了?|不用了|撤销|撤回|就算了)",
    re.IGNORECASE,
)
