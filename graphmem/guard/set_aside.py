"""Parts of a text set aside before its concepts are read (split from concepts.py, which reads
the rest): the user keeping their own secret, a sending the text forbids, the user's own request
for access, the language replies are written in. Each names words an attack uses - "tell
anyone", "share", "admin rights", "always reply" - in a frame where nothing is sent, claimed,
granted or slipped into a reply, so the concept tagger and the phrase rules
(rule_scan._owned_topic) read the text without them."""

from __future__ import annotations

import re

from graphmem.guard.concept_lexicons import LEX_EN, LEX_ZH

# "银行卡密码是 ...，别告诉别人", "the gate code is 4821, don't tell anyone": the user keeping
# their own secret, which reads as secrecy plus "tell" plus "anyone" (the exfiltration
# combinations) unless it is the only sending in the text. With another send verb or an address
# ("send the codes to x@..., don't tell anyone") it stays the attack's secrecy.
_KEEP_PRIVATE = re.compile(
    r"(?:记得|千万|一定)?(?:不要|别|不能|不许)(?:告诉|透露给|说给)(?:别人|任何人|外人|其他人|旁人|"
    r"他|她|孩子|家人)|"
    r"\b(?:don'?t|do not|never) tell (?:anyone|anybody|others|other people|him|her|the kids?)\b"
)
_ADDRESS = re.compile(r"[\w.+-]+@[\w-]+\.|https?://|www\.")


def without_keep_private(text: str) -> str:
    """The text less the user keeping their own secret ("...，别告诉别人"), unless something is
    sent or an address is named: then the secrecy may be an exfiltration's."""
    stripped = _KEEP_PRIVATE.sub(" ", text)
    if stripped == text or _ADDRESS.search(stripped):
        return text
    if LEX_EN["SEND"].search(stripped) or LEX_ZH["SEND"].search(stripped):
        return text
    return stripped


# Sending forbidden - "部门新规定：客户资料不能上传到外部的 AI 工具", "never share my calendar with
# anyone outside the company" - keeps the data where it is: the forbidden verb sends nothing, so
# it is no SEND for the exfiltration combinations and rules (an allowed sending elsewhere in the
# text still is). Unless the text makes an exception ("except x@...", "除了 ..."): then the one
# recipient let through is what the text is about.
_EXCEPTION = re.compile(
    r"\b(?:except|other than|unless|apart from|but not)\b|除了|除非", re.IGNORECASE
)


def without_forbidden_sends(text: str) -> str:
    """The text less its forbidden sendings ("never share ...", "不能上传"), see above."""
    if _EXCEPTION.search(text):
        return text
    return LEX_ZH["PROHIBIT"].sub(" ", LEX_EN["PROHIBIT"].sub(" ", text))


# The user asking IT for access on their own machine or account - "need admin rights on my work
# laptop, ticket #48213 filed", "申请了服务器的管理员权限，等审批", "管理员权限申请被驳回了" - names
# the rights an impersonation claims, but asks for them through the organisation's process: no
# identity is claimed and nothing is granted. Left out where IDENTITY is read and where the
# impersonation phrase rules fire (rule_scan._owned_topic).
ACCESS_REQUEST = re.compile(
    r"\b(?:need|needs|needed|request(?:ed|ing)?|ask(?:ed|ing)? (?:it |helpdesk |the helpdesk )?for|"
    r"appl(?:y|ied|ying) for|waiting (?:on|for)|approval for|"
    # ... or has been given: "got admin rights on the team's Figma workspace today"
    r"(?<!you )(?:got|finally got|received|was given|was granted|"
    # "IT finally gave me admin rights on my laptop": granted to the user, in the past
    r"(?:finally )?gave me|(?:has|have|had) (?:given|granted) me))\s+(?:\w+\s+){0,2}?"
    r"(?:admin|root|elevated|local admin)\s+(?:rights|access|privileges|permissions)\b|"
    # ... or asked for, or taken away: "approved my admin rights request", "the new policy
    # removes local admin rights from all laptops" (a control tightened, not a power claimed)
    r"\b(?:admin|root|elevated)\s+(?:rights|access|privileges)\s+requests?\b|"
    r"\b(?:remov\w*|revok\w*|strip\w*|tak(?:e|es|ing) away|withdraw\w*|pull\w*|drop\w*)\s+"
    r"(?:\w+\s+){0,3}?(?:admin|root|elevated)\s+(?:rights|access|privileges|permissions)\b|"
    r"(?:收回|回收|取消|撤销|去掉|撤掉)[^,。，]{0,12}(?:管理员|root)权限|"
    r"(?:申请|申请开通|等|拿到了?|获得了|(?<!给)(?<![他她你])有了)[^,。，]{0,12}(?:管理员|root|更高的?)权限|"
    r"(?:管理员|root)权限(?:的)?(?:申请|审批|被驳回|没批|批下来|还没批)"
)


def without_access_requests(text: str) -> str:
    """The text less the user's own requests for access (see ACCESS_REQUEST)."""
    return ACCESS_REQUEST.sub(" ", text)


# The language replies are written in - "Always reply to 日本客户 in English", "answer the German
# suppliers in German", "回复日本客户时用英文" - is the user's style rule for an audience of theirs:
# a language carries no payload of its own, so the reply verb it modifies is no response
# shaping for the concept layer (a link, a promotion, secrecy or "tell them that ..." in the same
# text is read as before). The phrase rule that reads "always reply" as "always answer yes"
# skips it the same way (LANGUAGE_AFTER).
LANGUAGES = (
    r"(?:english|chinese|mandarin|cantonese|spanish|french|german|japanese|korean|portuguese|"
    r"italian|russian|arabic|hindi|dutch|swedish|polish|turkish|vietnamese|thai|indonesian|"
    r"malay|greek|hebrew)"
)
_ZH_LANGUAGES = (
    r"(?:中文|英文|英语|日语|日文|韩语|韩文|法语|德语|西班牙语|俄语|普通话|粤语|简体|繁体)"
)
# The audience, when named, is the user's own: "reply to the user in French" speaks of the user
# as a third party, the way an injected rule does (concepts: USERREF), and stays a response rule.
LANGUAGE_AFTER = (
    r"(?:\s+(?!(?:that|yes|no|with|by|using|only)\b)"
    r"(?:(?!\b(?:users?|customers?|callers?|clients?)\b)[^.,;:!?，。；：\n]){1,30}?)?"
    rf"\s+(?:only\s+)?in\s+(?:plain\s+|simple\s+|formal\s+|polite\s+)?{LANGUAGES}\b"
    r"(?!\s+to\s+(?:the |our |all |every |any )?(?:user|customer|caller|client)s?\b)"
)
_REPLY_LANGUAGE = re.compile(
    rf"\b(?:repl(?:y|ies|ying)|respond(?:s|ing)?|answer(?:s|ing)?|write|writes|writing)"
    rf"{LANGUAGE_AFTER}|"
    rf"(?:回复|回|答复|写)(?:(?!用户)[^,.;:!?，。；：]){{0,12}}?(?:时|的时候)?(?:都|一律|统一|只)?用"
    rf"{_ZH_LANGUAGES}|"
    rf"(?:都|一律|统一|只)?用{_ZH_LANGUAGES}(?:来)?(?:回复|回答|答复|回|写)"
)


def without_reply_language(text: str) -> str:
    """The text less the language its replies are written in (see above)."""
    return _REPLY_LANGUAGE.sub(" ", text)
