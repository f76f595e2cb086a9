"""docs/architecture.md places every module: each module under graphmem/ (extractors/ included,
through its link) is named on that page by its path inside the package (`usecases/write.py`,
`model.py`), and each package by its folder (`guard/rules/`). A module added without a line
there fails here, with the list of what is missing."""

from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"


def _module_paths() -> list[str]:
    """Every .py file under graphmem/, as a path inside the package, following the links that
    put the repository's extractors/ and cypher/ inside it."""
    found = []
    for folder, _dirs, files in os.walk(ROOT / "graphmem", followlinks=True):
        for file in files:
            if file.endswith(".py"):
                found.append(Path(folder, file).relative_to(ROOT / "graphmem").as_posix())
    return sorted(found)


def _token(path: str) -> str:
    """How the page names a module: its path, or a package's folder with a trailing slash."""
    folder, _, name = path.rpartition("/")
    return f"{folder}/" if folder and name == "__init__.py" else path


def _named(token: str, doc: str) -> bool:
    # not inside a longer path ("records/sqlite.py" does not name "stores/records/sqlite.py"),
    # but "graphmem/usecases/" names "usecases/"
    pattern = (
        r"(?:^|[^\w/.-]|graphmem/)"
        + re.escape(token)
        + (r"(?![\w])" if token.endswith(".py") else "")
    )
    return re.search(pattern, doc) is not None


def test_the_walk_finds_the_package() -> None:
    paths = _module_paths()
    assert "usecases/write.py" in paths and "extractors/rules.py" in paths


def test_every_module_is_placed() -> None:
    doc = DOC.read_text(encoding="utf-8")
    missing = [p for p in _module_paths() if not _named(_token(p), doc)]
    assert not missing, "docs/architecture.md does not place: " + ", ".join(missing)


def test_a_longer_path_does_not_count() -> None:
    assert not _named("records/sqlite.py", "see `stores/records/sqlite.py`")
    assert _named("stores/records/sqlite.py", "see `stores/records/sqlite.py`")
    assert _named("usecases/", "graphmem/usecases/  write")
