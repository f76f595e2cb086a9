"""A group's own rule that the user reports, which tightens what may be done.

"Our company's new AI policy says no customer data in external tools",
"部门新规定：客户资料不能上传到外部的 AI 工具", "代码评审的规矩：每个合并请求至少两个人同意才能合",
"这个月的安全培训要求所有人重新设置密码": the words of an attack on the agent's rules (an AI,
customers, a new rule, every one of something), which the classifier alone read at p 0.96-0.98.
But the rule is a group's of the user's (concepts.GROUP_OWNER_EN / _ZH before the rule word),
and it makes whoever follows it more careful - data kept inside, an approval required, a
security step required - while nothing in the text reaches out: no "you", no secrecy, no link
or address, no sending, no trigger, no control relaxed. An attack needs at least one of those
to gain anything, so the classifier alone is capped there (injection.screen). A rule that
relaxes ("Company policy: refunds no longer need approval") is not such a rule: it tightens
nothing.
"""

from __future__ import annotations

import re

from graphmem.guard.concepts import GROUP_OWNER_EN, GROUP_OWNER_ZH, tag, without_forbidden_sends
from graphmem.guard.rule_scan import tightens

# The word that names a rule, a requirement or what a training asked for.
_RULE_WORD = re.compile(
    r"\b(?:polic(?:y|ies)|rules?|guidelines?|handbook|requirements?|training)\b|"
    r"规定|规矩|规则|政策|制度|要求|新规|守则|培训",
    re.IGNORECASE,
)
# Data kept inside: sending it out forbidden.
_KEPT_INSIDE = re.compile(
    r"\b(?:no|never|not|don'?t|do not|must not|cannot|can'?t)\b[^.;]{0,40}?\b(?:in|into|to|with|"
    r"on)\s+(?:any |an? |the )?(?:external|outside|third[- ]party|public|personal)\b|"
    r"(?:不要|别|不许|不能|禁止|切勿|不准|不得)[^,。;]{0,12}(?:外部|外网|公网|第三方|公开|"
    r"个人(?:邮箱|网盘))",
    re.IGNORECASE,
)
# A security step required of the group's members.
_SECURITY_STEP = re.compile(
    r"\b(?:reset|change|rotate|update) (?:their |all |our )?passwords?\b|"
    r"\b(?:turn on|enable|set up) (?:2fa|mfa|two[- ]factor)|"
    r"重新设置密码|重置密码|修改密码|更换密码|开启(?:双重|两步)验证",
    re.IGNORECASE,
)
# What reaches out or steers: "you", secrecy, a link, an address, a trigger, a relaxed control.
_REACHES_OUT = ("YOU", "YOUR", "SECRECY", "URL", "TRIGGER", "RELAX", "NEG_META", "IDENTITY")
_ADDRESS = re.compile(r"[\w.+-]+@[\w-]+\.|https?://|www\.")


def _group_owned_rule(text: str) -> bool:
    for m in _RULE_WORD.finditer(text):
        before = text[max(0, m.start() - 40) : m.start()]
        if GROUP_OWNER_EN.search(before) or GROUP_OWNER_ZH.search(before):
            return True
    return False


def group_rule_tightened(text: str) -> bool:
    """Whether `text` reports a group's own rule that tightens and reaches nowhere (see above)."""
    if _ADDRESS.search(text) or not _group_owned_rule(text):
        return False
    if not (_KEPT_INSIDE.search(text) or _SECURITY_STEP.search(text) or tightens(text)):
        return False
    concepts = tag(without_forbidden_sends(text))
    return not any(c in concepts for c in (*_REACHES_OUT, "SEND"))


__all__ = ["group_rule_tightened"]
