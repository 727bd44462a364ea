"""The package's layers, read from the source with ``ast``: imports point
down only, no module imports itself round a cycle, no pbm import hides in a
function, and each third-party library stays in the layer made for it
(docs/architecture.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "pbm"

#: What each part of the package may import besides itself.
ALLOWED = {
    "secret": set(),
    "terms": set(),
    "languages": set(),
    "config": {"secret", "terms"},
    "trax": set(),
    "ai": {"trax"},  # the computer's search: pure, on the engine
    "grammar": {"trax", "secret", "terms", "languages"},  # the words of commands: no server configuration
    # the domain and the application stand on the search too (a hint, an analysis's review)
    "domain": {"trax", "ai", "grammar", "secret", "terms", "languages", "config"},
    "app": {"trax", "ai", "grammar", "domain", "secret", "terms", "languages", "config"},
    "server": {"trax", "ai", "grammar", "domain", "app", "secret", "terms", "languages", "config"},
    "": {"server"},  # pbm/__init__.py and pbm/__main__.py
}

#: Libraries that belong to one place only (or to the few places named).
LIBRARIES: dict[str, str | tuple[str, ...]] = {
    "sqlite_utils": "pbm.domain.store",
    "jinja2": ("pbm.app.compose", "pbm.app.web_render"),
    "aiohttp": "pbm.server.web",
    "aioimaplib": "pbm.server.inbox",
    "aiosmtpd": "pbm.server.listener",
    "prometheus_client": "pbm.server.metrics",
    "PIL": "pbm.trax.picture",
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py")) if "templates" not in p.parts}


def part_of(module: str) -> str:
    """``pbm.domain.store.boards`` -> ``domain``; the top modules -> ``""``."""
    parts = module.split(".")
    if len(parts) == 1 or (len(parts) == 2 and parts[1] == "__main__"):
        return ""
    return parts[1]


class Imports(ast.NodeVisitor):
    """The pbm modules a module imports, and those it imports inside a function."""

    def __init__(self, module: str, is_package: bool) -> None:
        self.module = module
        self.package = module if is_package else module.rpartition(".")[0]
        self.found: list[tuple[str, int, bool]] = []  # (imported module, line, inside a function)
        self.libraries: list[str] = []
        self.depth = 0

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def _add(self, target: str, line: int) -> None:
        if target == "pbm" or target.startswith("pbm."):
            self.found.append((target, line, self.depth > 0))
        else:
            self.libraries.append(target.split(".")[0])

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name, node.lineno)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            base = self.package.split(".")
            base = base[: len(base) - (node.level - 1)]
            target = ".".join([*base, node.module] if node.module else base)
        else:
            target = node.module or ""
        for alias in node.names:
            sub = f"{target}.{alias.name}"
            self._add(sub if sub in MODULES else target, node.lineno)


def imports_of(module: str) -> Imports:
    path = MODULES[module]
    visitor = Imports(module, path.name == "__init__.py")
    visitor.visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
    return visitor


GRAPH = {m: imports_of(m) for m in MODULES}


def test_the_layers_are_all_there():
    assert {part_of(m) for m in MODULES} == set(ALLOWED)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_point_down(module):
    mine = part_of(module)
    wrong = [(target, line) for target, line, _ in GRAPH[module].found
             if part_of(target) != mine and part_of(target) not in ALLOWED[mine]]
    assert wrong == [], f"{module} imports what its layer may not: {wrong}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_pbm_import_hides_in_a_function(module):
    hidden = [(target, line) for target, line, inside in GRAPH[module].found if inside]
    assert hidden == [], f"{module} imports inside a function: {hidden}"


def test_no_import_cycle():
    edges = {m: {t for t, _, _ in GRAPH[m].found if t in MODULES and t != m} for m in MODULES}
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(m: str) -> None:
        state[m] = "open"
        path.append(m)
        for n in sorted(edges[m]):
            if state.get(n) == "open":
                cycle = [*path[path.index(n):], n]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if n not in state:
                visit(n)
        path.pop()
        state[m] = "done"

    for m in sorted(MODULES):
        if m not in state:
            visit(m)


@pytest.mark.parametrize("library", sorted(LIBRARIES))
def test_each_library_stays_in_its_place(library):
    users = sorted(m for m in MODULES if library in GRAPH[m].libraries)
    homes = LIBRARIES[library]
    homes = (homes,) if isinstance(homes, str) else homes
    assert users and all(any(m == home or m.startswith(home + ".") for home in homes) for m in users), users


def test_the_checker_sees_an_upward_import_a_hidden_one_and_a_cycle(tmp_path):
    """The visitor itself: relative imports resolved, function bodies seen."""
    source = "from ..app import views\ndef f():\n    from pbm.server import cli\n"
    visitor = Imports("pbm.domain.boards", False)
    visitor.visit(ast.parse(source))
    assert visitor.found == [("pbm.app.views", 1, False), ("pbm.server.cli", 3, True)]
