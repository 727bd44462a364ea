"""The engine is pure: standard library only, and nothing that does I/O or reads a clock."""

import ast
from pathlib import Path

import pbm.trax

ENGINE = Path(pbm.trax.__file__).resolve().parent
ALLOWED = {"__future__", "collections", "dataclasses", "typing", "re"}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_the_engine_imports_nothing_beyond_a_few_pure_standard_modules():
    files = sorted(ENGINE.glob("*.py"))
    assert len(files) >= 7
    for path in files:
        assert imported_modules(path) <= ALLOWED, path.name


def test_the_engine_calls_no_input_output_builtins():
    for path in ENGINE.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls = {
            node.func.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        }
        assert not calls & {"open", "print", "input"}, path.name
