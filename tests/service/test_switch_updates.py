"""Knowledge updates without slots: a switch cue ends the earlier memory its clause names.

"We no longer use Jira, we switched to Linear", "最近改用飞猪订酒店了": no slot rule knows a
team's tracker or a hotel app, and before graphmem.extractors.switches both memories stayed
current, so "which tracker do we use?" could be answered with the old one. The earlier memory
must end (superseded, history kept), among unrelated memories; and a cue that names nothing
the user said, names two memories about as well, or comes from an agent about what the user
said, must end nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.domain.model import Status
from graphmem.domain.text import query_terms
from graphmem.embedding import Embedder
from graphmem.extractors.switches import switch_terms

FILLER = [
    "My sister is a nurse in Chicago.",
    "I have a meeting with the design team on Monday.",
    "我妹妹在芝加哥当护士。",
    "我周一要和设计团队开会。",
    "周末我喜欢去公园跑步。",
]

# (older, newer): the newer one replaces the older one
SWITCHES = [
    ("Our team tracks tasks in Jira.", "We no longer use Jira; the team switched to Linear."),
    ("I back up my photos to Dropbox.", "I switched from Dropbox to iCloud for photo backups."),
    ("I read on a Kindle Paperwhite.", "Switched from the Kindle to a Kobo e-reader."),
    ("I take the 7:40 bus to work.", "I gave up the bus and now cycle to work."),
    ("我们组用禅道管理需求。", "从这个月开始，我们组不再用禅道了，改用飞书管理需求。"),
    ("我订机票一直用去哪儿。", "最近我改用航旅纵横订机票了。"),
    ("我家的宽带是电信的。", "家里的宽带换成了联通的。"),
    ("我常去楼下的快剪理发。", "我不再去楼下的快剪了，换成了商场里的一家理发店。"),
]

# (older, newer): nothing ends
NOT_SWITCHES = [
    # the cue names something the user never said
    ("Our team tracks tasks in Jira.", "I switched to a standing desk this spring."),
    ("我们组用禅道管理需求。", "我换了一个新手机壳。"),
    # no cue: a second tool is not the end of the first
    ("I back up my photos to Dropbox.", "I also keep my documents in Dropbox."),
    # a slot statement is left to the slot rules
    ("I live in Dallas.", "I don't live in Boston anymore."),
]


@pytest.fixture(scope="module")
def service(
    tmp_path_factory: pytest.TempPathFactory, embedder: Embedder
) -> Iterator[MemoryService]:
    svc = MemoryService(
        Settings(_env_file=None, data_dir=tmp_path_factory.mktemp("switch")), embedder=embedder
    )
    yield svc
    svc.close()


def _write(svc: MemoryService, user: str, older: str, newer: str, **kw: str) -> tuple[str, str]:
    for i, text in enumerate(FILLER):
        svc.write(user, text, created_at=f"2022-0{i + 1}-01T09:00:00Z")
    old = svc.write(user, older, created_at="2023-01-10T09:00:00Z")
    new = svc.write(user, newer, created_at="2024-03-01T09:00:00Z", **kw)
    return old.id, new.id


def _active(svc: MemoryService, user: str) -> int:
    return sum(m.status == Status.ACTIVE for m in svc.list(user))


@pytest.mark.parametrize(
    ("older", "newer"), [pytest.param(*r, id=f"sw{i:02d}") for i, r in enumerate(SWITCHES)]
)
def test_a_switch_ends_the_memory_it_names(
    service: MemoryService, request: pytest.FixtureRequest, older: str, newer: str
) -> None:
    user = request.node.callspec.id
    old_id, new_id = _write(service, user, older, newer)
    old, new = service.get(user, old_id), service.get(user, new_id)
    assert old.status == Status.SUPERSEDED, f"{newer!r} did not end {older!r}"
    assert old.valid_to == new.valid_since and new.status == Status.ACTIVE
    assert [m.id for m in service.history(user, new_id)] == [old_id, new_id]
    assert _active(service, user) == len(FILLER) + 1  # the filler is untouched


@pytest.mark.parametrize(
    ("older", "newer"), [pytest.param(*r, id=f"not{i:02d}") for i, r in enumerate(NOT_SWITCHES)]
)
def test_not_a_switch_of_that_memory_ends_nothing(
    service: MemoryService, request: pytest.FixtureRequest, older: str, newer: str
) -> None:
    user = request.node.callspec.id
    old_id, _ = _write(service, user, older, newer)
    assert service.get(user, old_id).status == Status.ACTIVE, f"{newer!r} ended {older!r}"
    assert _active(service, user) == len(FILLER) + 2


def test_two_memories_matched_alike_end_neither(
    service: MemoryService, request: pytest.FixtureRequest
) -> None:
    user = request.node.name
    a = service.write(user, "I drink soy milk in my coffee.", created_at="2023-01-10T09:00:00Z")
    b = service.write(user, "I drink soy milk with my cereal.", created_at="2023-01-11T09:00:00Z")
    service.write(user, "I switched to oat milk.", created_at="2024-01-10T09:00:00Z")
    assert {service.get(user, a.id).status, service.get(user, b.id).status} == {Status.ACTIVE}


def test_an_agent_does_not_end_what_the_user_said(
    service: MemoryService, request: pytest.FixtureRequest
) -> None:
    user = request.node.name
    old_id, new_id = _write(service, user, SWITCHES[0][0], SWITCHES[0][1], source="agent")
    assert service.get(user, old_id).status == Status.ACTIVE
    assert service.get(user, new_id).status == Status.ACTIVE  # stored, not held for it


def test_switches_can_be_turned_off(tmp_path: Path, embedder: Embedder) -> None:
    svc = MemoryService(
        Settings(_env_file=None, data_dir=tmp_path, temporal={"switch_updates": False}),
        embedder=embedder,
    )
    old_id, _ = _write(svc, "u", *SWITCHES[4])
    assert svc.get("u", old_id).status == Status.ACTIVE
    svc.close()


def test_the_switch_clause_is_the_query() -> None:
    """Time words and the cue say that something changed, not what: they are no query terms."""
    assert switch_terms("I have a meeting on Monday.") == []
    terms = switch_terms("Now we no longer use Jira, since March.")
    assert "jira" in terms and not {"now", "longer", "use"} & set(terms)
    terms = set(switch_terms("最近我改用飞猪订酒店了，会员折扣更多。"))
    assert set(query_terms("飞猪")) <= terms  # what changed
    assert not set(query_terms("最近 改用")) & terms  # when, and that it changed
    assert not set(query_terms("会员")) & terms  # another clause
