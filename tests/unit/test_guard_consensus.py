"""Consensus check: contradictions of corroborated memories are caught, without an LLM."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.guard.consensus import Candidate, check_consensus, extract_claim, relation

RULE = "Transfers above 1000 euros need a second confirmation."


def cands(*texts: str, user: str = "u") -> list[Candidate]:
    return [Candidate(f"m{i}", t, user) for i, t in enumerate(texts)]


def test_claims_in_english_and_chinese() -> None:
    a, b = extract_claim("I like coffee"), extract_claim("I don't like coffee")
    assert a.frame == b.frame and a.negated != b.negated
    c = extract_claim("The dentist is on May 3 at 3pm")
    assert {"date:5-3", "time:15:00"} <= c.values
    z1, z2 = extract_claim("我喜欢喝咖啡"), extract_claim("我不喜欢喝咖啡")
    assert z1.frame == z2.frame and z2.negated and not z1.negated
    assert "num:2" in extract_claim("我有两个孩子").values
    assert extract_claim("我们搬到了上海").update


def test_negation_of_a_corroborated_rule_is_quarantined() -> None:
    d = check_consensus(
        "Transfers above 1000 euros do not need a second confirmation.",
        cands(RULE, "All transfers above 1000 euros need a second confirmation."),
        user_id="u",
    )
    assert d.action == "quarantine"
    assert set(d.contradicted_ids) == {"m0", "m1"}


def test_changed_number_or_date_contradicts() -> None:
    d = check_consensus(
        "Transfers above 5000 euros need a second confirmation.", cands(RULE, RULE), user_id="u"
    )
    assert d.action == "quarantine"
    mtg = cands("The board meeting is on June 4.", "Board meeting: June 4, in room 2.")
    assert check_consensus("The board meeting is on June 9.", mtg).action == "quarantine"
    assert (
        check_consensus(
            "董事会在6月9日开会", cands("董事会在6月4日开会", "董事会6月4日开会")
        ).action
        == "quarantine"
    )


def test_chinese_amounts_and_clock_times_are_values_too() -> None:
    """The consensus check reads values as merge-on-write does (graphmem.domain.meaning): an amount
    written against its measure word (3000元) or a Chinese clock time (十点) is a value, so
    changing one contradicts what the user said."""
    assert "num:3000" in extract_claim("我的房租是3000元").values
    assert "time:10:00" in extract_claim("牙医预约在周二上午十点").values
    rent = cands("我的房租是每月3000元", "房租每月3000元")
    assert check_consensus("我的房租是每月5000元", rent).action == "quarantine"


def test_a_single_contradiction_is_allowed_with_a_contradicts_link() -> None:
    d = check_consensus("My flight to Oslo is on May 5.", cands("My flight to Oslo is on May 3."))
    assert d.action == "allow" and d.contradicted_ids == ("m0",)


def test_agreement_is_support_not_conflict() -> None:
    d = check_consensus(RULE, cands(RULE, "I like tea"))
    assert d.action == "allow" and d.supporting_ids == ("m0",) and d.contradicted_ids == ()
    assert relation(extract_claim("I like tea"), extract_claim("The sky is blue")) is None


def test_explicit_user_update_supersedes_but_a_document_is_quarantined() -> None:
    old = cands("I live in flat 12 on Elm Street.", "My home is flat 12 on Elm Street.")
    d = check_consensus("I now live in flat 14 on Elm Street.", old, source="user")
    assert d.action == "supersede" and set(d.superseded_ids) == {"m0", "m1"}
    d2 = check_consensus("I now live in flat 14 on Elm Street.", old, source="document")
    assert d2.action == "quarantine" and not d2.superseded_ids


def test_the_one_rule_for_slot_updates() -> None:
    """User changes their own slot: supersede. Agent/document against a user-stated value:
    quarantine (or low confidence). A third party replacing a third party: supersede."""
    said = [Candidate("a", "I live in Austin", "u", source="user")]
    new = "I moved to Denver"
    assert check_consensus(new, [], user_id="u", updates=said).superseded_ids == ("a",)
    d = check_consensus(new, [], user_id="u", source="agent", updates=said)
    assert d.action == "quarantine" and d.contradicted_ids == ("a",)
    d = check_consensus(
        new, [], user_id="u", source="document", updates=said, on_conflict="low_confidence"
    )
    assert d.action == "low_confidence" and d.confidence == 0.3
    doc = [Candidate("d", "The report is due on Friday", "u", source="document")]
    d = check_consensus(
        "The report is due on Monday", [], user_id="u", source="document", updates=doc
    )
    assert d.action == "supersede" and d.superseded_ids == ("d",)
    theirs = [Candidate("x", "I live in Austin", "someone-else")]
    assert check_consensus(new, [], user_id="u", updates=theirs).action == "allow"


def test_a_user_correction_supersedes_a_single_contradiction() -> None:
    d = check_consensus(
        "Correction: my flight to Oslo is on May 5.",
        cands("My flight to Oslo is on May 3."),
        correction=True,
    )
    assert d.action == "supersede" and d.superseded_ids == ("m0",)


def test_setting_low_confidence_instead_of_quarantine() -> None:
    d = check_consensus(
        "Transfers above 1000 euros do not need a second confirmation.",
        cands(RULE, RULE),
        on_conflict="low_confidence",
        low_confidence=0.2,
    )
    assert d.action == "low_confidence" and d.confidence == 0.2


def test_supporters_outweighing_the_contradicted_group_allow_the_write() -> None:
    new = "Transfers above 1000 euros do not need a second confirmation."
    d = check_consensus(new, cands(RULE, RULE, new, new, new))
    assert d.action == "allow" and len(d.contradicted_ids) == 2


def test_quarantined_and_foreign_memories_are_not_evidence() -> None:
    mine = [Candidate("a", RULE, "u", status="quarantined")]
    theirs = cands(RULE, RULE, user="someone-else")
    d = check_consensus(
        "Transfers above 1000 euros do not need a second confirmation.", mine + theirs, user_id="u"
    )
    assert d.action == "allow" and d.contradicted_ids == () and d.supporting_ids == ()


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["u", "v", "w"]),
            st.sampled_from(
                [RULE, "I like tea", "I don't like tea", "I have 2 kids", "I have 3 kids"]
            ),
        ),
        max_size=8,
    ),
    st.sampled_from(["I like tea", "I have 4 kids", RULE]),
)
def test_decisions_never_cite_another_users_memory(pool: list[tuple[str, str]], new: str) -> None:
    cs = [Candidate(f"{u}-{i}", t, u) for i, (u, t) in enumerate(pool)]
    d = check_consensus(new, cs, user_id="u")
    assert all(i.startswith("u-") for i in d.contradicted_ids + d.supporting_ids)
