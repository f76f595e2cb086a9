"""The inspector's sessions on their own: expiry, the cap, the CSRF comparison, the tenant
rule; and the escaping every page relies on."""

from __future__ import annotations

import time

from graphmem.mcp.identity import TokenInfo
from graphmem.ui.html import esc, page
from graphmem.ui.sessions import SessionStore, csrf_matches

AGENT = TokenInfo("alice", "agent", "token:abc")
OPERATOR = TokenInfo("ops", "operator", "ops")


def test_an_idle_session_expires() -> None:
    store = SessionStore(idle_seconds=0.05)
    s = store.open(AGENT)
    assert store.get(s.sid) is s
    # the sleep is what is tested, not a wait: idle time passing (the store reads the real
    # monotonic clock), twice the idle limit so it has surely passed, and no longer
    time.sleep(0.1)
    assert store.get(s.sid) is None and len(store) == 0


def test_the_oldest_session_goes_first_past_the_cap() -> None:
    store = SessionStore(limit=2)
    first, second = store.open(AGENT), store.open(AGENT)
    store.get(first.sid)  # first is now the more recently seen
    third = store.open(AGENT)
    assert store.get(second.sid) is None
    assert store.get(first.sid) is first and store.get(third.sid) is third


def test_each_session_has_its_own_ids_and_csrf_token() -> None:
    store = SessionStore()
    a, b = store.open(AGENT), store.open(AGENT)
    assert a.sid != b.sid and a.csrf != b.csrf and len(a.csrf) >= 32
    assert csrf_matches(a.csrf, a.csrf)
    assert not csrf_matches(a.csrf, b.csrf)
    assert not csrf_matches(a.csrf, None) and not csrf_matches(a.csrf, "")


def test_the_tenant_rule_is_the_mcp_servers() -> None:
    store = SessionStore()
    agent, operator = store.open(AGENT), store.open(OPERATOR)
    assert agent.may_read("alice") and not agent.may_read("bob")
    assert operator.may_read("alice") and operator.may_read("bob")
    assert agent.actor.role == "agent" and operator.actor.is_operator


def test_hostile_content_is_shown_as_text() -> None:
    hostile = '<script>alert(1)</script><img src=x onerror="x">'
    html = page("t", f"<p>{esc(hostile)}</p>")
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert 'onerror="x"' not in html
