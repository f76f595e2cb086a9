"""The search page's filter comparison ("What the filter changes"): the same query with and
without a type or as_of filter, on the real embedded stores. The unfiltered search shows only
its hits, so it is asked without explain and through the result cache, and both run on one
view of the stores that reads each row once (graphmem.usecases.compare); what the page shows
is what the two searches alone find."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from graphmem import MemoryService
from graphmem.domain.model import Memory
from graphmem.domain.requests import SearchRequest, SearchResult
from graphmem.embedding import Embedder
from graphmem.ui import create_app
from tests.helpers.ui import OPERATOR, add_bulk, login, seeded_service, tokens

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Iterator[MemoryService]:
    service = seeded_service(tmp_path_factory.mktemp("ui-compare") / "data", embedder)
    add_bulk(service, "pager", 1000)
    yield service
    service.close()


@pytest.fixture
def client(svc: MemoryService) -> Iterator[TestClient]:
    with TestClient(
        create_app(svc, tokens()), base_url="http://127.0.0.1", follow_redirects=False
    ) as c:
        yield c


def _column(section: str, cell: int) -> list[str]:
    """The memory ids linked in one column of the filter comparison, rank by rank."""
    body = section[section.index("<tbody>") : section.index("</tbody>")]
    out = []
    for row in body.split("<tr>")[1:]:
        found = re.search(r'href="/u/alice/m/([^"]+)"', row.split("<td>")[cell + 1])
        if found:
            out.append(found.group(1))
    return out


@pytest.mark.parametrize("second", ["fact", "preference"])
def test_a_filter_comparison_searches_without_the_filter_once_per_query(
    client: TestClient, svc: MemoryService, monkeypatch: pytest.MonkeyPatch, second: str
) -> None:
    """The page's second search (no filter) shows only its hits, so it is asked without
    explain and the result cache keeps it: another filter on the same query retrieves only
    the filtered search (each retrieval at 100,000 memories is 30-50 ms of the page)."""
    from graphmem.usecases import search as searching

    token = login(client, OPERATOR)
    query = f"Bob jazz Paris {second}"
    plain = client.post("/u/alice/search", data={"query": query, "csrf": token})
    shown = re.findall(r'<li class="hit" id="hit-\d+">.*?href="/u/alice/m/([^"]+)"', plain.text)
    assert shown
    retrieved: list[object] = []
    real = searching.retrieve

    def counted(*args: object, **kwargs: object) -> object:
        retrieved.append(args[2])
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(searching, "retrieve", counted)
    for memory_type in ("event", second):
        r = client.post(
            "/u/alice/search", data={"query": query, "memory_type": memory_type, "csrf": token}
        )
        assert r.status_code == 200 and 'id="filter-effect"' in r.text
        section = r.text[r.text.index('id="filter-effect"') :]
        # what the page shows is unchanged: the unfiltered column is the plain search's hits
        assert _column(section, 2) == shown
    # before: each page retrieved both searches (4); now the unfiltered one once
    assert len(retrieved) == 3, retrieved


def test_a_filter_comparison_reads_each_row_once(
    client: TestClient, svc: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The two searches of a comparison share the rows they read (graphmem.usecases.compare):
    the second reads only the rows the first did not (before: every candidate both found was
    read twice, 5-10 ms of the page at 100,000 memories)."""
    token = login(client, OPERATOR)
    read: list[str] = []
    real = svc.context.records.get

    def spy(user_id: str, memory_ids: list[str]) -> dict[str, Memory]:
        read.extend(memory_ids)
        return real(user_id, memory_ids)

    monkeypatch.setattr(svc.context.records, "get", spy)
    r = client.post(
        "/u/alice/search",
        data={"query": "Bob Paris jazz sister", "memory_type": "fact", "csrf": token},
    )
    assert r.status_code == 200 and 'id="filter-effect"' in r.text
    assert read and len(read) == len(set(read)), sorted(read)


@pytest.mark.parametrize(
    ("user", "query", "flt"),
    [
        ("alice", "Where does Bob live?", {"memory_type": "fact"}),
        ("alice", "Bob jazz Paris", {"as_of": "2001-01-01"}),
        ("pager", "bulk memory number 7", {"memory_type": "fact"}),
        ("pager", "bulk memory number 12", {"memory_type": "preference"}),
    ],
)
def test_a_comparison_finds_what_the_two_searches_find_alone(
    svc: MemoryService, user: str, query: str, flt: dict[str, str]
) -> None:
    req = SearchRequest(query=query, top_k=10, track_access=False, explain=True, **flt)
    filtered, plain = svc.search_compared(user, req)
    alone = svc.search_request(user, req)
    plain_alone = svc.search_request(
        user, SearchRequest(query=query, top_k=10, track_access=False, explain=True)
    )

    def ids(res: SearchResult) -> list[str]:
        return [h.memory.id for h in res.hits]

    def scores(res: SearchResult) -> Any:
        # recency moves with the clock between the searches: by a few parts in a billion
        return pytest.approx([h.score for h in res.hits], rel=1e-6)

    assert ids(filtered) == ids(alone) and [h.score for h in filtered.hits] == scores(alone)
    assert ids(plain) == ids(plain_alone) and [h.score for h in plain.hits] == scores(plain_alone)
    assert plain.hits
