"""Fetching a document for an agent never follows a redirect into the server's network, and the
public/internal test itself reads real addresses."""

from __future__ import annotations

import pytest

from graphmem.documents import DocumentError, load_url
from graphmem.domain.actor import Actor
from graphmem.mcp.tools import documents as tools


def test_internal_addresses_are_recognised() -> None:
    assert tools._internal("http://127.0.0.1:8080/x")
    assert tools._internal("http://localhost/admin")
    assert tools._internal("http://10.1.2.3/")
    assert tools._internal("http://169.254.169.254/latest/meta-data/")
    assert tools._internal("http://[::1]/")
    assert not tools._internal("http://93.184.215.14/")  # a global address, no lookup needed


def test_an_agents_fetch_refuses_a_redirect_inside(
    page_server: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Only the redirect target counts as internal here, so the first hop is let through.
    monkeypatch.setattr(tools, "_internal", lambda url: url.endswith("/page"))
    agent, operator = Actor("t", "agent"), Actor("t", "operator")
    with pytest.raises(DocumentError, match="redirected to an address inside"):
        load_url(f"{page_server}/moved", opener=tools._opener(agent))
    assert tools._opener(operator) is None
    assert load_url(f"{page_server}/moved", opener=tools._opener(operator)).title == "Served"
