"""The floor plan, checked: no import cycles inside graphmem/ (extractors/ included: it is
graphmem.extractors), and no module over 500 lines. Run it alone with
`python -m pytest tests/packaging/test_architecture.py`; on failure it prints the modules of every
cycle, which is where to start untangling. Also: only graphmem/settings/ reads the process
environment.

Imports are read from the source (ast), every `import` in a module counts, also those inside
functions (a lazy import hides a cycle, it does not remove it); only imports under
`if TYPE_CHECKING:` are left out, since they never run.
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_LINES = 500


def _modules() -> dict[str, Path]:
    """Every module under graphmem/, following the links that map the repository's top-level
    extractors/ into the package (pathlib's rglob does not follow them before Python 3.13)."""
    found: dict[str, Path] = {}
    for folder, _dirs, files in os.walk(ROOT / "graphmem", followlinks=True):
        for file in sorted(f for f in files if f.endswith(".py")):
            path = Path(folder, file)
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def test_extractors_are_part_of_the_package() -> None:
    assert "graphmem.extractors.rules" in _modules()


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for n in ast.walk(node))
    return skip


def import_graph() -> dict[str, set[str]]:
    """Module -> the graphmem modules it imports. An import of a module's own
    parent package is not an edge: Python has run that package's __init__ already."""
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _type_checking_nodes(tree)
        is_pkg = path.name == "__init__.py"
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base_parts = name.split(".") if is_pkg else name.split(".")[:-1]
                    base_parts = base_parts[: len(base_parts) - (node.level - 1)]
                    base = ".".join([*base_parts, *([node.module] if node.module else [])])
                else:
                    base = node.module or ""
                targets = [base, *(f"{base}.{a.name}" for a in node.names)]
            else:
                continue
            for target in targets:
                while target and target not in mods:
                    target = target.rpartition(".")[0]
                if target and target != name and not name.startswith(target + "."):
                    graph[name].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles() -> None:
    assert cycles(import_graph()) == []


def test_cycle_finder_sees_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_over_500_lines() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in _modules().values()
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


# Modules that touch os.environ outside graphmem/settings/, and why none of them reads a
# setting: each writes a variable for a library or a child process, or hands the environment on.
ENVIRONMENT_WRITERS = {
    "graphmem/images/ocr.py": "hands the environment on to the Tesseract child process",
    "graphmem/embedding/e5.py": "sets OMP_NUM_THREADS for the engine it is about to load",
    "graphmem/embedding/embedder.py": "keeps the Hugging Face libraries offline (setdefault)",
}
ENVIRONMENT = re.compile(r"\bos\.(?:environ|getenv|putenv)\b|\bgetenv\(|\bfrom os import\b.*\benv")


def test_only_the_settings_read_the_environment() -> None:
    """Configuration is read in one place, graphmem/settings/ (the tree, or environment.py for
    the few variables read outside it), so every variable graphmem honours is named there."""
    touching = {
        rel
        for path in _modules().values()
        if not (rel := path.relative_to(ROOT).as_posix()).startswith("graphmem/settings/")
        and ENVIRONMENT.search(path.read_text(encoding="utf-8"))
    }
    assert touching == set(ENVIRONMENT_WRITERS), (
        "read the variable through graphmem.settings (or name the writer and why here)"
    )


def imported_test_modules(source: str, package: tuple[str, ...]) -> list[str]:
    """The test modules (and conftest modules) that `source`, a module in `package`, imports:
    `from tests.unit.test_x import f`, `import tests.unit.test_x`, `from tests.unit import
    test_x`, `from .test_x import f`, `from .. import test_x`, and `import test_x` (a test
    folder on sys.path)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else ()
            module = ".".join((*base, *(node.module.split(".") if node.module else ())))
            names = [module, *(f"{module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            inside = parts[1:] if parts[0] == "tests" else parts[:1]
            if any(leaf == "conftest" or leaf.startswith("test_") for leaf in inside):
                found.append(name)
    return found


def test_no_test_module_imports_another() -> None:
    """What tests share lives in tests/helpers/ (or in a conftest fixture): a test module that
    imports another runs that module's imports and fixtures too, and ties the two together so
    neither can be moved or changed on its own."""
    offenders = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in sorted((ROOT / "tests").rglob("*.py"))
        for name in imported_test_modules(
            path.read_text(encoding="utf-8"), path.parent.relative_to(ROOT).parts
        )
    ]
    assert offenders == []


def test_every_way_of_importing_a_test_module_is_seen() -> None:
    """The check above reads what it should: a form of import it missed would let the coupling
    back in unnoticed."""
    unit = ("tests", "unit")
    caught = {
        "from tests.mcp.test_mcp import TOOLS": ["tests.mcp.test_mcp", "tests.mcp.test_mcp.TOOLS"],
        "import tests.unit.test_x": ["tests.unit.test_x"],
        "from tests.unit import test_x": ["tests.unit.test_x"],
        "from tests.conftest import cli": ["tests.conftest", "tests.conftest.cli"],
        "from .test_x import f": ["tests.unit.test_x", "tests.unit.test_x.f"],
        "from . import test_x": ["tests.unit.test_x"],
        "from ..mcp import test_mcp": ["tests.mcp.test_mcp"],
        "def f():\n    from ..mcp.test_mcp import TOOLS": [
            "tests.mcp.test_mcp",
            "tests.mcp.test_mcp.TOOLS",
        ],
        "import test_x": ["test_x"],
    }
    for source, names in caught.items():
        assert imported_test_modules(source, unit) == names, source
    for source in (
        "from tests.helpers.waiting import wait_until",
        "from .helpers import mcp",
        "import graphmem.testing",
        "from graphmem import test_support",
    ):
        assert imported_test_modules(source, unit) == [], source


def test_the_two_write_locks_are_taken_together_in_one_place() -> None:
    """A user's lock and the process's write lock, taken in one `with`, are Context.serialised:
    spelled out anywhere else, a copy could one day take them in the other order, and two
    writers that each hold the lock the other waits for never finish. (Places that take the
    process's lock alone, or the user's lock long before it, say why where they do.)"""
    together = re.compile(r"with\s+[^\n]*\.writing\([^\n]*\.write_lock\b")
    offenders = [
        str(path.relative_to(ROOT))
        for path in _modules().values()
        if path.name != "context.py" and together.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []
