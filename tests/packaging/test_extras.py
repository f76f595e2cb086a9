"""Optional dependencies: a backend whose extra is missing fails with one line naming the extra
(no traceback), and Chinese text without jieba is still stored and found.

"Missing" is real here, not a mock: the CLI runs in a subprocess whose `sitecustomize` refuses
to import the blocked modules, exactly as Python does when a package is not installed.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from graphmem.infra.extras import EXTRAS, MissingExtraError, optional_extra, require_extra
from tests.helpers.extras import ROOT, blocked_env, graphmem


def test_require_extra_names_the_extra_only_when_the_module_itself_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert require_extra("json", "none", "json").dumps(1) == "1"
    with pytest.raises(MissingExtraError) as e:
        require_extra("graphmem_no_such_module", "mysql", "the MySQL records store")
    assert str(e.value) == (
        "the MySQL records store needs graphmem[mysql] (graphmem_no_such_module is not "
        "installed): pip install 'graphmem[mysql]'"
    )
    assert isinstance(e.value, ImportError) and e.value.extra == "mysql"
    # installed but missing a dependency of its own: a broken install, whose error stands
    (tmp_path / "graphmem_half_installed.py").write_text("import graphmem_its_own_dependency\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError) as broken:
        require_extra("graphmem_half_installed", "x", "y")
    assert not isinstance(broken.value, MissingExtraError)
    assert broken.value.name == "graphmem_its_own_dependency"


def test_optional_extra_warns_once(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("WARNING", logger="graphmem.infra.extras"):
        for _ in range(3):
            assert optional_extra("graphmem_absent_mod", "zh", "a feature", "it degrades") is None
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [
        "a feature needs graphmem[zh] (graphmem_absent_mod is not installed): "
        "pip install 'graphmem[zh]'; until then it degrades"
    ]


def test_every_extra_in_the_table_is_declared_in_pyproject() -> None:
    """EXTRAS (what the error messages name) and pyproject's extras must not drift apart."""
    with (ROOT / "pyproject.toml").open("rb") as f:
        declared = tomllib.load(f)["project"]["optional-dependencies"]
    assert set(EXTRAS) <= set(declared)
    production = " ".join(declared["production"])
    # a production server names a photo's place like the embedded default with the extra does
    assert all(x in production for x in ("mysql", "qdrant", "neo4j", "redis", "s3", "places"))
    dev = " ".join(declared["dev"])
    assert all(x in dev for x in ("production", "zh", "torch", "multilingual", "otel", "places"))


BACKENDS = [
    pytest.param(
        "pymysql",
        {"GRAPHMEM_RECORDS_BACKEND": "mysql", "GRAPHMEM_MYSQL_URL": "mysql://u:p@127.0.0.1:9/db"},
        "the MySQL records store needs graphmem[mysql]",
        id="mysql",
    ),
    pytest.param(
        "qdrant_client",
        {"GRAPHMEM_VECTOR_BACKEND": "qdrant", "GRAPHMEM_QDRANT_URL": "http://127.0.0.1:9"},
        "the Qdrant server vector store needs graphmem[qdrant]",
        id="qdrant",
    ),
    pytest.param(
        "neo4j",
        {"GRAPHMEM_GRAPH_BACKEND": "neo4j", "GRAPHMEM_NEO4J_URL": "bolt://127.0.0.1:9"},
        "the Neo4j graph store needs graphmem[neo4j]",
        id="neo4j",
    ),
    pytest.param(
        "redis",
        {"GRAPHMEM_REDIS_URL": "redis://127.0.0.1:9/0"},
        "needs graphmem[redis]",
        id="redis",
    ),
    pytest.param(
        "minio",
        {"GRAPHMEM_IMAGES_STORE": "s3://graphmem-images/prod"},
        "the S3 image store needs graphmem[s3]",
        id="s3",
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize(("module", "settings", "message"), BACKENDS)
def test_a_missing_backend_extra_is_one_line_naming_it(
    tmp_path: Path, module: str, settings: dict[str, str], message: str
) -> None:
    env = blocked_env(tmp_path, module, **settings)
    r = graphmem(env, tmp_path, "stats")
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr
    errors = [ln for ln in r.stderr.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1 and message in errors[0], r.stderr
    extra = message.split("graphmem[")[1].split("]")[0]
    assert errors[0].endswith(f"pip install 'graphmem[{extra}]'")


@pytest.mark.slow
def test_chinese_without_jieba_is_stored_and_found(tmp_path: Path) -> None:
    env = blocked_env(tmp_path, "jieba")
    added = graphmem(env, tmp_path, "add", "张伟下个月搬到杭州工作")
    assert added.returncode == 0, added.stderr
    assert "Traceback" not in added.stderr
    warnings = [ln for ln in added.stderr.splitlines() if "graphmem[zh]" in ln]
    assert len(warnings) == 1, added.stderr
    found = graphmem(env, tmp_path, "search", "杭州")
    assert found.returncode == 0, found.stderr
    assert "张伟下个月搬到杭州工作" in found.stdout
