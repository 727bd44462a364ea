"""The engine is pure: standard library only, nothing that does I/O or reads
a clock, and no mutable state at module level.

One module of the package draws pictures: ``picture.py`` may use Pillow and
write a PNG into memory (``io.BytesIO``), and nothing more.

What a board learns, and the Move objects boards share, are kept in a
:class:`~pbm.trax.Knowledge` the board holds; a module of the engine holds
constants only: numbers, strings, tuples, frozensets, read-only mappings
(``MappingProxyType``), enums, compiled patterns, frozen dataclasses of
those, functions and classes whose own attributes are constants.
"""

import __future__

import ast
import dataclasses
import enum
import importlib
import re
import types
import typing
from pathlib import Path

import pytest

import pbm.trax

ENGINE = Path(pbm.trax.__file__).resolve().parent
ALLOWED = {"__future__", "collections", "dataclasses", "typing", "re", "itertools", "types"}
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


# ----------------------------------------------------------------------
# no mutable state at module level

#: The one exception, by module and name: the picture's sprites, font and
#: labels, drawn with Pillow at first use and memoised (functools.cache).
#: They depend on nothing a board, a game or a caller can change (the same
#: pixels whoever asks), the set of sprites is fixed and the labels are one
#: per column or row name; drawing them for each picture would make it
#: dozens of times slower (the sprites take 47 ms, a picture 1 ms), and the
#: picture's callers (pbm.app) hold no object to keep them in.  The same
#: for the empty frames of the last sixteen sizes drawn (``_frame``: cells and
#: labels, a pure function of the size; each picture draws on a copy).
MEMOISED = frozenset({("pbm.trax.picture", "_sprites"), ("pbm.trax.picture", "_font"),
                      ("pbm.trax.picture", "_label"), ("pbm.trax.picture", "_geometry"),
                      ("pbm.trax.picture", "_frame")})

_ATOMS = (type(None), bool, int, float, complex, str, bytes, range, re.Pattern, enum.Enum, type(Ellipsis),
          __future__._Feature)
_TYPING = (types.GenericAlias, types.UnionType, typing.TypeVar)


def mutable_part(value, where: str, seen: set[int] | None = None) -> str | None:
    """Where ``value`` holds something mutable (a description), or None when
    it is a constant through and through."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return None
    seen.add(id(value))
    if isinstance(value, (*_ATOMS, *_TYPING)):
        return None
    if type(value).__module__ == "typing":  # Literal[...], TypeAlias, Any ...
        return None
    if isinstance(value, types.ModuleType):
        return None  # each module of the engine is checked on its own
    if isinstance(value, (tuple, frozenset)):
        for item in value:
            found = mutable_part(item, f"{where}[...]", seen)
            if found:
                return found
        return None
    if isinstance(value, types.MappingProxyType):
        for key, item in value.items():
            found = mutable_part(key, f"{where} key", seen) or mutable_part(item, f"{where}[{key!r}]", seen)
            if found:
                return found
        return None
    if isinstance(value, type):
        return None  # classes are checked by class_state where they are defined
    if callable(value) and hasattr(value, "cache_info"):
        return f"{where} is a memoised function (its cache is mutable)"
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        if not getattr(value, "__module__", "").startswith("pbm.trax"):
            return None  # a function imported from elsewhere (its defaults are its module's business)
        defaults = (*(value.__defaults__ or ()), *(getattr(value, "__kwdefaults__", None) or {}).values())
        for default in defaults:
            found = mutable_part(default, f"{where}'s default", seen)
            if found:
                return found
        return None
    if dataclasses.is_dataclass(value) and value.__dataclass_params__.frozen:
        for f in dataclasses.fields(value):
            found = mutable_part(getattr(value, f.name), f"{where}.{f.name}", seen)
            if found:
                return found
        return None
    return f"{where} is a {type(value).__name__}"


def class_state(cls: type, where: str) -> str | None:
    """Where a class defined in the engine keeps mutable state in its own
    attributes (not its methods, properties, slots or Python's dunders)."""
    if issubclass(cls, enum.Enum):
        return None
    for name, value in vars(cls).items():
        if (name.startswith("__") and name.endswith("__")) or name == "_abc_impl":
            continue  # Python's own (and a Protocol's registry of classes)
        if isinstance(value, (staticmethod, classmethod, property, types.MemberDescriptorType,
                              types.GetSetDescriptorType)):
            value = getattr(value, "__func__", None)
            if value is None:
                continue
        found = mutable_part(value, f"{where}.{name}")
        if found:
            return found
    return None


def module_state(module: types.ModuleType) -> list[str]:
    """Every mutable thing ``module`` holds at module level."""
    problems = []
    for name, value in vars(module).items():
        if name.startswith("__") and name != "__all__":
            continue
        if (module.__name__, name) in MEMOISED:
            continue
        found = mutable_part(value, f"{module.__name__}.{name}")
        if found:
            problems.append(found)
        if isinstance(value, type) and value.__module__ == module.__name__:
            found = class_state(value, f"{module.__name__}.{name}")
            if found:
                problems.append(found)
    return problems


ENGINE_MODULES = sorted(f"pbm.trax.{path.stem}" for path in ENGINE.glob("*.py") if path.stem != "__init__")


@pytest.mark.parametrize("name", ["pbm.trax", *ENGINE_MODULES])
def test_no_module_of_the_engine_holds_mutable_state(name):
    assert module_state(importlib.import_module(name)) == []


def test_the_check_finds_mutable_state_of_every_kind():
    import functools
    import itertools

    name_of = "pbm.trax.example"
    module = types.ModuleType(name_of)

    @dataclasses.dataclass(frozen=True)
    class Frozen:
        items: object

    class Counted:
        count = [0]  # noqa: RUF012

    Counted.__module__ = name_of

    def defaulted(seen=[]):  # noqa: B006
        return seen

    def clean(seen=()):
        return seen

    defaulted.__module__ = clean.__module__ = name_of
    kinds = {
        "TABLE": {}, "LIST": [], "SEEN": set(), "LOG": bytearray(), "COUNT": itertools.count(),
        "NESTED": (1, ("a", [2])), "PROXY": types.MappingProxyType({"a": {}}), "FROZEN": Frozen([]),
        "cached": functools.cache(lambda: 1), "defaulted": defaulted, "Counted": Counted,
        "__all__": ["Counted"],
    }
    for name, value in kinds.items():
        module.__dict__.clear()
        module.__dict__.update(__name__=name_of, **{name: value})
        assert module_state(module), name
    module.__dict__.clear()
    module.__dict__.update(
        __name__=name_of, __all__=("A",), A=(1, "b", frozenset({2})), B=types.MappingProxyType({"x": (1,)}),
        C=re.compile("x"), D=Frozen((1, 2)), E=enum.Enum("E", "ONE TWO").ONE, F=tuple[int, str], G=int | None,
        H=clean, I=range(3),
    )
    assert module_state(module) == []


#: Modules allowed to be longer, and how long at most: the compiled core is one Cython class
#: (its calls stay C calls only within one module; docs/decisions.md, issue 32).
LONGER = {"core.py": 1700}


def test_every_module_of_the_engine_and_the_search_stays_under_800_lines():
    for path in sorted([*ENGINE.glob("*.py"), *(ENGINE.parent / "ai").glob("*.py")]):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        assert lines < LONGER.get(path.name, 800), f"{path.name}: {lines} lines"
