"""The engine is pure: standard library only, and nothing that does I/O or reads a clock.

One module of the package draws pictures: ``picture.py`` may use Pillow and
write a PNG into memory (``io.BytesIO``), and nothing more.
"""

import ast
from pathlib import Path

import pbm.trax

ENGINE = Path(pbm.trax.__file__).resolve().parent
ALLOWED = {"__future__", "collections", "dataclasses", "typing", "re", "itertools"}
PICTURE_ALLOWED = ALLOWED | {"functools", "io", "PIL"}


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
        allowed = PICTURE_ALLOWED if path.name == "picture.py" else ALLOWED
        assert imported_modules(path) <= allowed, path.name


def test_only_the_picture_module_uses_pillow_and_the_rest_of_the_engine_does_not_import_it():
    users = sorted(p.name for p in ENGINE.glob("*.py") if "PIL" in imported_modules(p))
    assert users == ["picture.py"]
    # importing pbm.trax (the engine, which every layer uses) does not load Pillow
    tree = ast.parse((ENGINE / "__init__.py").read_text(encoding="utf-8"))
    relative = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level}
    assert "picture" not in relative


def test_the_picture_module_uses_io_only_for_memory_buffers():
    tree = ast.parse((ENGINE / "picture.py").read_text(encoding="utf-8"))
    used = {node.attr for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "io"}
    assert used == {"BytesIO"}


def test_the_engine_calls_no_input_output_builtins():
    for path in ENGINE.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls = {
            node.func.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        }
        assert not calls & {"open", "print", "input"}, path.name
