"""The floor plan, checked: no import cycles inside graphmem/ (extractors/ included: it is
graphmem.extractors), no module over 500 lines, no module directly under graphmem/ but the
entry points, and no layer importing a layer above it (docs/architecture.md). Run it alone with
`python -m pytest tests/packaging/test_architecture.py`; on failure it prints the modules of every
cycle, which is where to start untangling, or the imports that go upward. Also: only
graphmem/settings/ reads the process environment.

Imports are read from the source (ast), every `import` in a module counts, also those inside
functions (a lazy import hides a cycle, it does not remove it) and those under
`if TYPE_CHECKING:` (they never run, but a type-only import upward or in a circle ties the
modules together all the same).
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


def import_graph(*, type_checking: bool = True) -> dict[str, set[str]]:
    """Module -> the graphmem modules it imports (with `type_checking` False, leaving out the
    imports under `if TYPE_CHECKING:`). An import of a module's own parent package is not an
    edge: Python has run that package's __init__ already."""
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = set() if type_checking else _type_checking_nodes(tree)
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


def test_the_graph_counts_type_checking_imports() -> None:
    """A type-only import is an edge of the checked graph, and only of it."""
    graph = import_graph()
    assert "graphmem.client" in graph["graphmem"]  # `graphmem/__init__.py`: TYPE_CHECKING only
    assert "graphmem.client" not in import_graph(type_checking=False)["graphmem"]


def test_cycle_finder_sees_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_over_500_lines() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in _modules().values()
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


# What may sit directly under graphmem/: the package, its public entry point (`python -m
# graphmem`), the errors every layer raises and the version. Everything else lives in the
# package of its concept (service/, usecases/, domain/, stores/, infra/, ...).
TOP_LEVEL = {"__init__.py", "__main__.py", "errors.py", "version.py"}


def test_only_the_entry_points_sit_directly_under_graphmem() -> None:
    loose = sorted(p.name for p in (ROOT / "graphmem").glob("*.py") if p.name not in TOP_LEVEL)
    assert loose == [], "put these in the package of their concept (docs/architecture.md)"


# The layers, top to bottom (docs/architecture.md): a module imports its own layer or those
# below it, never one above. Stores and infrastructure share the bottom layer (a store adapter
# needs an extra or a worker pool; tracing hashes user ids with the stores' keyed hasher).
LAYERS: dict[str, tuple[str, ...]] = {
    "interfaces": ("graphmem", "graphmem.__main__", "graphmem.cli", "graphmem.mcp",
                   "graphmem.ui", "graphmem.client"),
    "service": ("graphmem.service",),
    "use-cases": ("graphmem.usecases",),
    "domain": ("graphmem.domain", "graphmem.guard", "graphmem.extractors", "graphmem.documents",
               "graphmem.images", "graphmem.importers", "graphmem.embedding"),
    "stores and infrastructure": ("graphmem.stores", "graphmem.infra", "graphmem.settings",
                                  "graphmem.errors", "graphmem.version"),
}  # fmt: skip

# The ports are declared in the domain's vocabulary: a store takes and returns memories
# (domain.model), narrows by a MemoryFilter (domain.filters) and checks relation types
# (domain.relation_types). Those three modules, and no other domain rule, the stores may import.
VOCABULARY = ("graphmem.domain.model", "graphmem.domain.filters", "graphmem.domain.relation_types")

# Imports upward that exist today, each with why; the list only shrinks. (The use-cases took
# the service's Context until issue 34's narrow doors: each takes its port now,
# graphmem/usecases/ports.py.)
KNOWN_UPWARD: dict[tuple[str, str], str] = {
    ("graphmem.infra.redaction", "graphmem.guard.pii"): (
        "errors and log lines are redacted by the firewall's own PII recognisers"
    ),
    ("graphmem.settings.tree", "graphmem.guard.settings"): (
        "the guard's settings section lives beside its code"
    ),
    ("graphmem.settings.tree", "graphmem.images.settings"): (
        "the images' settings section lives beside their code"
    ),
}


def layer_of(module: str) -> int:
    """The module's layer, 0 the top; a package no layer names is an error to fix here."""
    for rank, prefixes in enumerate(LAYERS.values()):
        if any(module == p or module.startswith(p + ".") for p in prefixes if p != "graphmem"):
            return rank
    if module == "graphmem":
        return 0
    raise AssertionError(f"{module} is in no layer: name its package in LAYERS")


def upward(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """The imports from a module to a layer above its own, but the stores' vocabulary."""
    return {
        (module, target)
        for module, targets in graph.items()
        for target in targets
        if layer_of(target) < layer_of(module)
        and not (module.startswith("graphmem.stores.") and target in VOCABULARY)
    }


def test_every_module_has_a_layer() -> None:
    for module in import_graph():
        layer_of(module)


def test_no_layer_imports_a_layer_above() -> None:
    found = upward(import_graph())
    assert found - set(KNOWN_UPWARD) == set(), "an import upward (docs/architecture.md)"
    assert set(KNOWN_UPWARD) - found == set(), "gone: take it off KNOWN_UPWARD"


def test_the_layer_check_sees_an_import_upward() -> None:
    graph = {
        "graphmem.domain.ranking": {"graphmem.usecases.search", "graphmem.domain.model"},
        "graphmem.stores.records.port": {"graphmem.domain.model", "graphmem.domain.ranking"},
        "graphmem.cli.main": {"graphmem.service.facade", "graphmem.stores"},
    }
    assert upward(graph) == {
        ("graphmem.domain.ranking", "graphmem.usecases.search"),
        ("graphmem.stores.records.port", "graphmem.domain.ranking"),
    }


def test_use_cases_never_import_the_service() -> None:
    """Each use-case takes the door it uses (graphmem/usecases/ports.py), never the service's
    Context: not even a type-only import of graphmem.service, which would tie a use-case's
    signature to the whole context again."""
    graph = import_graph()
    reaching = {
        (module, target)
        for module, targets in graph.items()
        if module.startswith("graphmem.usecases")
        for target in targets
        if target == "graphmem.service" or target.startswith("graphmem.service.")
    }
    assert reaching == set()


INTERFACES = tuple(p for p in LAYERS["interfaces"] if p != "graphmem")


def reaches_past_the_service(source: str) -> list[str]:
    """Where `source` reads a service's `context` (`svc.context`, `self.service.context`,
    `getattr(service, "context")`) or imports a use-case's private name: an interface calls
    the service's public methods and the use-cases' public functions, nothing behind them."""
    found = []
    for node in ast.walk(ast.parse(source)):
        attribute = isinstance(node, ast.Attribute) and node.attr == "context"
        by_name = (
            isinstance(node, ast.Call)
            and ast.unparse(node.func) == "getattr"
            and any(isinstance(a, ast.Constant) and a.value == "context" for a in node.args)
        )
        if attribute or by_name:
            found.append(ast.unparse(node))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("graphmem.use"):
            found += [f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
    return found


def test_interfaces_call_the_service_not_its_context() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}: {where}"
        for module, path in _modules().items()
        if module in ("graphmem", "graphmem.__main__")
        or any(module == p or module.startswith(p + ".") for p in INTERFACES)
        for where in reaches_past_the_service(path.read_text(encoding="utf-8"))
    ]
    assert offenders == [], "add a MemoryService method for it (graphmem/service/facade.py)"


def test_the_interface_check_sees_a_reach_past_the_service() -> None:
    source = """
from graphmem.usecases.turns import observe, _split
from graphmem.usecases import search
def f(svc, self):
    observe(svc.context, "u", [])
    self.service.context.records.get("u", [])
    getattr(svc, "context")
    context = svc.settings  # a name, not the service's attribute
    search.search
"""
    assert sorted(reaches_past_the_service(source)) == [
        "getattr(svc, 'context')",
        "graphmem.usecases.turns._split",
        "self.service.context",
        "svc.context",
    ]


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
