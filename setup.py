"""The build's one step beyond pyproject.toml: each translation catalog
(pbm/locale/LANG/LC_MESSAGES/pbm.po) is compiled to its pbm.mo in the
build, so that a wheel carries the compiled catalogs (see
pbm/app/catalogs.py; a source checkout compiles them in memory)."""

from __future__ import annotations

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


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


setup(cmdclass={"build_py": BuildWithCatalogs})
