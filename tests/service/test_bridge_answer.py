"""A question asked through a bridge memory gets its answer first (graphmem.usecases.bridge_answer).

"我老婆在哪个科室上班？" matches "我老婆叫王芳，是一名护士。" best; the answer,
"王芳在北京协和医院的急诊科上班。", shares the name the bridge brings and the rest of what the
question asks. Before, the
walk placed it right below the bridge and never above (associative.capped_by_seed), so hit@1 on
such questions was the bridge. A question the bridge itself answers keeps it first.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.embedding import Embedder

WIFE = "我老婆叫王芳，是一名护士。"
WIFE_WORK = "王芳在北京协和医院的急诊科上班。"
DAD = "我爸爸退休前是九江一家化工厂的工程师。"
DAD_NOW = "爸爸退休后迷上了钓鱼，周末常去鄱阳湖边。"
OTHERS = [
    "我每天坐地铁十号线上班，单程大概四十分钟。",
    "同组的李娜负责订单服务，她是我们组的技术骨干。",
    "公司调整座位，我的工位搬到了十五层。",
    "我在一家电商公司做产品经理，负责会员系统。",
    "我参加了一个读书会，每月最后一个周六聚一次。",
    "中午一般在公司楼下吃兰州拉面。",
]


def ranked(svc: MemoryService, query: str) -> list[str]:
    hits = svc.search("lin", query, top_k=5, track_access=False, explain=True).hits
    return [h.memory.content for h in hits]


@pytest.fixture(params=[True, False], ids=["bridge-answer", "off"])
def svc(request: pytest.FixtureRequest, tmp_path: Path, embedder: Embedder) -> MemoryService:
    s = Settings(data_dir=tmp_path / "data", graph={"bridge_answer": request.param})
    service = MemoryService(s, embedder=embedder)
    for text in [WIFE, DAD, *OTHERS[:3], WIFE_WORK, *OTHERS[3:], DAD_NOW]:
        service.write("lin", text)
    request.addfinalizer(service.close)
    return service


def test_the_answer_behind_the_bridge_comes_first(svc: MemoryService) -> None:
    top = ranked(svc, "我老婆在哪个科室上班？")
    if svc.settings.graph.bridge_answer:
        assert top[:2] == [WIFE_WORK, WIFE]
    else:
        assert top[:2] == [WIFE, WIFE_WORK]  # what it was: the bridge first


def test_a_question_the_bridge_answers_keeps_it_first(svc: MemoryService) -> None:
    assert ranked(svc, "我老婆叫什么名字？")[0] == WIFE
    assert ranked(svc, "我老婆是做什么工作的？")[0] == WIFE


def test_the_move_explains_itself(svc: MemoryService) -> None:
    if not svc.settings.graph.bridge_answer:
        pytest.skip("the move is off")
    hit = svc.search("lin", "我老婆在哪个科室上班？", top_k=3, explain=True).hits[0]
    why = (hit.explain or {})["bridge_answer"]
    assert why["bridge"] and why["residual_covered"] >= 0.3 and why["bridge_term"]
    assert [s.relation_type for s in hit.path] == ["bridge"]


def test_without_the_graph_nothing_moves(tmp_path: Path, embedder: Embedder) -> None:
    service = MemoryService(Settings(data_dir=tmp_path / "data"), embedder=embedder)
    try:
        for text in [WIFE, *OTHERS[:3], WIFE_WORK]:
            service.write("lin", text)
        hits = service.search("lin", "我老婆在哪个科室上班？", top_k=3, expand_hops=0).hits
        assert "bridge_answer" not in hits[0].scores
    finally:
        service.close()
