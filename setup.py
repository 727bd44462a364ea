"""The build's two steps beyond pyproject.toml.

- Each translation catalog (pbm/locale/LANG/LC_MESSAGES/pbm.po) is compiled
  to its pbm.mo, so that a wheel carries the compiled catalogs (see
  pbm/app/catalogs.py; a source checkout compiles them in memory).
- The computer's search core (pbm/ai/core.py, Cython's pure-Python mode) is
  compiled to a C extension when Cython and a C compiler are there (pip
  fetches Cython for the build; Debian's gcc is the compiler).  Where the
  build cannot compile it, the same file is installed as plain Python and
  runs, slower, with the same results: a failed compile is a warning, never
  a failed install.  PBM_PURE=1 skips the compile on purpose.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

#: The modules compiled by Cython, and the directives they are written for.
COMPILED = ["pbm/ai/core.py"]
DIRECTIVES = {"language_level": 3, "boundscheck": False, "wraparound": False, "cdivision": True,
              "initializedcheck": False}


class BuildWithCatalogs(build_py):
    def run(self) -> None:
        super().run()
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        for source in sorted(Path("pbm/locale").glob("*/LC_MESSAGES/pbm.po")):
            language = source.parts[2]
            with source.open("rb") as f:
                catalog = read_po(f, locale=language, domain="pbm")
            target = Path(self.build_lib) / source.with_suffix(".mo")
            target.parent.mkdir(parents=True, exist_ok=True)
            with target.open("wb") as f:
                write_mo(f, catalog, use_fuzzy=False)


class OptionalBuildExt(build_ext):
    """Compile what it can; a module it cannot compile stays plain Python."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # noqa: BLE001 - no compiler: the pure module serves
            _warn(f"the search core stays plain Python ({error})")

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as error:  # noqa: BLE001
            _warn(f"{ext.name} stays plain Python ({error})")


def _warn(message: str) -> None:
    print(f"pbm build: {message}", file=sys.stderr)


def _extensions() -> list[Extension]:
    if os.environ.get("PBM_PURE"):
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        _warn("no Cython: the search core stays plain Python")
        return []
    try:
        return list(cythonize(COMPILED, compiler_directives=DIRECTIVES, quiet=True))
    except Exception as error:  # noqa: BLE001
        _warn(f"Cython could not translate the search core ({error})")
        return []


setup(
    cmdclass={"build_py": BuildWithCatalogs, "build_ext": OptionalBuildExt},
    ext_modules=_extensions(),
)
