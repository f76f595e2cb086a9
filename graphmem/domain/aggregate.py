"""List and aggregate questions, told apart from single-fact ones by their wording, no LLM.

"What activities does Melanie partake in?", "Which cities has Jon visited?", "How many times has
she gone to the beach?", "她有哪些爱好？", "他都去过哪里？" ask for every instance of something,
and their evidence is spread over many memories, usually in different sessions (LoCoMo's
multi-hop questions are mostly of this kind). A single-fact question ("What book did Melanie
read from Caroline's suggestion?") is answered by one memory and its neighbours. Recall treats
the first kind differently (graphmem.usecases.fanout): it widens the walk over the memories of
the person the question names instead of trusting the few best matches.

The test is on the question's form, not on its topic, so it carries over to subjects no lexicon
lists: a plural head noun after what/which ("what books", "which events"), "what are X's <plural>",
"in what ways", "how many times", "all the", perfect-tense "what has X <done>", "both", and in
Chinese 哪些 / 都…哪 / 几次 / 多少次 / 所有 / 有什么. A singular head noun ("what book did") or a
copula with a singular predicate ("what is Caroline's identity") is not a list question.
"""

from __future__ import annotations

import re

# "what/which [kind(s)|type(s)|sort(s) of] [adjective-ish words] <plural> has|have|does|do|..."
_HEAD = re.compile(
    r"^\s*(?:so\s+|and\s+)?(?:what|which)\s+(?:(?:kinds?|types?|sorts?)\s+of\s+)?"
    r"(?P<words>(?:[\w+'/-]+\s+){0,3}?)(?P<head>[\w+'/-]+)\s+"
    r"(?:has|have|had|does|do|did|is|are|was|were|can|could|would|will)\b",
    re.IGNORECASE,
)
# "what are (some of) X's hobbies", "what are the names of ..."
_WHAT_ARE = re.compile(
    r"^\s*(?:what|which)\s+(?:are|were)\s+(?:some\s+(?:of\s+)?|all\s+(?:of\s+)?|the\s+)?"
    r"(?:[\w'-]+\s+){0,3}?(?P<head>[\w'-]+)\s*[?.!]?\s*$",
    re.IGNORECASE,
)
_PHRASES = re.compile(
    r"\b(?:in\s+what\s+ways|what\s+ways|how\s+many|how\s+often|all\s+the|every\s+(?:time|place)"
    r"|(?:kinds|types|sorts)\s+of|what\s+are\s+some|list\s+(?:all|the|every)"
    r"|name\s+(?:all|some|the)|what\s+else|both)\b",
    re.IGNORECASE,
)
# perfect tense: "what has Melanie painted?", "where has Melanie camped?" (cumulative)
_PERFECT = re.compile(
    r"^\s*(?i:what|where|which)\s+(?i:has|have)\s+(?:[A-Z][\w'-]*\s+){1,3}(?:\w+ed|\w+en|done|made"
    r"|read|seen|bought|taught|built|won|met|been|gone|heard|found|had)\b",
)
_ZH = re.compile(r"哪些|都[^，。？?]{0,6}(?:哪|什么)|几次|多少次|所有|有什么|列出|各种|多少种")
# head words ending in "s" that are not plurals
_NOT_PLURAL = frozenset(
    "is was has does this his its us yes status news series species means always perhaps "
    "across process business focus bus gas class glass address".split()
)
_IRREGULAR = frozenset("children people men women kids feet teeth mice things stuff".split())


def plural(word: str) -> bool:
    """Is an English head noun plural ("books", "cities", "children"), as far as its spelling
    tells? Possessives ("Melanie's") and "-ss"/"-us" words are not."""
    w = word.lower().strip("'")
    if w in _IRREGULAR:
        return True
    if w in _NOT_PLURAL or "'" in w or len(w) < 4:
        return False
    return w.endswith("s") and not w.endswith(("ss", "us", "is"))


def is_list_question(query: str) -> bool:
    """Does the query ask for every instance of something (a list, a count, what two people
    share) rather than for one fact?"""
    q = query.strip()
    if not q:
        return False
    if _ZH.search(q):
        return True
    if _PHRASES.search(q) or _PERFECT.search(q):
        return True
    m = _HEAD.match(q)
    if m and plural(m.group("head")):
        return True
    m = _WHAT_ARE.match(q)
    return bool(m and plural(m.group("head")))


__all__ = ["is_list_question", "plural"]
