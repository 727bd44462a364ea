"""What :mod:`pbm.ai.core` needs of Cython's pure-Python mode when Cython is
not installed (and what mypy reads in its place): the C types as aliases of
``int`` and ``float``, the decorators as functions that change nothing.

The typed memoryviews are written ``cython.uchar[::1]`` in the core; to mypy
(and at run time here) that is :class:`View`, a buffer of ints such as an
``array.array``.  Only the element types the core uses for buffers
(``uchar``, ``sint``, ``size_t``) are indexable; the scalar types
(``int``, ``uint``, ``longlong``, ``ulonglong``, ``double``, ``bint``) are
plain aliases, so that ``x: cython.int = 0`` type-checks.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterator
from typing import Any, Protocol, TypeAlias, TypeVar

_T = TypeVar("_T")
_F = TypeVar("_F", bound=Callable[..., Any])

#: Not compiled: this module stands in for Cython.
compiled = False

int: TypeAlias = builtins.int
uint: TypeAlias = builtins.int
long: TypeAlias = builtins.int
longlong: TypeAlias = builtins.int
ulonglong: TypeAlias = builtins.int
Py_ssize_t: TypeAlias = builtins.int
double: TypeAlias = builtins.float
bint: TypeAlias = builtins.bool
void: TypeAlias = None


class View(Protocol):
    """A typed memoryview as the core uses it: ints read and written by index."""

    def __getitem__(self, index: builtins.int, /) -> builtins.int: ...

    def __setitem__(self, index: builtins.int, value: builtins.int, /) -> None: ...

    def __len__(self) -> builtins.int: ...

    def __iter__(self) -> Iterator[builtins.int]: ...


class _Buffer(type):
    """The type of an element type of buffers: ``uchar[::1]`` is a :class:`View`."""

    def __getitem__(cls, item: slice) -> type[View]:
        return View


class uchar(builtins.int, metaclass=_Buffer):
    """unsigned char, as the element of a buffer."""


class sint(builtins.int, metaclass=_Buffer):
    """signed int, as the element of a buffer."""


class size_t(builtins.int, metaclass=_Buffer):
    """size_t (64 bits where the core runs), as the element of a buffer."""


class _Const:
    """``cython.const[cython.int]``: to Python, the type itself."""

    def __getitem__(self, kind: type[_T]) -> type[_T]:
        return kind


const = _Const()


def declare(kind: type[_T] | None = None, value: Any = None, **names: Any) -> _T:
    """``x = cython.declare(cython.int, 5)``: the value itself."""
    return value  # type: ignore[no-any-return]


def cast(kind: type[_T], value: Any, typecheck: builtins.bool = False) -> _T:
    return value  # type: ignore[no-any-return]


def _same(function: _F) -> _F:
    return function


cfunc = ccall = inline = final = cclass = _same


def exceptval(value: Any = None, *, check: builtins.bool = True) -> Callable[[_F], _F]:
    return _same


def locals(**names: Any) -> Callable[[_F], _F]:
    return _same


def returns(kind: Any) -> Callable[[_F], _F]:
    return _same


def boundscheck(on: builtins.bool) -> Callable[[_F], _F]:
    return _same


wraparound = cdivision = initializedcheck = nonecheck = overflowcheck = boundscheck
